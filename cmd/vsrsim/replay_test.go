package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func writeFile(t *testing.T, name, text string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), name)
	require.NoError(t, os.WriteFile(path, []byte(text), 0o644))
	return path
}

// TestCorpus replays the regression corpus: every case must still give its
// pinned verdict and trace hash.
func TestCorpus(t *testing.T) {
	files, err := filepath.Glob("../../seeds/*.txt")
	require.NoError(t, err)
	require.NotEmpty(t, files)
	for _, f := range files {
		t.Run(filepath.Base(f), func(t *testing.T) {
			t.Parallel()
			out := vsrsim(t, "replay", f)
			assert.Equal(t, 0, out.code, "drift (run `make seeds-update` if the change meant to move hashes):\n%s%s", out.stdout, out.stderr)
			assert.Contains(t, out.stdout, " 0 drifted")
		})
	}
}

// TestReplayBadFiles: corrupt, empty, unreadable or unknown-name input exits
// 65 with one line naming the file (and line).
func TestReplayBadFiles(t *testing.T) {
	for _, tc := range []struct {
		name, text, want string
	}{
		{"empty", "", "no cases"},
		{"comments only", "# nothing\n", "no cases"},
		{"garbage", "hello world\n", ":1: want SCENARIO"},
		{"corrupt json", "{\"seed\": 1, \"verd\n", ":1: not a run record"},
		{"unknown scenario", "nope 1 - pass 0123456789abcdef\n", ":1: --scenario: unknown scenario"},
		{"unknown bug", "- 1 nope pass 0123456789abcdef\n", ":1: --bug"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := writeFile(t, "c.txt", tc.text)
			out := vsrsim(t, "replay", path)
			assert.Equal(t, exitDataErr, out.code, out.stderr)
			assert.Contains(t, out.stderr, path)
			assert.Contains(t, out.stderr, tc.want)
			assert.Equal(t, 1, strings.Count(out.stderr, "\n"), out.stderr)
		})
	}
	out := vsrsim(t, "replay", filepath.Join(t.TempDir(), "missing.txt"))
	assert.Equal(t, exitDataErr, out.code)
	assert.Contains(t, out.stderr, "missing.txt")
	assert.Equal(t, exitUsage, vsrsim(t, "replay").code, "FILE is required")
}

// TestReplayDrift: a case whose pinned hash no longer matches is reported as
// DRIFT with both hashes, and the exit code is 1.
func TestReplayDrift(t *testing.T) {
	_, rec := runJSONOf(t, 0, "run", "--seed", "5")
	good := "- 5 - " + string(rec.Verdict) + " " + rec.TraceHash + "\n"
	out := vsrsim(t, "replay", writeFile(t, "good.txt", good))
	assert.Equal(t, 0, out.code, out.stdout+out.stderr)
	assert.Contains(t, out.stdout, "ok ")

	bad := "- 5 - " + string(rec.Verdict) + " 0123456789abcdef\n"
	out = vsrsim(t, "replay", writeFile(t, "bad.txt", bad))
	assert.Equal(t, exitDrift, out.code)
	assert.Contains(t, out.stdout, "DRIFT")
	assert.Contains(t, out.stdout, "0123456789abcdef -> "+rec.TraceHash)

	path := writeFile(t, "update.txt", "# keep me\n"+bad)
	out = vsrsim(t, "replay", "--update", path)
	require.Equal(t, 0, out.code, out.stderr)
	data, err := os.ReadFile(path)
	require.NoError(t, err)
	assert.Equal(t, "# keep me\n"+good, string(data), "--update rewrites the hash and keeps comments")
}

// TestReplayRunRecord: a `run -o json` record replays, through its replay
// command, to the same verdict and hash; --pin turns it into a corpus line;
// --trace writes the trace of the one case.
func TestReplayRunRecord(t *testing.T) {
	out := vsrsim(t, "run", "--seed", "2", "--scenario", "vc-straggler", "--bug", "escalate-without-hold",
		"--extra-delay", "2:*=600", "-o", "json")
	require.Equal(t, exitSafety, out.code, out.stderr) // spec/escalate_holds (D52)
	path := writeFile(t, "failures.jsonl", out.stdout+out.stdout)

	got := vsrsim(t, "replay", path)
	assert.Equal(t, 0, got.code, got.stdout+got.stderr)
	assert.Contains(t, got.stdout, "2 cases, 0 drifted")

	pin := vsrsim(t, "replay", "--pin", "--line", "1", path)
	require.Equal(t, 0, pin.code, pin.stderr)
	assert.Regexp(t, `^vc-straggler 2 escalate-without-hold safety [0-9a-f]{16} extra-delay=2:\*=600\n$`, pin.stdout)

	trace := filepath.Join(t.TempDir(), "t.ndjson")
	assert.Equal(t, exitUsage, vsrsim(t, "replay", "--trace", trace, path).code, "two cases, no --line")
	tr := vsrsim(t, "replay", "--trace", trace, "--line", "2", path)
	require.Equal(t, 0, tr.code, tr.stderr)
	data, err := os.ReadFile(trace)
	require.NoError(t, err)
	assert.Contains(t, string(data), `"kind":"note"`)
}

// TestReplayPinsEveryRecord: the corpus line --pin writes replays to the
// record's verdict and hash, for a swarm seed drawn without its focus slice
// (the one flag with no value) and for a scenario file's run, whose
// "file:NAME" scenario is no named scenario the line could name.
func TestReplayPinsEveryRecord(t *testing.T) {
	// Absolute: a corpus line's relative path is read from the corpus's
	// own directory.
	scenarioFile, err := filepath.Abs(filepath.Join("..", "..", "scenarios", "testdata", "behaviour", "lossy-network.vsr"))
	require.NoError(t, err)
	cases := []struct {
		name string
		args []string
		line string // the pinned line's pattern
	}{
		{"no foci", []string{"--seed", "7", "--no-foci"}, `^- 7 - pass [0-9a-f]{16} no-foci=true\n$`},
		{"scenario file", []string{"--seed", "3", "--scenario-file", scenarioFile}, `^- 3 - \w+ [0-9a-f]{16} scenario-file=\S+\n$`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			out := vsrsim(t, append([]string{"run", "-o", "json"}, tc.args...)...)
			require.Contains(t, []int{0, exitLiveness, exitSafety}, out.code, out.stderr)
			pin := vsrsim(t, "replay", "--pin", writeFile(t, "f.jsonl", out.stdout))
			require.Equal(t, 0, pin.code, pin.stderr)
			assert.Regexp(t, tc.line, pin.stdout)
			got := vsrsim(t, "replay", writeFile(t, "c.txt", pin.stdout))
			assert.Equal(t, 0, got.code, got.stdout+got.stderr)
			assert.Contains(t, got.stdout, "1 cases, 0 drifted")
		})
	}
}

// TestNoFociDrawsTheUnfocusedSwarm: --no-foci changes only the seeds a focus
// slice owns, and goes with no scenario.
func TestNoFociDrawsTheUnfocusedSwarm(t *testing.T) {
	hash := func(args ...string) string {
		out := vsrsim(t, append([]string{"run", "-o", "json"}, args...)...)
		require.Equal(t, 0, out.code, out.stderr)
		var rec struct {
			TraceHash string `json:"trace_hash"`
		}
		require.NoError(t, json.Unmarshal([]byte(out.stdout), &rec))
		return rec.TraceHash
	}
	// Seed 1 falls in no focus slice; seed 8 in one (swarm.SeedFocus).
	assert.Equal(t, hash("--seed", "1"), hash("--seed", "1", "--no-foci"))
	assert.NotEqual(t, hash("--seed", "8"), hash("--seed", "8", "--no-foci"))
	bad := vsrsim(t, "run", "--seed", "1", "--no-foci", "--scenario", "hollow-op")
	assert.Equal(t, exitUsage, bad.code)
	assert.Contains(t, bad.stderr, "--no-foci")
}
