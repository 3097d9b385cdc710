package sim_test

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"vsrsim/packetsim"
	"vsrsim/prng"
	"vsrsim/replica"
	"vsrsim/sim"
)

// stragglerConfig: three replicas of the source protocol, r2 outside the
// core and every packet it sends later than a view-change timeout, with
// short directed cuts so that replicas time out now and then.
func stragglerConfig(seed uint64, bugs ...string) sim.Config {
	c := sim.DefaultConfig(seed)
	c.Replicas = 3
	c.FaultTicks = 4000
	c.Protocol = replica.Protocol{SVCQuorumOff: true, AbdicationOff: true}
	c.ExtraDelays = []sim.ExtraDelay{{From: 2, To: packetsim.AnyNode, Ticks: 600}}
	c.Aimed = sim.AimedFaults{LinkChance: prng.Ratio{Num: 1, Den: 300}, LinkMeanTicks: 100}
	c.Core = []int{0, 1}
	b, err := replica.ParseBugs(bugs)
	if err != nil {
		panic(err)
	}
	c.Bugs = b
	return c
}

// TestStragglerOutsideTheCoreStays (D27): in a source-protocol run a replica
// outside the core that only speaks late is not cut off as the liveness phase
// starts. With the hold it keeps its view and the core converges; with
// escalate-without-hold its lone StartViewChanges keep pulling the core out
// of every view it settles.
func TestStragglerOutsideTheCoreStays(t *testing.T) {
	const seeds = 8
	stalled := 0
	for seed := uint64(1); seed <= seeds; seed++ {
		var trace strings.Builder
		res, err := sim.Run(stragglerConfig(seed), sim.Attach{Trace: &trace})
		require.NoError(t, err)
		assert.Equal(t, sim.VerdictPass, res.Verdict, "seed %d: %s", seed, res.Evidence)
		assert.NotContains(t, trace.String(), "outside the core of a source protocol: cut off", "seed %d", seed)
		bad, err := sim.Run(stragglerConfig(seed, "escalate-without-hold"), sim.Attach{})
		require.NoError(t, err)
		if bad.Verdict == sim.VerdictLiveness {
			stalled++
		}
	}
	t.Logf("escalate-without-hold stalled %d of %d seeds", stalled, seeds)
	assert.Positive(t, stalled, "the defect shows in some seed")
}
