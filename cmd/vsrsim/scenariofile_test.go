package main

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestScenarioFile: a file runs to its verdict and its replay names it; a
// malformed or missing one exits 65 with FILE:LINE: problem; it does not go
// with --scenario.
func TestScenarioFile(t *testing.T) {
	example := filepath.Join("..", "..", "scenarios", "testdata", "partition-heal.vsr")
	_, rec := runJSONOf(t, 0, "run", "--seed", "3", "--scenario-file", example)
	assert.Equal(t, "file:partition-heal", rec.Scenario)
	assert.Contains(t, rec.Replay, "--scenario-file "+example)

	bad := writeFile(t, "bad.vsr", "replicas 3\n\nat 300 crsh 1\n")
	out := vsrsim(t, "run", "--seed", "1", "--scenario-file", bad)
	assert.Equal(t, exitDataErr, out.code)
	assert.Equal(t, "vsrsim: "+bad+`:3: unknown action "crsh" (want crash, restart, partition, heal, extra-delay or note)`+"\n", out.stderr)

	out = vsrsim(t, "run", "--seed", "1", "--scenario-file", filepath.Join(t.TempDir(), "none.vsr"))
	assert.Equal(t, exitDataErr, out.code)
	assert.Equal(t, 1, strings.Count(out.stderr, "\n"))

	out = vsrsim(t, "run", "--seed", "1", "--scenario-file", example, "--scenario", "hollow-op")
	assert.Equal(t, exitUsage, out.code, out.stderr)

	sw := vsrsim(t, "sweep", "--seeds", "1-3", "--scenario-file", example)
	require.Equal(t, 0, sw.code, sw.stderr)
}
