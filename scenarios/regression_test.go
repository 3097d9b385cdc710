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

// TestShrunkRegressionPasses: shrunk scenario files that once failed with no
// bug switch on pass on the seeds they failed on.
func TestShrunkRegressionPasses(t *testing.T) {
	for _, tc := range []struct {
		why   string
		path  string
		seeds []uint64
	}{
		{
			"a lagging WAL replica refused every transfer offer under the source's stale guard",
			"../shrink/testdata/no-bug-liveness.vsr", []uint64{1340, 1345, 1350, 1351},
		},
		{
			// An amnesiac replica adopted an old StartView of the view it
			// had acked op 104 in, and a view change could then not place
			// committed op 104: it now refuses that StartView (below-ack).
			"a late StartView below an amnesiac replica's acks",
			"testdata/late-start-view-below-ack.vsr", []uint64{15969},
		},
	} {
		t.Run(tc.why, func(t *testing.T) {
			data, err := os.ReadFile(tc.path)
			require.NoError(t, err)
			f, err := scenarios.ParseFile(tc.path, strings.NewReader(string(data)))
			require.NoError(t, err)
			for _, seed := range tc.seeds {
				cfg := sim.DefaultConfig(seed)
				script, err := f.Apply(&cfg)
				require.NoError(t, err)
				res, err := verify.Run(cfg, sim.Attach{Script: script})
				require.NoError(t, err)
				assert.Equal(t, sim.VerdictPass, res.Verdict, "seed %d: %s", seed, res.Evidence)
			}
		})
	}
}
