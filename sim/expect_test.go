package sim_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"vsrsim/prng"
	"vsrsim/sim"
)

func quietRun(seed uint64, expect ...sim.Expectation) sim.Config {
	cfg := sim.DefaultConfig(seed)
	cfg.CrashChance = prng.Ratio{}
	cfg.Network.PartitionChance = prng.Ratio{}
	cfg.FaultTicks = 3000
	cfg.Expect = expect
	return cfg
}

// TestExpectations: a window the run meets passes; one it cannot meet is a
// liveness verdict naming the window, judged when the window closes.
func TestExpectations(t *testing.T) {
	for _, tc := range []struct {
		name    string
		expect  sim.Expectation
		verdict sim.Verdict
		want    string
	}{
		{"served met", sim.Expectation{Kind: sim.ExpectServed, From: 100, To: 2000, Min: 5, Where: "t:1"}, sim.VerdictPass, ""},
		{"served missed", sim.Expectation{Kind: sim.ExpectServed, From: 100, To: 2000, Min: 1 << 40, Where: "t:2"}, sim.VerdictLiveness,
			"expect served 100 2000 >= 1099511627776 missed (t:2)"},
		{"no view change in a quiet run", sim.Expectation{Kind: sim.ExpectViewChange, From: 10, To: 2500, Where: "t:3"}, sim.VerdictLiveness,
			"expect view-change 10 2500 missed (t:3): no view change completed in ticks 10..2500"},
		{"a quiet run keeps its view", sim.Expectation{Kind: sim.ExpectViewChangesAtMost, From: 10, To: 2500, Max: 0, Where: "t:4"}, sim.VerdictPass, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res, err := sim.Run(quietRun(2, tc.expect), sim.Attach{})
			require.NoError(t, err)
			assert.Equal(t, tc.verdict, res.Verdict, res.Evidence)
			assert.Contains(t, res.Evidence, tc.want)
			if tc.verdict == sim.VerdictLiveness {
				assert.Equal(t, "expect", res.Invariant)
				assert.Equal(t, tc.expect.To, res.Ticks, "judged when the window closes")
			}
		})
	}
}

// TestExpectViewChangeSeen: crashing the primary makes a view change the
// expectation sees.
func TestExpectViewChangeSeen(t *testing.T) {
	cfg := quietRun(2, sim.Expectation{Kind: sim.ExpectViewChange, From: 500, To: 2500, Where: "t:1"})
	res, err := sim.Run(cfg, sim.Attach{Script: crashAt{tick: 500, replica: 0}})
	require.NoError(t, err)
	assert.Equal(t, sim.VerdictPass, res.Verdict, res.Evidence)
}

// TestExpectViewChangesAtMost: crashing the primary makes a view change that
// a window allowing none sees.
func TestExpectViewChangesAtMost(t *testing.T) {
	cfg := quietRun(2, sim.Expectation{Kind: sim.ExpectViewChangesAtMost, From: 500, To: 2500, Max: 0, Where: "t:1"})
	res, err := sim.Run(cfg, sim.Attach{Script: crashAt{tick: 500, replica: 0}})
	require.NoError(t, err)
	assert.Equal(t, sim.VerdictLiveness, res.Verdict)
	assert.Contains(t, res.Evidence, "expect view-changes 500 2500 <= 0 missed (t:1): 1 view changes completed in ticks 500..2500")
}

type crashAt struct {
	tick    uint64
	replica int
}

func (s crashAt) At(c *sim.Cluster, tick uint64) {
	if tick == s.tick {
		c.Crash(s.replica)
	}
}

func TestExpectationValidate(t *testing.T) {
	cfg := quietRun(1, sim.Expectation{Kind: sim.ExpectServed, From: 20, To: 10, Where: "t:4"})
	assert.ErrorContains(t, cfg.Validate(), "t:4: window 20..10 ends before it starts")
	cfg = quietRun(1, sim.Expectation{Kind: sim.ExpectServed, From: 20, To: 1 << 40, Where: "t:5"})
	assert.ErrorContains(t, cfg.Validate(), "after the run's last tick")
}
