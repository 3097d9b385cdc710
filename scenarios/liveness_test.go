package scenarios_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"vsrsim/scenarios"
	"vsrsim/sim"
)

// livenessSeeds is the range every liveness scenario must pass.
const livenessSeeds = 50

// servedAfter counts the client operations that returned after tick.
func servedAfter(res sim.Result, tick uint64) int {
	n := 0
	for _, op := range res.History {
		if op.Returned && op.Return > tick {
			n++
		}
	}
	return n
}

// TestLivenessScenarios: every liveness scenario passes on seeds 1..50, and
// its clients were served after the fault (not only once the liveness phase
// healed the network).
func TestLivenessScenarios(t *testing.T) {
	n := 0
	for _, s := range scenarios.All() {
		if s.Bug != "" {
			continue
		}
		n++
		t.Run(s.Name, func(t *testing.T) {
			t.Parallel()
			require.Equal(t, sim.VerdictPass, s.Expect)
			require.NotZero(t, s.ServedAfter, "a liveness scenario names when its clients must be served")
			for seed := uint64(1); seed <= livenessSeeds; seed++ {
				res := runScenario(t, s, seed, nil)
				assert.Equal(t, sim.VerdictPass, res.Verdict, "seed %d: %s %s", seed, res.Invariant, res.Evidence)
				cfg := scenarioConfig(t, s, seed, nil)
				served := 0
				for _, op := range res.History {
					if op.Returned && op.Return > s.ServedAfter && op.Return <= cfg.FaultTicks {
						served++
					}
				}
				assert.Positive(t, served, "seed %d: no client was served between tick %d and the end of the fault phase", seed, s.ServedAfter)
			}
		})
	}
	require.Positive(t, n, "liveness scenarios are registered")
}
