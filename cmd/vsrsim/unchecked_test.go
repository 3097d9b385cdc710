package main

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestUncheckedLivenessExitsUnlessAskedFor: a pass that judged no liveness
// exits 5 (table and JSON alike) unless its file says `liveness off`, which
// the JSON reports; `liveness off` beside a liveness budget is refused (issue
// 35 point 7, D50).
func TestUncheckedLivenessExitsUnlessAskedFor(t *testing.T) {
	for _, text := range []string{"replicas 3\nliveness-ticks 0\n", "replicas 3\nliveness-ticks 100\n"} {
		file := writeFile(t, "unasked.vsr", text)
		out := vsrsim(t, "run", "--seed", "1", "--scenario-file", file)
		assert.Equal(t, exitUnchecked, out.code, "%s%s", text, out.stderr)
		assert.Contains(t, out.stdout, "not asked for: exit 5")
		raw, rec := runJSONOf(t, exitUnchecked, "run", "--seed", "1", "--scenario-file", file)
		assert.Equal(t, "pass", string(rec.Verdict))
		assert.Equal(t, "unchecked", rec.Liveness)
		assert.Equal(t, false, raw["liveness_off"])
		assert.Equal(t, float64(exitUnchecked), raw["exit_code"])
	}

	asked := writeFile(t, "asked.vsr", "replicas 3\nliveness off\n")
	raw, rec := runJSONOf(t, exitPass, "run", "--seed", "1", "--scenario-file", asked)
	assert.Equal(t, "unchecked", rec.Liveness)
	assert.Equal(t, true, raw["liveness_off"])
	assert.Equal(t, float64(exitPass), raw["exit_code"])
	out := vsrsim(t, "run", "--seed", "1", "--scenario-file", asked)
	require.Equal(t, exitPass, out.code, out.stderr)
	assert.Contains(t, out.stdout, "liveness off")

	// A checked pass and a failure exit as before, whatever the setting.
	checked := writeFile(t, "checked.vsr", "replicas 3\n")
	_, rec = runJSONOf(t, exitPass, "run", "--seed", "1", "--scenario-file", checked)
	assert.Equal(t, "checked", rec.Liveness)

	for text, want := range map[string]string{
		"liveness off\nliveness-ticks 5\n": ":1: liveness: off: the liveness phase is skipped, but liveness-ticks gives it 5 ticks",
		"liveness off keep-faults\n":       `:1: liveness "off keep-faults": off stands alone`,
		"ticks 0\nliveness off\n":          ":1: ticks: a run needs ticks",
	} {
		bad := writeFile(t, "bad-liveness.vsr", text)
		out := vsrsim(t, "run", "--seed", "1", "--scenario-file", bad)
		assert.Equal(t, exitDataErr, out.code, text)
		assert.Contains(t, out.stderr, want, text)
	}
}
