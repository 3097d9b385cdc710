package packetsim

import (
	"testing"

	"vsrsim/prng"
)

func TestClogDelaysButDoesNotDrop(t *testing.T) {
	opts := Options{Nodes: 4, Replicas: 3, DelayMinTicks: 1, Clog: prng.Ratio{Num: 1, Den: 1}, ClogMeanTicks: 20}
	n := newNetwork(t, opts, 2)
	n.Tick(1)
	// Every link between two distinct replicas clogs at once; no other does.
	for from := 0; from < 4; from++ {
		for to := 0; to < 4; to++ {
			want := from != to && from < 3 && to < 3
			if n.Clogged(from, to) != want {
				t.Fatalf("Clogged(%d, %d) = %v", from, to, !want)
			}
		}
	}
	if n.Stats().Clogs != 6 {
		t.Fatalf("Clogs = %d, want 6", n.Stats().Clogs)
	}
	n.SetFaultsEnabled(false) // let the clogs run out with none new
	var log []Delivery[int]
	for now := uint64(1); now <= 500; now++ {
		if now > 1 {
			n.Tick(now)
		}
		if now <= 5 {
			n.Submit(now, 0, 1, int(now))
			n.Submit(now, 0, 3, 100+int(now))
		}
		n.Deliver(now, func(d *Delivery[int]) {
			if d.To == 1 && n.Clogged(0, 1) {
				t.Fatalf("delivered on a clogged link: %+v", d)
			}
			log = append(log, *d)
		})
	}
	if len(log) != 10 || countReason(log, NotDropped) != 10 {
		t.Fatalf("got %d reports: %+v", len(log), log)
	}
	late, last := 0, 0
	for _, d := range log {
		if d.To == 3 && d.At != d.Sent+1 {
			t.Fatalf("client link delayed by a clog: %+v", d)
		}
		if d.To == 1 {
			if d.At > d.Sent+1 {
				late++
			}
			if d.Payload < last {
				t.Fatalf("clogged packets left out of order: %+v", log)
			}
			last = d.Payload
		}
	}
	if late == 0 {
		t.Fatal("no packet waited on the clog")
	}
}

func TestHealAll(t *testing.T) {
	opts := Options{Nodes: 4, Replicas: 3, DelayMinTicks: 1, PartitionMode: UniformSize,
		PartitionChance: prng.Ratio{Num: 1, Den: 1}, HealStabilityTicks: 50,
		Clog: prng.Ratio{Num: 1, Den: 1}, ClogMeanTicks: 1000}
	n := newNetwork(t, opts, 3)
	n.Tick(1) // every replica link clogs
	n.Partition([]NodeID{0}, []NodeID{1, 2})
	n.SetLinkDown(3, 0, true)
	n.Hold(1, 2)
	n.Submit(1, 1, 2, 7)
	n.Submit(1, 2, 1, 8)
	n.Deliver(5, func(d *Delivery[int]) { t.Fatalf("delivered %+v before HealAll", d) })
	if n.Connected(0, 1) || n.Connected(3, 0) || !n.Clogged(2, 1) {
		t.Fatal("faults not in force before HealAll")
	}
	n.HealAll()
	for a := 0; a < 4; a++ {
		for b := 0; b < 4; b++ {
			if !n.Connected(a, b) || n.Clogged(a, b) {
				t.Fatalf("link %d->%d not healed", a, b)
			}
		}
	}
	if n.Partitioned() {
		t.Fatal("still partitioned")
	}
	var got []int
	n.Deliver(5, func(d *Delivery[int]) {
		if d.Dropped || d.At != 5 {
			t.Fatalf("bad delivery after HealAll: %+v", d)
		}
		got = append(got, d.Payload)
	})
	if len(got) != 2 || got[0] != 7 || got[1] != 8 {
		t.Fatalf("after HealAll delivered %v, want [7 8]", got)
	}
	// Random faults stay on; the next random partition waits out the heal
	// stability from the HealAll.
	for now := uint64(6); now < 55; now++ {
		n.Tick(now)
		if n.Partitioned() {
			t.Fatalf("partitioned at %d, inside the heal stability window", now)
		}
	}
	n.Tick(55)
	if !n.Partitioned() {
		t.Fatal("random partitions stopped after HealAll")
	}
}

func TestFaultsDisabledDrawNothing(t *testing.T) {
	opts := faultyOptions()
	certain := prng.Ratio{Num: 1, Den: 1}
	opts.Loss, opts.Replay, opts.Reorder, opts.Clog, opts.PartitionChance = certain, certain, certain, certain, certain
	opts.DelayMeanTicks = 0 // the delay is the one draw faults do not gate
	opts.LinkCapacity = 1024
	n := newNetwork(t, opts, 7)
	n.SetFaultsEnabled(false)
	log := runWorkload(t, n, 7, 1000)
	s := n.Stats()
	if s.DroppedTotal() != 0 || s.Duplicated != 0 || s.Clogs != 0 || s.Partitions != 0 || n.Partitioned() {
		t.Fatalf("faults disabled, yet %+v", s)
	}
	for _, d := range log {
		if d.At != d.Sent+opts.DelayMinTicks {
			t.Fatalf("delay changed with faults off: %+v", d)
		}
	}
	if n.rng.Uint64() != prng.New(7, prng.StreamNetwork).Uint64() {
		t.Fatal("a run with faults off drew from the stream")
	}
	// Turned back on, they fire at once.
	n.SetFaultsEnabled(true)
	n.Tick(100_000)
	if !n.Partitioned() || n.Stats().Clogs == 0 {
		t.Fatal("faults did not resume")
	}
}

// The count of clogged links that lets a quiet tick skip the unclog scan
// follows every clog and every opening, HealAll's included: a count that
// drifted low would leave a link clogged forever.
func TestClogCountFollowsLinks(t *testing.T) {
	opts := Options{Nodes: 4, Replicas: 3, DelayMinTicks: 1, Clog: prng.Ratio{Num: 1, Den: 40}, ClogMeanTicks: 15}
	n := newNetwork(t, opts, 9)
	clogged := func() int {
		k := 0
		for from := 0; from < 3; from++ {
			for to := 0; to < 3; to++ {
				if n.Clogged(from, to) {
					k++
				}
			}
		}
		return k
	}
	sawClogs := false
	for now := uint64(1); now <= 2000; now++ {
		n.Tick(now)
		if now == 1000 {
			n.HealAll()
		}
		if n.clogs != clogged() {
			t.Fatalf("tick %d: count %d, links clogged %d", now, n.clogs, clogged())
		}
		sawClogs = sawClogs || n.clogs > 0
	}
	if !sawClogs {
		t.Fatal("no link ever clogged")
	}
}
