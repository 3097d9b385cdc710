package verify

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"vsrsim/sim"
	"vsrsim/sim/check"
	"vsrsim/sim/check/linearize"
)

// crashTwo crashes replicas 0 and 1 for good at a tick: two of three down, no
// op can commit again, and the run ends unrecoverable.
type crashTwo struct{ at uint64 }

func (s crashTwo) At(c *sim.Cluster, tick uint64) {
	if tick == s.at {
		c.Crash(0)
		c.Crash(1)
	}
}

func unrecoverableConfig() (sim.Config, sim.Attach) {
	cfg := sim.DefaultConfig(15)
	cfg.FaultTicks, cfg.LivenessTicks = 3000, 6000
	cfg.CrashChance.Num = 0
	cfg.Core = []int{2}
	return cfg, sim.Attach{Script: crashTwo{at: 1500}}
}

// TestRunChecksUnrecoverableRuns: the history of an unrecoverable run is
// checked too, and found linearizable; forge one reply into it and the run is
// a safety failure of linearizability, no longer unrecoverable.
func TestRunChecksUnrecoverableRuns(t *testing.T) {
	res, err := Run(unrecoverableConfig())
	require.NoError(t, err)
	require.Equal(t, sim.VerdictUnrecoverable, res.Verdict, res.Evidence)
	require.NotEmpty(t, res.Rule)
	assert.Equal(t, linearize.Linearizable, res.Linearizability)

	rule := res.Rule
	k := -1
	for i, h := range res.History {
		if h.Returned && h.Input.Kind == check.OpGet {
			k = i
		}
	}
	require.GreaterOrEqual(t, k, 0, "the run has a returned get")
	res.History[k].Output += 1_000_000
	res.Linearizability = ""
	judge(&res)
	assert.Equal(t, sim.VerdictSafety, res.Verdict)
	assert.Equal(t, check.InvLinearizable, res.Invariant)
	assert.Equal(t, linearize.NotLinearizable, res.Linearizability)
	assert.Contains(t, res.Evidence, "not linearizable")
	assert.Contains(t, res.Evidence, "in a run unrecoverable by rule "+rule)
	assert.Empty(t, res.Rule, "a rule names an unrecoverable verdict only")
}

// TestJudgeLeavesFailuresAlone: a run that already failed is not checked; its
// verdict stands as the run gave it.
func TestJudgeLeavesFailuresAlone(t *testing.T) {
	for _, v := range []sim.Verdict{sim.VerdictSafety, sim.VerdictLiveness, sim.VerdictCrash} {
		res := sim.Result{Verdict: v, Invariant: "x", History: []sim.HistoryOp{
			{Input: check.Op{Kind: check.OpGet, Key: 1}, Output: 9, Call: 1, Return: 2, Returned: true},
		}}
		judge(&res)
		assert.Equal(t, v, res.Verdict)
		assert.Equal(t, "x", res.Invariant)
		assert.Empty(t, res.Linearizability)
	}
}
