package scenarios_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"vsrsim/replica"
	"vsrsim/scenarios"
	"vsrsim/sim"
	"vsrsim/verify"
)

// livenessSeeds is the range every liveness scenario must pass.
const livenessSeeds = 50

// servedIn counts the client operations that returned in (after, until].
func servedIn(res sim.Result, after, until uint64) int {
	n := 0
	for _, op := range res.History {
		if op.Returned && op.Return > after && op.Return <= until {
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
				cfg, _ := scenarioConfig(t, s, seed, nil)
				served := servedIn(res, s.ServedAfter, cfg.FaultTicks)
				assert.Positive(t, served, "seed %d: no client was served between tick %d and the end of the fault phase", seed, s.ServedAfter)
			}
		})
	}
	require.Positive(t, n, "liveness scenarios are registered")
}

// TestLivenessNeedsItsMechanism: each mechanism is what carries its
// scenarios. With the protocol option that models a source without it, the
// scenario stalls (or its clients go unserved) on every seed of 1..10.
func TestLivenessNeedsItsMechanism(t *testing.T) {
	tests := []struct {
		scenario string
		off      replica.Protocol
	}{
		{"primary-send-only", replica.Protocol{AbdicationOff: true}},
		{"partition-1-2-oneway-in", replica.Protocol{AbdicationOff: true}},
		{"backup-send-only", replica.Protocol{SVCQuorumOff: true}},
		{"partition-2-1-oneway-in", replica.Protocol{SVCQuorumOff: true}},
		{"slow-pair-primary-crash", replica.Protocol{BackoffOff: true}},
		{"backup-mute-to-new-primary", replica.Protocol{PushStartViewOff: true, RelayStartViewOff: true}},
	}
	for _, tt := range tests {
		t.Run(tt.scenario, func(t *testing.T) {
			t.Parallel()
			s, err := scenarios.Lookup(tt.scenario)
			require.NoError(t, err)
			for seed := uint64(1); seed <= 10; seed++ {
				cfg, at := scenarioConfig(t, s, seed, nil)
				cfg.Protocol = tt.off
				res, err := verify.Run(cfg, at)
				require.NoError(t, err)
				served := servedIn(res, s.ServedAfter, cfg.FaultTicks)
				assert.True(t, res.Verdict != sim.VerdictPass || served == 0,
					"seed %d: %s passes without its mechanism (%d served)", seed, tt.scenario, served)
			}
		})
	}
}

// TestOneTickDelayRescuesNoStall: a 1-tick extra delay on every link of the
// replicas is no fault the core cannot outwait, so the harness cuts nobody
// off for it: a scenario that stalls without its mechanism still stalls,
// and no run is assisted. Once any extra delay counted as late and the new
// primary was cut off, so the stall passed on every seed.
func TestOneTickDelayRescuesNoStall(t *testing.T) {
	s, err := scenarios.Lookup("backup-mute-to-new-primary")
	require.NoError(t, err)
	for seed := uint64(1); seed <= 5; seed++ {
		cfg, at := scenarioConfig(t, s, seed, nil)
		cfg.Protocol = replica.Protocol{PushStartViewOff: true, RelayStartViewOff: true}
		for from := 0; from < cfg.Replicas; from++ {
			for to := 0; to < cfg.Replicas; to++ {
				if from != to {
					cfg.ExtraDelays = append(cfg.ExtraDelays, sim.ExtraDelay{From: from, To: to, Ticks: 1})
				}
			}
		}
		res, err := verify.Run(cfg, at)
		require.NoError(t, err)
		served := servedIn(res, s.ServedAfter, cfg.FaultTicks)
		assert.True(t, res.Verdict != sim.VerdictPass || served == 0,
			"seed %d: a 1-tick delay turned the stall into a pass (%d served)", seed, served)
		assert.Empty(t, res.Assists, "seed %d: the harness helped", seed)
	}
}
