package main

import (
	"path/filepath"
	"strconv"
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
	assert.Equal(t, "vsrsim: "+bad+`:3: unknown action "crsh" (want crash, restart, partition, heal, cut, uncut, drop, pass, hold, release, extra-delay, network, note, corrupt or misdirect)`+"\n", out.stderr)

	// Settings too: a malformed or misfitting one names its line, exit 65.
	for text, want := range map[string]string{
		"replicas x\n":               `:1: replicas "x" is not a number`,
		"# c\nreplicas 99\n":         ":2: replicas: must be 1..9, got 99",
		"replicas 3\ncore 5\n":       ":2: core: no replica 5 in a cluster of 3",
		"loss 1/2\nnetwork loss 0\n": ":2: loss is set twice (first on line 1)",
	} {
		bad := writeFile(t, "bad-setting.vsr", text)
		out := vsrsim(t, "run", "--seed", "1", "--scenario-file", bad)
		assert.Equal(t, exitDataErr, out.code, text)
		assert.Equal(t, "vsrsim: "+bad+want+"\n", out.stderr, text)
	}

	out = vsrsim(t, "run", "--seed", "1", "--scenario-file", filepath.Join(t.TempDir(), "none.vsr"))
	assert.Equal(t, exitDataErr, out.code)
	assert.Equal(t, 1, strings.Count(out.stderr, "\n"))

	out = vsrsim(t, "run", "--seed", "1", "--scenario-file", example, "--scenario", "hollow-op")
	assert.Equal(t, exitUsage, out.code, out.stderr)

	sw := vsrsim(t, "sweep", "--seeds", "1-3", "--scenario-file", example)
	require.Equal(t, 0, sw.code, sw.stderr)
}

// TestRecordedSeed: a recording carries its seed, and the file run alone
// reproduces the run's verdict and, as every recorded swarm seed does today
// (scenarios.TestRecordReplaysVerdict), its trace hash; --seed overrides the
// file's, and a sweep of the file starts from it.
func TestRecordedSeed(t *testing.T) {
	for _, tc := range []struct {
		seed string
		code int
		bugs []string
	}{
		{"5", exitPass, nil},
		{"0x2b", exitSafety, []string{"--bug", "transfer-rewinds-sequencer"}}, // the model: an unreadable vote
	} {
		path := filepath.Join(t.TempDir(), "rec.vsr")
		_, orig := runJSONOf(t, tc.code, append([]string{"run", "--seed", tc.seed, "--record", path}, tc.bugs...)...)
		_, again := runJSONOf(t, tc.code, append([]string{"run", "--scenario-file", path}, tc.bugs...)...)
		assert.Equal(t, orig.Seed, again.Seed, tc.seed)
		assert.Equal(t, orig.Verdict, again.Verdict, tc.seed)
		assert.Equal(t, orig.TraceHash, again.TraceHash, tc.seed)
		assert.Contains(t, again.Replay, "--seed "+strconv.FormatUint(orig.Seed, 10), "the replay names the seed it took")
	}
	path := filepath.Join(t.TempDir(), "rec.vsr")
	runJSONOf(t, exitPass, "run", "--seed", "5", "--record", path)
	_, other := runJSONOf(t, exitPass, "run", "--seed", "6", "--scenario-file", path)
	assert.Equal(t, uint64(6), other.Seed, "--seed overrides the file's")
	sw := vsrsim(t, "sweep", "--count", "2", "--all", "--scenario-file", path, "-o", "json")
	require.Equal(t, 0, sw.code, sw.stderr)
	assert.Contains(t, sw.stdout, `"seed":5,`)
	assert.Contains(t, sw.stdout, `"seed":6,`)

	noSeed := filepath.Join("..", "..", "scenarios", "testdata", "partition-heal.vsr")
	out := vsrsim(t, "run", "--scenario-file", noSeed)
	assert.Equal(t, exitUsage, out.code)
	assert.Contains(t, out.stderr, "has no seed line")
}
