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

// lateStartViewSeeds are the first n swarm seeds that fall in the late
// StartView focus's slices (sim/swarm/focus.go: slices 3, 4 and 5).
func lateStartViewSeeds(n int) []uint64 {
	seeds, _ := swarm.FocusSeeds("late-start-view", n, 0)
	return seeds
}

// The focus draws the conditions a late StartView needs in each of its
// seeds: amnesiac restarts, checkpoints a few ops apart, and a share of
// packets held for longer than a replica's life between crashes.
func TestFocusLateStartViewDraws(t *testing.T) {
	for _, seed := range lateStartViewSeeds(60) {
		c := swarm.Config(seed)
		require.NoError(t, c.Validate(), "seed %d", seed)
		assert.Equal(t, replica.DurabilityMemory, c.Durability, "seed %d", seed)
		assert.GreaterOrEqual(t, c.Replicas, 5, "seed %d", seed)
		assert.LessOrEqual(t, replica.CheckpointEvery(c.CheckpointInterval, c.JournalSlots), uint64(4), "seed %d", seed)
		assert.False(t, c.Network.Reorder.Zero(), "seed %d", seed)
		assert.GreaterOrEqual(t, c.Network.ReorderMaxTicks, 3*c.RestartMeanTicks, "seed %d", seed)
		assert.False(t, c.CrashChance.Zero(), "seed %d", seed)
	}
}

// A good share of the focus's first seeds reach drop-below-commit (8 of the
// first 24 when the focus was tuned), every run passing with every fix on.
func TestFocusLateStartViewReachesMark(t *testing.T) {
	if testing.Short() {
		t.Skip("runs 24 swarm seeds")
	}
	reached := 0
	for _, seed := range lateStartViewSeeds(24) {
		res, err := sim.Run(swarm.Config(seed), sim.Attach{})
		require.NoError(t, err, "seed %d", seed)
		assert.Equal(t, sim.VerdictPass, res.Verdict, "seed %d: %s", seed, res.Evidence)
		if res.Marks[marks.DropBelowCommit] > 0 {
			reached++
		}
	}
	assert.GreaterOrEqual(t, reached, 6, "first 24 focus seeds reaching drop-below-commit")
}
