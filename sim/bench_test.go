package sim_test

import (
	"io"
	"testing"

	"vsrsim/sim"
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
		res, err := sim.Run(sim.DefaultConfig(seed), sim.Attach{Trace: io.Discard})
		if err != nil {
			b.Fatal(err)
		}
		events += res.Events
	}
	b.ReportMetric(float64(events)/b.Elapsed().Seconds(), "events/s")
}
