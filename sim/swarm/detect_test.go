package swarm

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestSwarmDetectLaggard: the laggard draw reaches a fair share of seeds, and
// each such seed is a valid three-replica source-protocol cluster on a
// 64-slot ring whose extra delays name only its own replicas.
func TestSwarmDetectLaggard(t *testing.T) {
	const seeds = 400
	laggards, bare := 0, 0
	for seed := uint64(1); seed <= seeds; seed++ {
		c := Config(seed)
		require.NoError(t, c.Validate(), "seed %d", seed)
		if c.Replicas != 3 || c.JournalSlots != 64 || !c.Protocol.SVCQuorumOff || c.Aimed.LinkMeanTicks < 30 || c.RestartMeanTicks < 500 {
			continue
		}
		laggards++
		if c.BareCore {
			bare++
		}
		for _, d := range c.ExtraDelays {
			assert.Less(t, d.From, 3, "seed %d", seed)
		}
	}
	assert.Greater(t, laggards, seeds/8, "laggard seeds")
	assert.Greater(t, bare, 0, "bare cores")
	assert.Less(t, bare, laggards, "bare cores")
}
