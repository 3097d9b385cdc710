package scenarios_test

import (
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"vsrsim/marks"
	"vsrsim/scenarios"
	"vsrsim/sim"
)

// TestScrubberSavesADecayedCopy (D72): on media that decay with time
// (testdata/excuses/scrub-rot.vsr), seed 33 ends unrecoverable without the
// scrubber (the restarted r1 and r2 both lost a committed op's two copies to
// decay) and passes with it (a decayed copy mended from the other before the
// second decayed).
func TestScrubberSavesADecayedCopy(t *testing.T) {
	data, err := os.ReadFile("testdata/excuses/scrub-rot.vsr")
	require.NoError(t, err)
	run := func(scrubOff bool) sim.Result {
		text := string(data)
		if scrubOff {
			text += "storage scrub off\n"
		}
		f, err := scenarios.ParseFile("scrub-rot.vsr", strings.NewReader(text))
		require.NoError(t, err)
		cfg := sim.DefaultConfig(33)
		script, err := f.Apply(&cfg)
		require.NoError(t, err)
		res, err := sim.Run(cfg, sim.Attach{Script: script})
		require.NoError(t, err)
		return res
	}
	off := run(true)
	assert.Equal(t, sim.VerdictUnrecoverable, off.Verdict, "%s %s", off.Invariant, off.Evidence)
	on := run(false)
	assert.Equal(t, sim.VerdictPass, on.Verdict, "%s %s", on.Invariant, on.Evidence)
	assert.True(t, on.Marks.Reached(marks.StorageScrubRewritten), "the scrubber mended a decayed copy")
}
