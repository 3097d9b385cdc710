package linearize_test

import (
	"strconv"
	"testing"

	"github.com/anishathalye/porcupine"

	"vsrsim/sim"
	"vsrsim/sim/check/linearize"
	"vsrsim/sim/swarm"
)

// BenchmarkSearch checks real swarm histories: seed 1's (a short run), seed
// 124's (the slowest run of seeds 1..2000) and seed 766's (the one whose
// search takes the most steps there). ops/op is the history's length;
// porcupine, the search this one replaced, runs beside it on the same
// history for comparison.
func BenchmarkSearch(b *testing.B) {
	for _, seed := range []uint64{1, 124, 766} {
		res, err := sim.Run(swarm.Config(seed), sim.Attach{})
		if err != nil {
			b.Fatal(err)
		}
		b.Run("seed="+strconv.FormatUint(seed, 10), func(b *testing.B) {
			b.ReportAllocs()
			var out linearize.Outcome
			for b.Loop() {
				out = linearize.Search(res.History, linearize.StepBudget)
			}
			if out.Verdict != linearize.Linearizable {
				b.Fatal(out.Verdict, out.Detail)
			}
			b.ReportMetric(float64(len(res.History)), "ops/op")
			b.ReportMetric(float64(out.Steps), "steps/op")
		})
		b.Run("seed="+strconv.FormatUint(seed, 10)+"/porcupine", func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if !porcupine.CheckOperations(linearize.Model, linearize.Operations(res.History)) {
					b.Fatal("not linearizable")
				}
			}
		})
	}
}
