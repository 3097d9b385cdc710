package sim_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"vsrsim/packetsim"
	"vsrsim/prng"
	"vsrsim/sim"
)

// TestRunAllocationsFlat: a run's allocations are a setup cost, not a cost per
// event. Stretching a run eightfold adds under one allocation per thousand
// events: what is left is the amortized growth of the oracle's per-op record
// and of the client history.
func TestRunAllocationsFlat(t *testing.T) {
	measure := func(ticks uint64) (allocs float64, events uint64) {
		cfg := sim.DefaultConfig(3)
		cfg.FaultTicks = ticks
		// Crashes and partitions cost allocations per fault (a restart builds
		// a replica, a view change its suffixes), not per event: this is the
		// steady state between them, loss, replay and reordering still on.
		cfg.CrashChance = prng.Ratio{}
		cfg.Network.PartitionMode, cfg.Network.PartitionChance = packetsim.PartitionNone, prng.Ratio{}
		cfg.Network.Clog = prng.Ratio{}
		allocs = testing.AllocsPerRun(1, func() {
			res, err := sim.Run(cfg, nil)
			require.NoError(t, err)
			require.Equal(t, sim.VerdictPass, res.Verdict)
			events = res.Events
		})
		return allocs, events
	}
	shortAllocs, shortEvents := measure(10_000)
	longAllocs, longEvents := measure(80_000)
	require.Greater(t, longEvents, 5*shortEvents)
	perEvent := (longAllocs - shortAllocs) / float64(longEvents-shortEvents)
	assert.Less(t, perEvent, 0.001, "%.0f allocations over %d events, %.0f over %d", shortAllocs, shortEvents, longAllocs, longEvents)
}
