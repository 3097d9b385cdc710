package sim

import (
	"fmt"
	"testing"
)

func TestSmokeSeeds(t *testing.T) {
	for seed := uint64(1); seed <= 60; seed++ {
		cfg := DefaultConfig(seed)
		res, err := Run(cfg, nil)
		if err != nil {
			t.Fatal(err)
		}
		fmt.Printf("seed=%d verdict=%s inv=%s ticks=%d events=%d committed=%d hash=%s vc=%d repairs=%d crashes=%d\n  evidence=%s\n",
			seed, res.Verdict, res.Invariant, res.Ticks, res.Events, res.Committed, res.TraceHash, res.Stats.ViewChanges, res.Stats.Repairs, res.Stats.Crashes, res.Evidence)
		if res.Verdict != VerdictPass {
			for _, l := range res.Tail[len(res.Tail)-15:] {
				fmt.Println("   ", l)
			}
		}
	}
}
