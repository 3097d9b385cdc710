package sim_test

import (
	"io"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"vsrsim/packetsim"
	"vsrsim/prng"
	"vsrsim/sim"
	"vsrsim/sim/ndjson"
	"vsrsim/sim/swarm"
)

// BenchmarkRunDefault runs whole default-configuration simulations (fault
// phase and liveness phase, checkers on) and reports the event loop's speed.
func BenchmarkRunDefault(b *testing.B) {
	benchRuns(b, sim.DefaultConfig)
}

// BenchmarkRunSwarm runs swarm seeds: each draws its own cluster and faults,
// so this is the mix a sweep sees.
func BenchmarkRunSwarm(b *testing.B) {
	benchRuns(b, swarm.Config)
}

// BenchmarkRunSwarmSpec runs the same swarm seeds with the protocol model
// (docs/spec.md) on and off: the ratio of the two events/s is the model's
// cost. A run the model fails stops there, so compare events/s, not runs/s.
func BenchmarkRunSwarmSpec(b *testing.B) {
	for _, off := range []bool{false, true} {
		name := "spec=on"
		if off {
			name = "spec=off"
		}
		b.Run(name, func(b *testing.B) {
			benchRuns(b, func(seed uint64) sim.Config {
				cfg := swarm.Config(seed)
				cfg.SpecOff = off
				return cfg
			})
		})
	}
}

func benchRuns(b *testing.B, config func(uint64) sim.Config) {
	b.ReportAllocs()
	var events uint64
	seed := uint64(0)
	for b.Loop() {
		seed++
		res, err := sim.Run(config(seed), sim.Attach{})
		if err != nil {
			b.Fatal(err)
		}
		events += res.Events
	}
	s := b.Elapsed().Seconds()
	b.ReportMetric(float64(seed)/s, "runs/s")
	b.ReportMetric(float64(events)/s, "events/s")
	b.ReportMetric(float64(events)/float64(seed), "events/run")
}

// BenchmarkRunTraced is BenchmarkRunDefault writing the NDJSON trace: the
// cost of formatting it, and proof it adds no allocation per event.
func BenchmarkRunTraced(b *testing.B) {
	b.ReportAllocs()
	var events uint64
	seed := uint64(0)
	for b.Loop() {
		seed++
		res, err := sim.Run(sim.DefaultConfig(seed), sim.Attach{Observer: ndjson.New(io.Discard, ndjson.Filter{})})
		if err != nil {
			b.Fatal(err)
		}
		events += res.Events
	}
	b.ReportMetric(float64(events)/b.Elapsed().Seconds(), "events/s")
}

// TestRunAllocationsFlat: a run's allocations are a setup cost, not a cost per
// event. Stretching a run eightfold adds under one allocation per thousand
// events: what is left is the amortized growth of the oracle's per-op record
// and of the client history.
func TestRunAllocationsFlat(t *testing.T) {
	shortAllocs, shortEvents := measureSteadyRun(t, 10_000, nil)
	longAllocs, longEvents := measureSteadyRun(t, 80_000, nil)
	require.Greater(t, longEvents, 5*shortEvents)
	perEvent := (longAllocs - shortAllocs) / float64(longEvents-shortEvents)
	assert.Less(t, perEvent, 0.001, "%.0f allocations over %d events, %.0f over %d", shortAllocs, shortEvents, longAllocs, longEvents)
}

// TestRunAllocationsOnSpare: a sweep worker's run (sim.Run with the Spare
// its earlier runs left) allocates under half of what a fresh run does, and
// stretching it eightfold adds under one allocation per two thousand events
// (the client history's and the oracle's amortized growth).
func TestRunAllocationsOnSpare(t *testing.T) {
	spare := &sim.Spare{}
	measureSteadyRun(t, 80_000, spare) // warm: the spare grows to the longer run
	fresh, _ := measureSteadyRun(t, 10_000, nil)
	shortAllocs, shortEvents := measureSteadyRun(t, 10_000, spare)
	longAllocs, longEvents := measureSteadyRun(t, 80_000, spare)
	require.Greater(t, longEvents, 5*shortEvents)
	assert.Less(t, shortAllocs, fresh/2, "a run on a warm spare: %.0f allocations, a fresh one %.0f", shortAllocs, fresh)
	perEvent := (longAllocs - shortAllocs) / float64(longEvents-shortEvents)
	assert.Less(t, perEvent, 0.0005, "%.0f allocations over %d events, %.0f over %d", shortAllocs, shortEvents, longAllocs, longEvents)
}

// measureSteadyRun counts the allocations of one passing run of ticks fault
// ticks, on spare if not nil.
func measureSteadyRun(t *testing.T, ticks uint64, spare *sim.Spare) (allocs float64, events uint64) {
	t.Helper()
	cfg := sim.DefaultConfig(3)
	cfg.FaultTicks = ticks
	// Crashes and partitions cost allocations per fault (a restart builds
	// a replica, a view change its suffixes), not per event: this is the
	// steady state between them, loss, replay and reordering still on.
	cfg.CrashChance = prng.Ratio{}
	cfg.Network.PartitionMode, cfg.Network.PartitionChance = packetsim.PartitionNone, prng.Ratio{}
	cfg.Network.Clog = prng.Ratio{}
	allocs = testing.AllocsPerRun(1, func() {
		res, err := sim.Run(cfg, sim.Attach{Spare: spare})
		require.NoError(t, err)
		require.Equal(t, sim.VerdictPass, res.Verdict)
		events = res.Events
	})
	return allocs, events
}
