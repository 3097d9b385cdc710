package verify_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"vsrsim/sim"
	"vsrsim/sim/check"
	"vsrsim/sim/check/linearize"
	"vsrsim/verify"
)

// TestRunChecksLinearizability: a passing run's history is linearizable, and
// the same history with one reply forged is not: the check can fire on a real
// run's history.
func TestRunChecksLinearizability(t *testing.T) {
	res, err := verify.Run(sim.DefaultConfig(3), sim.Attach{})
	require.NoError(t, err)
	require.Equal(t, sim.VerdictPass, res.Verdict, res.Evidence)
	require.NotEmpty(t, res.History)
	assert.Equal(t, linearize.Linearizable, res.Linearizability)

	forged := append([]sim.HistoryOp(nil), res.History...)
	k := -1
	for i, h := range forged {
		if h.Returned && h.Input.Kind == check.OpGet {
			k = i
		}
	}
	require.GreaterOrEqual(t, k, 0, "the run has a returned get")
	forged[k].Output += 1_000_000
	got, _ := linearize.Check(forged)
	assert.Equal(t, linearize.NotLinearizable, got, "a forged read breaks linearizability")
}
