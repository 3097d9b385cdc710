package sim

import (
	"os"
	"strconv"
	"testing"
)

func TestDebugSeed(t *testing.T) {
	seed, _ := strconv.ParseUint(os.Getenv("SEED"), 10, 64)
	f, _ := os.Create("/tmp/trace.ndjson")
	defer f.Close()
	cfg := DefaultConfig(seed)
	res, _ := Run(cfg, f)
	t.Logf("%s %s %s", res.Verdict, res.Invariant, res.Evidence)
}
