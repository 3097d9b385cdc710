package sweep_test

import (
	"context"
	"runtime"
	"strconv"
	"testing"

	"vsrsim/sim"
	"vsrsim/sweep"
	"vsrsim/verify"
)

// BenchmarkSweepSwarm sweeps swarm seeds with the linearizability check on,
// as `vsrsim sweep` does, one job and one per CPU.
func BenchmarkSweepSwarm(b *testing.B) {
	for _, jobs := range []int{1, runtime.NumCPU()} {
		b.Run("jobs="+strconv.Itoa(jobs), func(b *testing.B) {
			b.ReportAllocs()
			const perIter = 20
			var sum sweep.Summary
			first := uint64(1)
			for b.Loop() {
				s := sweep.Run(context.Background(), sweep.Options{Range: sweep.Range{First: first, Count: perIter}, Jobs: jobs},
					func(seed uint64) (sim.Result, error) { return verify.Run(sim.SwarmConfig(seed), nil) },
					func(sweep.Outcome) {})
				first += perIter
				sum.Runs += s.Runs
				sum.Events += s.Events
			}
			secs := b.Elapsed().Seconds()
			b.ReportMetric(float64(sum.Runs)/secs, "runs/s")
			b.ReportMetric(float64(sum.Events)/secs, "events/s")
		})
	}
}
