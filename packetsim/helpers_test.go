package packetsim

import (
	"testing"

	"vsrsim/prng"
)

// faultyOptions turns on every random fault, for tests that need a busy run.
func faultyOptions() Options {
	return Options{
		Nodes:                   5,
		Replicas:                3,
		DelayMinTicks:           2,
		DelayMeanTicks:          8,
		Loss:                    prng.Percent(5),
		Replay:                  prng.Percent(5),
		Reorder:                 prng.Percent(10),
		ReorderMaxTicks:         30,
		LinkCapacity:            8,
		Clog:                    prng.Ratio{Num: 1, Den: 200},
		ClogMeanTicks:           20,
		PartitionMode:           UniformSize,
		PartitionSymmetry:       Asymmetric,
		PartitionChance:         prng.Percent(2),
		HealChance:              prng.Percent(5),
		PartitionStabilityTicks: 10,
		HealStabilityTicks:      10,
	}
}

func newNetwork(t testing.TB, opts Options, seed uint64) *Network[int] {
	t.Helper()
	n, err := New[int](opts, prng.New(seed, prng.StreamNetwork))
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	return n
}

// workload submits a random mix of packets each tick, drawn from its own
// stream so that it is the same whatever the network draws.
type workload struct {
	rng   *prng.Stream
	nodes int
	next  int
}

func newWorkload(seed uint64, nodes int) *workload {
	return &workload{rng: prng.New(seed, prng.StreamWorkload), nodes: nodes}
}

func (w *workload) submit(now uint64, n *Network[int]) {
	for k := w.rng.Uint64N(4); k > 0; k-- {
		from := w.rng.IntN(w.nodes)
		to := w.rng.IntN(w.nodes)
		n.Submit(now, from, to, w.next)
		w.next++
	}
}

// run ticks the network from 1 to ticks, calling each tick Tick, then before
// (it may be nil), then Deliver, and returns every report in order.
func run(n *Network[int], ticks uint64, before func(now uint64)) []Delivery[int] {
	var log []Delivery[int]
	record := func(d *Delivery[int]) { log = append(log, *d) }
	for now := uint64(1); now <= ticks; now++ {
		n.Tick(now)
		if before != nil {
			before(now)
		}
		n.Deliver(now, record)
	}
	return log
}

// runWorkload runs a random workload for ticks, then keeps delivering with no
// new submits until nothing is in flight, so every packet is reported.
func runWorkload(t *testing.T, n *Network[int], seed uint64, ticks uint64) []Delivery[int] {
	t.Helper()
	w := newWorkload(seed, n.Options().Nodes)
	log := run(n, ticks, func(now uint64) { w.submit(now, n) })
	n.SetFaultsEnabled(false)
	n.HealAll()
	now := ticks
	for n.Stats().InFlight > 0 {
		now++
		if now > ticks+100_000 {
			t.Fatalf("packets still in flight at tick %d", now)
		}
		n.Tick(now)
		n.Deliver(now, func(d *Delivery[int]) { log = append(log, *d) })
	}
	n.Drain(func(d *Delivery[int]) { log = append(log, *d) })
	checkBalance(t, n)
	return log
}

// checkBalance asserts every packet is delivered, dropped or in flight.
func checkBalance(t *testing.T, n *Network[int]) {
	t.Helper()
	s := n.Stats()
	if s.Sent+s.Duplicated != s.Delivered+s.DroppedTotal()+uint64(s.InFlight) {
		t.Fatalf("stats do not balance: %+v", s)
	}
}

func countReason(log []Delivery[int], r DropReason) int {
	c := 0
	for _, d := range log {
		if d.Reason == r {
			c++
		}
	}
	return c
}

func mustPanic(t *testing.T, what string, f func()) {
	t.Helper()
	defer func() {
		if recover() == nil {
			t.Fatalf("%s did not panic", what)
		}
	}()
	f()
}
