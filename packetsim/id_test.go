package packetsim

import (
	"testing"

	testassert "github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestPacketIDs: every outcome (delivery, drop at submit, drop when due) names
// the packet by the id NextPacketID promised at its Submit, and each original
// is reported once, so a trace can match a send to its fate.
func TestPacketIDs(t *testing.T) {
	n := newNetwork(t, faultyOptions(), 7)
	w := newWorkload(7, 5)
	originals := map[uint64]int{}
	var dropped, duplicates int
	check := func(d *Delivery[int]) {
		// The workload's payloads count Submit calls from 0.
		require.Equal(t, uint64(d.Payload)+1, d.ID, "delivery %+v", d)
		if d.Duplicate {
			duplicates++
			return
		}
		if d.Dropped {
			dropped++
		}
		originals[d.ID]++
	}
	for now := uint64(1); now <= 2000; now++ {
		require.Equal(t, uint64(w.next)+1, n.NextPacketID())
		n.Tick(now)
		w.submit(now, n)
		n.Deliver(now, check)
	}
	require.NotZero(t, dropped, "the faulty options must drop something")
	require.NotZero(t, duplicates, "the faulty options must replay something")
	for id, times := range originals {
		testassert.Equal(t, 1, times, "packet %d reported more than once", id)
	}
}
