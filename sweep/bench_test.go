package sweep_test

import (
	"context"
	"os"
	"runtime"
	"runtime/debug"
	"strconv"
	"syscall"
	"testing"
	"time"

	"vsrsim/sim"
	"vsrsim/sim/swarm"
	"vsrsim/sweep"
	"vsrsim/verify"
)

// BenchmarkSweepSwarm sweeps 200 swarm seeds a op with the linearizability
// check on, as `vsrsim sweep` does, on one job and on two. Each op starts at
// the next 200 seeds, so longer benchmarks see more of the seed space; the
// figures to compare are events/s and runs/s (per core: divide jobs=2's by
// two). events/cpu-s divides by the process's CPU time (GC included) instead
// of the wall clock: on a machine shared with other work it moves less with
// their load. allocs/run and B/run are per seed (allocs/op is per 200).
//
// It collects garbage as the binary does (GOGC=400 unless the environment
// sets GOGC; D22), so it measures what `vsrsim sweep` runs; GOGC=100 in the
// environment measures the runtime's default. The GOGC metric says which.
func BenchmarkSweepSwarm(b *testing.B) {
	if os.Getenv("GOGC") == "" {
		defer debug.SetGCPercent(debug.SetGCPercent(400))
	}
	gogc := debug.SetGCPercent(-1)
	debug.SetGCPercent(gogc)
	for _, jobs := range []int{1, 2} {
		b.Run("jobs="+strconv.Itoa(jobs), func(b *testing.B) {
			b.ReportAllocs()
			const perIter = 200
			var sum sweep.Summary
			first := uint64(1)
			cpu0 := cpuTime()
			var mem0, mem1 runtime.MemStats
			runtime.ReadMemStats(&mem0)
			for b.Loop() {
				s := sweep.Run(context.Background(), sweep.Options{Range: sweep.Range{First: first, Count: perIter}, Jobs: jobs},
					func(seed uint64) (sim.Result, error) { return verify.Run(swarm.Config(seed), sim.Attach{}) },
					func(sweep.Outcome) {})
				first += perIter
				sum.Runs += s.Runs
				sum.Events += s.Events
			}
			runtime.ReadMemStats(&mem1)
			b.ReportMetric(float64(mem1.Mallocs-mem0.Mallocs)/float64(sum.Runs), "allocs/run")
			b.ReportMetric(float64(mem1.TotalAlloc-mem0.TotalAlloc)/float64(sum.Runs), "B/run")
			if cpu := (cpuTime() - cpu0).Seconds(); cpu > 0 {
				b.ReportMetric(float64(sum.Events)/cpu, "events/cpu-s")
			}
			secs := b.Elapsed().Seconds()
			b.ReportMetric(float64(sum.Runs)/secs, "runs/s")
			b.ReportMetric(float64(sum.Events)/secs, "events/s")
			b.ReportMetric(float64(sum.Events)/float64(sum.Runs), "events/run")
			b.ReportMetric(float64(gogc), "GOGC")
		})
	}
}

// cpuTime is the CPU time the process has used, user and system.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
