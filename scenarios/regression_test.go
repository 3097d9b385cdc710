package scenarios_test

import (
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"vsrsim/scenarios"
	"vsrsim/sim"
	"vsrsim/verify"
)

// TestShrunkRegressionPasses: a shrunk scenario file that once failed with no
// bug switch on (a lagging WAL replica refusing every transfer offer under the
// source's stale guard) passes on the seeds it failed on.
func TestShrunkRegressionPasses(t *testing.T) {
	path := "../shrink/testdata/no-bug-liveness.vsr"
	data, err := os.ReadFile(path)
	require.NoError(t, err)
	f, err := scenarios.ParseFile(path, strings.NewReader(string(data)))
	require.NoError(t, err)
	for _, seed := range []uint64{1340, 1345, 1350, 1351} {
		cfg := sim.DefaultConfig(seed)
		require.NoError(t, f.Apply(&cfg))
		res, err := verify.Run(cfg, nil)
		require.NoError(t, err)
		assert.Equal(t, sim.VerdictPass, res.Verdict, "seed %d: %s", seed, res.Evidence)
	}
}
