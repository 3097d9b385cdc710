package sweep_test

import (
	"context"
	"strconv"
	"testing"

	"vsrsim/sim"
	"vsrsim/sweep"
	"vsrsim/verify"
)

// BenchmarkSweepSwarm sweeps 200 swarm seeds a op with the linearizability
// check on, as `vsrsim sweep` does, on one job and on two. Each op starts at
// the next 200 seeds, so longer benchmarks see more of the seed space; the
// figures to compare are events/s and runs/s (per core: divide jobs=2's by
// two).
func BenchmarkSweepSwarm(b *testing.B) {
	for _, jobs := range []int{1, 2} {
		b.Run("jobs="+strconv.Itoa(jobs), func(b *testing.B) {
			b.ReportAllocs()
			const perIter = 200
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
			b.ReportMetric(float64(sum.Events)/float64(sum.Runs), "events/run")
		})
	}
}
