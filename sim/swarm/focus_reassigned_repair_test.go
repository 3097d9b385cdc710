package swarm_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"vsrsim/marks"
	"vsrsim/replica"
	"vsrsim/sim"
	"vsrsim/sim/swarm"
)

// reassignedRepairSeeds are the swarm seeds of 1..limit whose focus slice is
// the reassigned-repair focus's (slices 6, 7 and 8 of sim/swarm/focus.go).
func reassignedRepairSeeds(limit uint64) []uint64 {
	seeds, _ := swarm.FocusSeeds("reassigned-repair", 0, limit)
	return seeds
}

// The focus's seeds draw the busy, reordering, crashing write-ahead clusters
// the mark needs, whatever the earlier draws chose.
func TestFocusReassignedRepairDraw(t *testing.T) {
	seeds := reassignedRepairSeeds(2000)
	require.Greater(t, len(seeds), 60, "the focus owns three slices of 64")
	sizes := map[int]int{}
	for _, seed := range seeds {
		c := swarm.Config(seed)
		require.NoError(t, c.Validate(), "seed %d", seed)
		sizes[c.Replicas]++
		assert.Equal(t, replica.DurabilityWAL, c.Durability, "seed %d", seed)
		assert.GreaterOrEqual(t, c.Clients, 24, "seed %d", seed)
		assert.LessOrEqual(t, c.Network.Reorder.Den, uint32(3), "seed %d", seed)
		assert.GreaterOrEqual(t, c.Network.ReorderMaxTicks, uint64(1000), "seed %d", seed)
		assert.False(t, c.CrashChance.Zero(), "seed %d", seed)
		assert.Empty(t, c.ExtraDelays, "seed %d", seed)
	}
	assert.NotZero(t, sizes[5], "five-replica slices")
	assert.NotZero(t, sizes[3], "three-replica slice")
	assert.Len(t, sizes, 2, "only three and five replicas")
}

// The focus's first seeds pass with every fix on, and a good share of them
// take the branch it exists for (29 of its 99 seeds of 1..2000; 9 of the 35
// of 1..700).
func TestFocusReassignedRepairReachesMark(t *testing.T) {
	if testing.Short() {
		t.Skip("runs 35 swarm seeds")
	}
	seeds := reassignedRepairSeeds(700)
	require.NotEmpty(t, seeds)
	reached := 0
	for _, seed := range seeds {
		res, err := sim.Run(knownDefectsAside(swarm.Config(seed)), sim.Attach{})
		require.NoError(t, err, "seed %d", seed)
		assert.Contains(t, []sim.Verdict{sim.VerdictPass, sim.VerdictUnrecoverable}, res.Verdict, "seed %d: %s", seed, res.Evidence)
		assert.Equal(t, res.Marks[marks.RepairBodyMismatch], res.Marks[marks.DropHeaderMismatch],
			"seed %d: every mismatched body is dropped with its reason", seed)
		if res.Marks[marks.RepairBodyMismatch] > 0 {
			reached++
		}
	}
	assert.GreaterOrEqual(t, reached, 5, "of %d focus seeds in 1..700", len(seeds))
}
