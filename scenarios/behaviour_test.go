package scenarios_test

import (
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"vsrsim/scenarios"
	"vsrsim/sim"
	"vsrsim/verify"
)

// behaviourSeeds is how many seeds each behaviour runs: 5 under `make test`,
// 50 under `make behaviours`.
var behaviourSeeds = flag.Uint64("behaviour-seeds", 5, "seeds 1..N for each file of testdata/behaviour")

// knownFailures are behaviours the replica gets wrong today, with the reason.
// Each must still fail for at least one seed of the range run: when the
// replica is fixed the test says so, and the entry goes.
var knownFailures = map[string]string{}

// TestBehaviours runs every behaviour file for seeds 1..N: each gives its
// expected verdict, and so meets every expectation it states.
func TestBehaviours(t *testing.T) {
	paths, err := filepath.Glob("testdata/behaviour/*.vsr")
	require.NoError(t, err)
	require.GreaterOrEqual(t, len(paths), 30, "the suite ships at least 30 behaviours")
	for name := range knownFailures {
		assert.FileExists(t, filepath.Join("testdata", "behaviour", name), "a known failure names a shipped file")
	}
	for _, path := range paths {
		name := filepath.Base(path)
		t.Run(strings.TrimSuffix(name, ".vsr"), func(t *testing.T) {
			data, err := os.ReadFile(path)
			require.NoError(t, err)
			f, err := scenarios.ParseFile(path, strings.NewReader(string(data)))
			require.NoError(t, err)
			require.Equal(t, sim.VerdictPass, f.Expect, "a behaviour expects pass; its expect lines say what it proves")
			require.Contains(t, string(data), "expect served", "a behaviour proves it served")
			var failed []string
			for seed := uint64(1); seed <= *behaviourSeeds; seed++ {
				cfg := sim.DefaultConfig(seed)
				script, err := f.Apply(&cfg)
				require.NoError(t, err)
				res, err := verify.Run(cfg, sim.Attach{Script: script})
				require.NoError(t, err)
				if res.Verdict != f.Expect {
					failed = append(failed, res.Evidence)
					if _, known := knownFailures[name]; !known {
						t.Errorf("seed %d: %s: %s", seed, res.Verdict, res.Evidence)
					}
				}
			}
			if why, known := knownFailures[name]; known {
				assert.NotEmpty(t, failed, "%s is listed as a known failure (%s) but passed seeds 1..%d: take it off the list", name, why, *behaviourSeeds)
				if len(failed) > 0 {
					t.Logf("known failure (%s), %d of %d seeds: %s", why, len(failed), *behaviourSeeds, failed[0])
				}
			}
		})
	}
}
