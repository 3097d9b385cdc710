package swarm

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"vsrsim/replica"
)

// TestFocusTransferMutants: every seed of the focus's slices is a valid
// three-replica star on a 64-slot ring, judged on all its replicas, with one
// slow link from the first primary to a backup; only its middle slice cuts
// the primary's links.
func TestFocusTransferMutants(t *testing.T) {
	seen := map[uint64]int{}
	seeds, slices := FocusSeeds("transfer-mutants", 0, 2000)
	for i, seed := range seeds {
		k := slices[i]
		seen[k]++
		c := Config(seed)
		require.NoError(t, c.Validate(), "seed %d", seed)
		assert.Equal(t, 3, c.Replicas, "seed %d", seed)
		assert.Equal(t, 64, c.JournalSlots, "seed %d", seed)
		assert.Equal(t, replica.TopologyStar, c.Topology, "seed %d", seed)
		assert.Equal(t, []int{0, 1, 2}, c.Core, "seed %d", seed)
		assert.Equal(t, replica.Protocol{}, c.Protocol, "seed %d: the robust protocol", seed)
		if assert.Len(t, c.ExtraDelays, 1, "seed %d", seed) {
			d := c.ExtraDelays[0]
			assert.Equal(t, 0, d.From, "seed %d", seed)
			assert.Contains(t, []int{1, 2}, d.To, "seed %d", seed)
			assert.GreaterOrEqual(t, d.Ticks, c.Timeouts.RepairTicks, "seed %d: slower than a retry period", seed)
		}
		assert.True(t, c.Network.Reorder.Zero() && c.Network.DelayMeanTicks == 0, "seed %d: no reordering", seed)
		assert.Equal(t, k == 1, c.Aimed.AimPrimary && !c.Aimed.LinkChance.Zero(), "seed %d slice %d", seed, k)
		assert.True(t, c.Aimed.CrashChance.Zero(), "seed %d: no crash aimed at the laggard", seed)
	}
	for k := uint64(0); k < 3; k++ {
		assert.Greater(t, seen[k], 10, "slice %d", k)
	}
}
