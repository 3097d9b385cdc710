package scenarios_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"vsrsim/scenarios"
	"vsrsim/sim"
)

// TestVCStragglerZeroDelayReplays: the extra delay never draws from the PRNG
// and writes no trace line, so vc-straggler with a zero delay has the trace
// hash of the same run without the extra-delay action, bug on or off; a real
// delay changes the run.
func TestVCStragglerZeroDelayReplays(t *testing.T) {
	s, err := scenarios.Lookup("vc-straggler")
	require.NoError(t, err)
	hash := func(seed uint64, bugs []string, script sim.Script) string {
		cfg, at := scenarioConfig(t, s, seed, bugs)
		at.Script = script
		res, err := sim.Run(cfg, at)
		require.NoError(t, err)
		return res.TraceHash
	}
	for seed := uint64(1); seed <= 5; seed++ {
		for _, bugs := range [][]string{nil, {s.Bug}} {
			zero := hash(seed, bugs, scenarios.VCStragglerScript(0, true))
			without := hash(seed, bugs, scenarios.VCStragglerScript(0, false))
			delayed := hash(seed, bugs, scenarios.VCStragglerScript(scenarios.StragglerDelayTicks, true))
			assert.Equal(t, without, zero, "seed %d bugs %v: a zero extra delay replays the run without it", seed, bugs)
			assert.NotEqual(t, zero, delayed, "seed %d bugs %v: the straggler delay changes the run", seed, bugs)
		}
	}
}
