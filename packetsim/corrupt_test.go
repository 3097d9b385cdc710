package packetsim

import (
	"testing"

	"vsrsim/prng"
)

// Corruption drops a packet at its due tick under its own reason, on every
// link, and only while faults are on.
func TestCorrupt(t *testing.T) {
	tests := []struct {
		name    string
		corrupt prng.Ratio
		faults  bool
		want    DropReason
	}{
		{"always", prng.Ratio{Num: 1, Den: 1}, true, Corrupt},
		{"never", prng.Ratio{}, true, NotDropped},
		{"faults off", prng.Ratio{Num: 1, Den: 1}, false, NotDropped},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			n := newNetwork(t, Options{Nodes: 3, Replicas: 2, DelayMinTicks: 1, Corrupt: tc.corrupt}, 5)
			n.SetFaultsEnabled(tc.faults)
			var log []Delivery[int]
			for now := uint64(1); now <= 10; now++ {
				n.Tick(now)
				if now <= 3 {
					n.Submit(now, 0, 1, int(now))
					n.Submit(now, 2, 0, int(now)) // a client's link too
				}
				n.Deliver(now, func(d *Delivery[int]) { log = append(log, *d) })
			}
			if got := countReason(log, tc.want); got != 6 {
				t.Errorf("%d of 6 packets reported %v: %+v", got, tc.want, log)
			}
			if corrupt := n.Stats().Dropped[Corrupt]; (tc.want == Corrupt) != (corrupt == 6) {
				t.Errorf("Stats().Dropped[Corrupt] = %d", corrupt)
			}
		})
	}
}

// With CorruptDelivered a corrupted packet arrives flagged Damaged rather
// than dropped, and the draws are the same as with drops: only the report
// differs. Packets outnumber the pool's slots many times over, so a slot
// that carried a damaged packet carries clean ones after it.
func TestCorruptDelivered(t *testing.T) {
	run := func(delivered bool) []Delivery[int] {
		n := newNetwork(t, Options{Nodes: 3, Replicas: 2, DelayMinTicks: 1, DelayMeanTicks: 3,
			Corrupt: prng.Ratio{Num: 1, Den: 3}, CorruptDelivered: delivered}, 5)
		var log []Delivery[int]
		for now := uint64(1); now <= 420; now++ {
			n.Tick(now)
			if now <= 400 {
				n.Submit(now, 0, 1, int(now))
			}
			n.Deliver(now, func(d *Delivery[int]) { log = append(log, *d) })
		}
		return log
	}
	dropped, delivered := run(false), run(true)
	if len(dropped) != 400 || len(delivered) != 400 {
		t.Fatalf("want 400 reports each, got %d and %d", len(dropped), len(delivered))
	}
	damaged := 0
	for i := range dropped {
		d, e := dropped[i], delivered[i]
		if d.ID != e.ID || d.At != e.At {
			t.Errorf("report %d: packet %d at %d dropping, %d at %d delivering", i, d.ID, d.At, e.ID, e.At)
		}
		if (d.Reason == Corrupt) != (e.Damaged && !e.Dropped) {
			t.Errorf("packet %d: dropped as %v, delivered damaged=%v dropped=%v", d.ID, d.Reason, e.Damaged, e.Dropped)
		}
		if e.Damaged {
			damaged++
		}
	}
	if damaged == 0 {
		t.Error("no packet arrived damaged")
	}
}
