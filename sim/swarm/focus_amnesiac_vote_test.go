package swarm

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"vsrsim/marks"
	"vsrsim/packetsim"
	"vsrsim/replica"
	"vsrsim/sim"
)

// amnesiacVoteSeeds lists the first swarm seeds whose focus slice is the
// amnesiac vote's (slices 9-11 of sim/swarm/focus.go), with the slice's
// index within the focus.
func amnesiacVoteSeeds(count int) (seeds, slices []uint64) {
	return FocusSeeds("amnesiac-vote", count, 0)
}

// Every seed of the focus draws a valid cluster of the shape the mark needs:
// amnesiac restarts of the primary only, and one straggler among its own
// replicas.
func TestFocusAmnesiacVoteDraws(t *testing.T) {
	seeds, slices := amnesiacVoteSeeds(120)
	replicas := map[uint64]int{0: 5, 1: 5, 2: 3}
	seen := map[uint64]int{}
	backoffOff := 0
	for i, seed := range seeds {
		c := Config(seed)
		require.NoError(t, c.Validate(), "seed %d", seed)
		seen[slices[i]]++
		assert.Equal(t, replicas[slices[i]], c.Replicas, "seed %d", seed)
		assert.Equal(t, replica.DurabilityMemory, c.Durability, "seed %d", seed)
		assert.True(t, c.CrashChance.Zero(), "seed %d: random crashes", seed)
		assert.False(t, c.Aimed.CrashChance.Zero(), "seed %d: aimed crashes", seed)
		assert.True(t, c.Aimed.CrashPeers, "seed %d", seed)
		assert.LessOrEqual(t, c.RestartMeanTicks, uint64(150), "seed %d", seed)
		if assert.Len(t, c.ExtraDelays, 1, "seed %d", seed) {
			d := c.ExtraDelays[0]
			assert.Less(t, d.From, c.Replicas, "seed %d", seed)
			assert.Equal(t, packetsim.AnyNode, d.To, "seed %d", seed)
		}
		if c.Protocol.BackoffOff {
			backoffOff++
		}
	}
	assert.Len(t, seen, 3, "every slice of the focus has seeds")
	// The robust protocol stays the rule.
	assert.Positive(t, backoffOff)
	assert.Less(t, backoffOff, len(seeds)/2)
}

// The focus's first seeds reach merge-unsure, in each slice, far more often
// than the rest of the swarm (about one seed in 150), and every one passes.
func TestFocusAmnesiacVoteReachesMergeUnsure(t *testing.T) {
	seeds, slices := amnesiacVoteSeeds(36)
	reached := 0
	bySlice := map[uint64]int{}
	for i, seed := range seeds {
		res, err := sim.Run(Config(seed), sim.Attach{})
		require.NoError(t, err, "seed %d", seed)
		assert.Equal(t, sim.VerdictPass, res.Verdict, "seed %d: %s", seed, res.Evidence)
		if res.Marks[marks.MergeUnsure] > 0 {
			reached++
			bySlice[slices[i]]++
		}
	}
	assert.GreaterOrEqual(t, reached, len(seeds)/4, "seeds reaching merge-unsure")
	for slice := uint64(0); slice < 3; slice++ {
		assert.Positive(t, bySlice[slice], "slice %d", slice)
	}
}
