package packetsim

import (
	"slices"
	"testing"

	"vsrsim/prng"
)

func TestDeterminism(t *testing.T) {
	for seed := uint64(1); seed <= 5; seed++ {
		a := newNetwork(t, faultyOptions(), seed)
		b := newNetwork(t, faultyOptions(), seed)
		logA := runWorkload(t, a, seed, 2000)
		logB := runWorkload(t, b, seed, 2000)
		if !slices.Equal(logA, logB) {
			t.Fatalf("seed %d: two runs differ", seed)
		}
		if a.Stats() != b.Stats() {
			t.Fatalf("seed %d: stats differ: %+v vs %+v", seed, a.Stats(), b.Stats())
		}
		// The run must exercise what it claims to.
		s := a.Stats()
		if s.Partitions == 0 || s.Clogs == 0 || s.Duplicated == 0 || s.Dropped[Loss] == 0 || s.Dropped[Partition] == 0 {
			t.Fatalf("seed %d: the faulty run saw too few faults: %+v", seed, s)
		}
		c := newNetwork(t, faultyOptions(), seed+100)
		if logC := runWorkload(t, c, seed, 2000); slices.Equal(logA, logC) {
			t.Fatalf("seeds %d and %d give the same run", seed, seed+100)
		}
	}
}

func TestDelayBounds(t *testing.T) {
	opts := Options{Nodes: 3, Replicas: 3, DelayMinTicks: 5, DelayMeanTicks: 10}
	n := newNetwork(t, opts, 1)
	log := runWorkload(t, n, 1, 500)
	if len(log) == 0 {
		t.Fatal("nothing delivered")
	}
	longer := 0
	for _, d := range log {
		if d.Dropped {
			t.Fatalf("fault-free network dropped %+v", d)
		}
		delay := d.At - d.Sent
		if delay < 5 || delay > 5+20*10 {
			t.Fatalf("delay %d outside [5, 205]: %+v", delay, d)
		}
		if delay > 5 {
			longer++
		}
	}
	if longer == 0 {
		t.Fatal("DelayMeanTicks added nothing")
	}
}

func TestSelfSendAndOrderWithinTick(t *testing.T) {
	n := newNetwork(t, Options{Nodes: 2, Replicas: 2, DelayMinTicks: 3}, 1)
	n.Submit(10, 1, 1, 100)
	n.Submit(10, 0, 1, 101)
	n.Submit(10, 0, 0, 102)
	var got []Delivery[int]
	n.Deliver(13, func(d *Delivery[int]) { got = append(got, *d) })
	want := []Delivery[int]{
		{From: 1, To: 1, Payload: 100, Sent: 10, At: 13, ID: 1},
		{From: 0, To: 1, Payload: 101, Sent: 10, At: 13, ID: 2},
		{From: 0, To: 0, Payload: 102, Sent: 10, At: 13, ID: 3},
	}
	if !slices.Equal(got, want) {
		t.Fatalf("got %+v, want %+v", got, want)
	}
}

func TestLossRate(t *testing.T) {
	const packets = 100_000
	opts := Options{Nodes: 2, Replicas: 2, DelayMinTicks: 1, Loss: prng.Percent(10), LinkCapacity: packets, QueueLimit: packets}
	n := newNetwork(t, opts, 3)
	for i := 0; i < packets; i++ {
		n.Submit(1, i%2, (i+1)%2, i)
	}
	var log []Delivery[int]
	n.Deliver(2, func(d *Delivery[int]) { log = append(log, *d) })
	lost := countReason(log, Loss)
	// 10% of 100k, sigma ~95: 500 is over five sigma.
	if lost < 9500 || lost > 10500 {
		t.Fatalf("lost %d of %d at 10%%", lost, packets)
	}
	if len(log) != packets || countReason(log, NotDropped) != packets-lost {
		t.Fatalf("%d reports, %d delivered, %d lost", len(log), countReason(log, NotDropped), lost)
	}
	checkBalance(t, n)
}

func TestReplayMarksDuplicates(t *testing.T) {
	opts := Options{Nodes: 2, Replicas: 2, DelayMinTicks: 1, DelayMeanTicks: 5, Replay: prng.Percent(25), LinkCapacity: 1 << 12}
	n := newNetwork(t, opts, 4)
	const packets = 2000
	for i := 0; i < packets; i++ {
		n.Submit(1, 0, 1, i)
	}
	copies := make([]int, packets)
	dups := make([]int, packets)
	for now := uint64(1); n.Stats().InFlight > 0; now++ {
		n.Deliver(now, func(d *Delivery[int]) {
			copies[d.Payload]++
			if d.Duplicate {
				dups[d.Payload]++
			}
		})
	}
	total := 0
	for i := range copies {
		if copies[i] != 1+dups[i] || dups[i] > 1 {
			t.Fatalf("payload %d: %d copies, %d flagged duplicate", i, copies[i], dups[i])
		}
		total += dups[i]
	}
	if total < 400 || total > 600 || uint64(total) != n.Stats().Duplicated {
		t.Fatalf("%d duplicates of %d at 25%% (stats %d)", total, packets, n.Stats().Duplicated)
	}
}

func TestReorderExtraDelay(t *testing.T) {
	opts := Options{Nodes: 2, Replicas: 2, DelayMinTicks: 10, Reorder: prng.Percent(50), ReorderMaxTicks: 40}
	n := newNetwork(t, opts, 5)
	var log []Delivery[int]
	for now := uint64(1); now <= 2000; now++ {
		if now <= 1000 {
			n.Submit(now, 0, 1, int(now))
		}
		n.Deliver(now, func(d *Delivery[int]) { log = append(log, *d) })
	}
	onTime, overtaken := 0, 0
	for i, d := range log {
		delay := d.At - d.Sent
		if delay < 10 || delay > 50 {
			t.Fatalf("delay %d outside [10, 50]", delay)
		}
		if delay == 10 {
			onTime++
		}
		if i > 0 && d.Payload < log[i-1].Payload {
			overtaken++
		}
	}
	if onTime < 400 || onTime > 600 || overtaken == 0 {
		t.Fatalf("%d of 1000 on time, %d overtaken", onTime, overtaken)
	}
}

func TestCapacityEvictsRandomPacketOfLink(t *testing.T) {
	opts := Options{Nodes: 3, Replicas: 3, DelayMinTicks: 100, LinkCapacity: 4}
	n := newNetwork(t, opts, 6)
	for i := 0; i < 10; i++ {
		n.Submit(1, 0, 1, i)
	}
	n.Submit(1, 0, 2, 99) // another link, unaffected
	var early []Delivery[int]
	n.Deliver(2, func(d *Delivery[int]) { early = append(early, *d) })
	if len(early) != 6 {
		t.Fatalf("reported %d capacity drops at tick 2, want 6: %+v", len(early), early)
	}
	evicted := make([]bool, 10)
	for _, d := range early {
		if d.Reason != Capacity || !d.Dropped || d.From != 0 || d.To != 1 || d.At != 1 || d.Sent != 1 {
			t.Fatalf("bad capacity drop %+v", d)
		}
		evicted[d.Payload] = true
	}
	// A random victim, not simply the oldest or the newest.
	if slices.Equal(evicted, []bool{true, true, true, true, true, true, false, false, false, false}) {
		t.Fatal("eviction took the oldest packets: not random")
	}
	var late []Delivery[int]
	n.Deliver(101, func(d *Delivery[int]) { late = append(late, *d) })
	if len(late) != 5 {
		t.Fatalf("delivered %d at tick 101, want 4 on 0->1 and 1 on 0->2", len(late))
	}
	for _, d := range late {
		if d.Dropped || (d.To == 1 && evicted[d.Payload]) {
			t.Fatalf("bad delivery %+v", d)
		}
	}
	if got := n.Stats().Dropped[Capacity]; got != 6 {
		t.Fatalf("Dropped[Capacity] = %d", got)
	}
	checkBalance(t, n)
}

func TestSubmitDropsReportFirst(t *testing.T) {
	n := newNetwork(t, Options{Nodes: 2, Replicas: 2, DelayMinTicks: 1}, 1)
	n.AddFilter(func(from, to NodeID, p int) bool { return p < 0 })
	n.Submit(4, 0, 1, 1) // due at 5
	n.Submit(5, 0, 1, -1)
	if at, ok := n.NextDue(); !ok || at != 5 {
		t.Fatalf("NextDue = %d, %v", at, ok)
	}
	var got []Delivery[int]
	n.Deliver(5, func(d *Delivery[int]) { got = append(got, *d) })
	want := []Delivery[int]{
		{From: 0, To: 1, Payload: -1, Sent: 5, At: 5, Dropped: true, Reason: Filter, ID: 2},
		{From: 0, To: 1, Payload: 1, Sent: 4, At: 5, ID: 1},
	}
	if !slices.Equal(got, want) {
		t.Fatalf("got %+v, want %+v", got, want)
	}
	// Drain reports only the drops at submit.
	n.Submit(6, 0, 1, -2)
	n.Submit(6, 0, 1, 2)
	got = got[:0]
	n.Drain(func(d *Delivery[int]) { got = append(got, *d) })
	if len(got) != 1 || got[0].Payload != -2 {
		t.Fatalf("Drain reported %+v", got)
	}
	if at, ok := n.NextDue(); !ok || at != 7 {
		t.Fatalf("NextDue after Drain = %d, %v", at, ok)
	}
}

func TestCallbackSubmitsWaitForNextDeliver(t *testing.T) {
	n := newNetwork(t, Options{Nodes: 2, Replicas: 2}, 1)
	n.Submit(1, 0, 1, 0)
	var got []int
	echo := func(d *Delivery[int]) {
		got = append(got, d.Payload)
		if d.Payload < 3 {
			n.Submit(1, d.To, d.From, d.Payload+1) // zero delay: due now
		}
	}
	n.Deliver(1, echo)
	if !slices.Equal(got, []int{0}) {
		t.Fatalf("first Deliver reported %v", got)
	}
	n.Deliver(1, echo)
	n.Deliver(1, echo)
	n.Deliver(1, echo)
	if !slices.Equal(got, []int{0, 1, 2, 3}) {
		t.Fatalf("got %v", got)
	}
	mustPanic(t, "Deliver from a callback", func() {
		n.Submit(1, 0, 1, 9)
		n.Deliver(1, func(*Delivery[int]) { n.Deliver(1, func(*Delivery[int]) {}) })
	})
}

func TestNextDue(t *testing.T) {
	n := newNetwork(t, Options{Nodes: 2, Replicas: 2, DelayMinTicks: 7}, 1)
	if _, ok := n.NextDue(); ok {
		t.Fatal("NextDue on an empty network")
	}
	n.Submit(3, 0, 1, 1)
	n.Submit(4, 1, 0, 2)
	if at, ok := n.NextDue(); !ok || at != 10 {
		t.Fatalf("NextDue = %d, %v", at, ok)
	}
	n.Hold(0, 1)
	n.Deliver(10, func(*Delivery[int]) {})
	if at, ok := n.NextDue(); !ok || at != 11 {
		t.Fatalf("NextDue with a held packet = %d, %v", at, ok)
	}
}

func TestMisusePanics(t *testing.T) {
	n := newNetwork(t, Options{Nodes: 3, Replicas: 2}, 1)
	n.Tick(5)
	mustPanic(t, "time going backwards", func() { n.Submit(4, 0, 1, 0) })
	mustPanic(t, "Tick twice", func() { n.Tick(5) })
	mustPanic(t, "node out of range", func() { n.Submit(5, 0, 3, 0) })
	mustPanic(t, "negative node", func() { n.Submit(5, -1, 0, 0) })
	mustPanic(t, "RemoveFilter unknown", func() { n.RemoveFilter(42) })
}

func TestQueueLimitAsserted(t *testing.T) {
	n := newNetwork(t, Options{Nodes: 3, Replicas: 3, DelayMinTicks: 10, LinkCapacity: 8, QueueLimit: 10}, 1)
	for i := 0; i < 8; i++ {
		n.Submit(1, 0, 1, i)
	}
	n.Submit(1, 0, 2, 8)
	n.Submit(1, 0, 2, 9)
	mustPanic(t, "submit past QueueLimit", func() { n.Submit(1, 1, 2, 10) })
}

// TestDeliveryOutlivesPoolGrowth: a callback that submits enough to grow the
// slot pool still reads its own delivery intact, and every packet it submitted
// arrives with its own payload.
func TestDeliveryOutlivesPoolGrowth(t *testing.T) {
	n := newNetwork(t, Options{Nodes: 2, Replicas: 2, LinkCapacity: 1000, QueueLimit: 1000}, 1)
	n.Submit(1, 0, 1, -1)
	var seen []int
	n.Deliver(1, func(d *Delivery[int]) {
		for i := 0; i < 500; i++ {
			n.Submit(1, 1, 0, i)
		}
		seen = append(seen, d.Payload, d.From, d.To)
	})
	if !slices.Equal(seen, []int{-1, 0, 1}) {
		t.Fatalf("the delivery read after the pool grew: payload, from, to = %v", seen)
	}
	var got []int
	n.Deliver(2, func(d *Delivery[int]) { got = append(got, d.Payload) })
	want := make([]int, 500)
	for i := range want {
		want[i] = i
	}
	if !slices.Equal(got, want) {
		t.Fatalf("delivered %d packets, want 0..499 in order: %v", len(got), got)
	}
}
