package scenarios_test

import (
	"os"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"vsrsim/scenarios"
	"vsrsim/sim"
	"vsrsim/verify"
)

// TestLateStartViewBelowAckPasses: the shrunk run in which an amnesiac
// replica adopted an old StartView of the view it had acked op 104 in, and a
// view change could then not place committed op 104, passes: the replica
// refuses that StartView and waits for a current one.
func TestLateStartViewBelowAckPasses(t *testing.T) {
	path := "testdata/late-start-view-below-ack.vsr"
	file, err := os.Open(path)
	require.NoError(t, err)
	defer file.Close()
	f, err := scenarios.ParseFile(path, file)
	require.NoError(t, err)
	cfg := sim.DefaultConfig(15969)
	require.NoError(t, f.Apply(&cfg))
	res, err := verify.Run(cfg, nil)
	require.NoError(t, err)
	assert.Equal(t, sim.VerdictPass, res.Verdict, "%s", res.Evidence)
}
