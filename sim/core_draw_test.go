package sim

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"vsrsim/replica"
)

// A bare core (a view-change quorum and no more) holds a view-change quorum
// of whole replicas where the cluster has one. A replica down on a
// write-ahead journal counts as whole only if it went down whole: one whose
// superblock its disk lost comes back amnesiac, and a core holding it could
// form no view without the replica outside it (robust-2d1e-756994645.vsr:
// r1, amnesiac since t=1,483 and down at the phase's start, drawn into the
// core beside r2; only r0, outside it and 4,000 ticks slow, could vote with
// r2, and the core had a view 28,000 ticks later).
func TestCoreCountsADownAmnesiacAsNotWhole(t *testing.T) {
	drawn := map[bool]int{} // how many draws put r1 in the core, by r1's amnesia
	for seed := uint64(1); seed <= 24; seed++ {
		for _, amnesiac := range []bool{false, true} {
			cfg := DefaultConfig(seed)
			cfg.Replicas, cfg.BareCore, cfg.Durability = 3, true, replica.DurabilityWAL
			c, err := newCluster(cfg, Attach{}, newTrace(nil, cfg.Replicas, nil))
			require.NoError(t, err)
			c.now = 10
			c.Crash(1)
			if amnesiac {
				c.checker.SuperblockLost(c.now, 1)
			}
			require.Equal(t, amnesiac, c.checker.Amnesiac(1))
			core := c.drawCore()
			require.Len(t, core, c.checker.QuorumViewChange())
			if inCore(core, 1) {
				drawn[amnesiac]++
			}
		}
	}
	assert.Positive(t, drawn[false], "a replica down whole is drawn into the core: it comes back whole")
	assert.Zero(t, drawn[true], "a replica down amnesiac is traded out for a whole one")
}
