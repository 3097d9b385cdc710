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
