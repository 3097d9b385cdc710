package sim

import (
	"fmt"
	"os"
	"strconv"
	"testing"

	"vsrsim/replica"
)

func TestSmokeSeeds(t *testing.T) {
	n, _ := strconv.Atoi(os.Getenv("SMOKE_N"))
	reps, _ := strconv.Atoi(os.Getenv("SMOKE_R"))
	if n == 0 {
		t.Skip()
	}
	counts := map[Verdict]int{}
	var committed uint64
	for seed := uint64(1); seed <= uint64(n); seed++ {
		cfg := DefaultConfig(seed)
		if os.Getenv("SMOKE_SWARM") != "" {
			cfg = SwarmConfig(seed)
		}
		if reps > 0 {
			cfg.Replicas = reps
		}
		if os.Getenv("SMOKE_MEM") != "" {
			cfg.Durability = replica.DurabilityMemory
		}
		if os.Getenv("SMOKE_SLOTS") != "" {
			cfg.JournalSlots, _ = strconv.Atoi(os.Getenv("SMOKE_SLOTS"))
		}
		res, err := Run(cfg, nil)
		if err != nil {
			t.Fatal(err)
		}
		counts[res.Verdict]++
		committed += res.Committed
		if res.Verdict != VerdictPass {
			fmt.Printf("seed=%d verdict=%s inv=%s ticks=%d committed=%d\n  evidence=%s\n", seed, res.Verdict, res.Invariant, res.Ticks, res.Committed, res.Evidence)
		}
	}
	fmt.Println(counts, "avg committed", committed/uint64(n))
}
