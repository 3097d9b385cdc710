package sim_test

import (
	"bytes"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"vsrsim/packetsim"
	"vsrsim/prng"
	"vsrsim/sim"
	"vsrsim/sim/swarm"
)

// aimedConfig is a short run with frequent aimed faults.
func aimedConfig(seed uint64) sim.Config {
	c := sim.DefaultConfig(seed)
	c.FaultTicks = 3000
	c.Aimed = sim.AimedFaults{
		LinkChance: prng.Ratio{Num: 1, Den: 20}, LinkMeanTicks: 100,
		ClientLinks: true, AimPrimary: true,
		CrashChance: prng.Ratio{Num: 1, Den: 500},
	}
	return c
}

// Every kind of aimed cut happens, cuts drop packets, aimed crashes happen,
// and the run is still deterministic and passes.
func TestAimedFaults(t *testing.T) {
	var trace bytes.Buffer
	res, err := sim.Run(aimedConfig(11), sim.Attach{Trace: &trace})
	require.NoError(t, err)
	again, err := sim.Run(aimedConfig(11), sim.Attach{})
	require.NoError(t, err)
	assert.Equal(t, res.TraceHash, again.TraceHash)
	assert.Equal(t, sim.VerdictPass, res.Verdict, res.Evidence)
	for _, kind := range []string{"aimed one-way cut", "aimed send-only cut", "aimed receive-only cut", "aimed client cut"} {
		assert.Contains(t, trace.String(), kind)
	}
	assert.NotZero(t, res.Stats.Network.Dropped[packetsim.Partition])
	assert.NotZero(t, res.Stats.Crashes)
}

// With keep-faults, a replica outside the core keeps its cuts, and one that
// comes to lead a view is cut off whole rather than holding the core.
func TestAimedKeepFaultsCore(t *testing.T) {
	passes := 0
	for seed := uint64(1); seed <= 6; seed++ {
		c := aimedConfig(seed)
		c.Replicas = 5
		c.Core = []int{0, 1, 2}
		c.LivenessKeepFaults = true
		res, err := sim.Run(c, sim.Attach{})
		require.NoError(t, err)
		assert.Equal(t, sim.VerdictPass, res.Verdict, "seed %d: %s", seed, res.Evidence)
		if res.Verdict == sim.VerdictPass {
			passes++
		}
	}
	assert.Equal(t, 6, passes)
}

// The widened swarm draws each new fault in some seeds and not in others.
func TestSwarmWidening(t *testing.T) {
	count := map[string]int{}
	const seeds = 300
	for seed := uint64(1); seed <= seeds; seed++ {
		c := swarm.Config(seed)
		require.NoError(t, c.Validate(), "seed %d", seed)
		for name, on := range map[string]bool{
			"corrupt":      !c.Network.Corrupt.Zero(),
			"link":         !c.Aimed.LinkChance.Zero(),
			"client":       c.Aimed.ClientLinks,
			"primary":      c.Aimed.AimPrimary,
			"crash":        !c.Aimed.CrashChance.Zero(),
			"keep":         c.LivenessKeepFaults,
			"svc-off":      c.Protocol.SVCQuorumOff,
			"abdicate-off": c.Protocol.AbdicationOff,
			"backoff-off":  c.Protocol.BackoffOff,
		} {
			if on {
				count[name]++
			}
		}
	}
	for _, name := range []string{"corrupt", "link", "client", "primary", "crash", "keep", "svc-off", "abdicate-off", "backoff-off"} {
		assert.Greater(t, count[name], seeds/50, name)
		assert.Less(t, count[name], seeds, name)
	}
}
