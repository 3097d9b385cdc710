package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// dvcSweep is a sweep whose every seed is a safety finding.
var dvcSweep = []string{"sweep", "--scenario", "stale-dvc-cache", "--bug", "dvc-cache-ignores-journal", "--seeds", "1-6", "--jobs", "1"}

// shardFiles runs dvcSweep as three shards into dir, shard 0 twice as a
// retried pod would, and returns the failures files.
func shardFiles(t *testing.T, dir string) []string {
	t.Helper()
	var files []string
	for i := 0; i < 3; i++ {
		path := filepath.Join(dir, fmt.Sprintf("failures-%d.jsonl", i))
		runs := 1
		if i == 0 {
			runs = 2
		}
		for range runs {
			out := vsrsim(t, append(dvcSweep, "--shard", fmt.Sprintf("%d/3", i), "--failures", path)...)
			require.Equal(t, exitSafety, out.code, out.stderr)
		}
		files = append(files, path)
	}
	return files
}

// TestMergeShardsGivesTheWholeSweep: merging the shards of a real sweep,
// one of them retried, gives byte for byte the failure records of the same
// sweep unsharded, and the summary counts them.
func TestMergeShardsGivesTheWholeSweep(t *testing.T) {
	dir := t.TempDir()
	shardFiles(t, dir)
	whole := vsrsim(t, append(dvcSweep, "-o", "json")...)
	require.Equal(t, exitSafety, whole.code, whole.stderr)
	want, _ := failureLines(t, whole.stdout)
	require.Len(t, want, 6)

	for _, tc := range []struct {
		name string
		args []string
	}{
		{"files", []string{filepath.Join(dir, "failures-2.jsonl"), filepath.Join(dir, "failures-0.jsonl"), filepath.Join(dir, "failures-1.jsonl")}},
		{"directory", []string{dir}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out := vsrsim(t, append([]string{"merge"}, tc.args...)...)
			require.Equal(t, 0, out.code, out.stderr)
			assert.Equal(t, strings.Join(want, "\n")+"\n", out.stdout)
			for _, row := range [][]string{
				{"files", "3"}, {"records read", "8"}, {"duplicates dropped", "2"}, {"conflicts", "0"},
				{"runs kept", "6"}, {"verdict: safety", "6"}, {"invariant: spec/vote_keeps_acks", "6"},
				{"bug switch on: dvc-cache-ignores-journal", "6"},
			} {
				assert.Regexp(t, `│ `+row[0]+` +│ `+row[1]+` +│`, out.stderr)
			}
		})
	}
}

// TestMergeOutAndMarkdown: --out takes the records, stdout stays empty, and
// --summary-md appends a Markdown summary with every finding's replay command.
func TestMergeOutAndMarkdown(t *testing.T) {
	dir := t.TempDir()
	files := shardFiles(t, dir)
	live := filepath.Join(dir, "liveness.jsonl")
	lv := vsrsim(t, "sweep", "--scenario", "hollow-op", "--bug", "narrow-repair-under-commit-lag",
		"--seeds", "1-2", "--jobs", "1", "--failures", live)
	require.Equal(t, exitLiveness, lv.code, lv.stderr)
	md := filepath.Join(dir, "summary.md")
	require.NoError(t, os.WriteFile(md, []byte("earlier step\n"), 0o644))
	merged := filepath.Join(dir, "merged.jsonl")

	out := vsrsim(t, append([]string{"merge", "--out", merged, "--summary-md", md, live}, files...)...)
	require.Equal(t, 0, out.code, out.stderr)
	assert.Empty(t, out.stdout)
	data, err := os.ReadFile(merged)
	require.NoError(t, err)
	assert.Equal(t, 8, strings.Count(string(data), "\n"))
	summary, err := os.ReadFile(md)
	require.NoError(t, err)
	text := string(summary)
	assert.True(t, strings.HasPrefix(text, "earlier step\n## vsrsim sweep findings"), "appended:\n%s", text)
	assert.Contains(t, text, "**8 findings**")
	assert.Contains(t, text, "| safety | 6 |")
	assert.Contains(t, text, "| liveness | 2 |")
	assert.Contains(t, text, "| dvc-cache-ignores-journal | 6 |")
	assert.Contains(t, text, "| narrow-repair-under-commit-lag | 2 |")
	assert.Contains(t, text, "`vsrsim run --seed 4 --scenario stale-dvc-cache --bug dvc-cache-ignores-journal`")

	// The merged file is a replayable findings file.
	replay := vsrsim(t, "replay", merged)
	assert.Equal(t, 0, replay.code, replay.stdout+replay.stderr)
	assert.Contains(t, replay.stdout, "8 cases, 0 drifted")
}

// TestMergeNothingFound: empty failures files, as shards that found nothing
// leave, merge into nothing and say so.
func TestMergeNothingFound(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "failures-0.jsonl")
	pass := vsrsim(t, "sweep", "--count", "3", "--jobs", "1", "--failures", path)
	require.Equal(t, 0, pass.code, pass.stderr)
	md := filepath.Join(dir, "summary.md")
	out := vsrsim(t, "merge", "--summary-md", md, path)
	require.Equal(t, 0, out.code, out.stderr)
	assert.Empty(t, out.stdout)
	assert.Regexp(t, `│ runs kept +│ 0 +│`, out.stderr)
	summary, err := os.ReadFile(md)
	require.NoError(t, err)
	assert.Contains(t, string(summary), "No findings in 1 files.")
}

// TestMergeRejectsBadInput: a malformed line anywhere fails the whole merge
// with exit 65 and one line naming its file and line, before any output.
func TestMergeRejectsBadInput(t *testing.T) {
	dir := t.TempDir()
	files := shardFiles(t, dir)
	good, err := os.ReadFile(files[1])
	require.NoError(t, err)
	lines := strings.SplitAfter(string(good), "\n")
	require.Len(t, lines, 3, "two records and the end")
	truncated := filepath.Join(dir, "truncated.jsonl")
	require.NoError(t, os.WriteFile(truncated, []byte(lines[0]+lines[1][:len(lines[1])/2]), 0o644))
	prose := filepath.Join(dir, "prose.jsonl")
	require.NoError(t, os.WriteFile(prose, []byte("\n\nFAIL seed 3\n"), 0o644))
	empty := filepath.Join(dir, "empty")
	require.NoError(t, os.Mkdir(empty, 0o755))

	for _, tc := range []struct {
		name string
		args []string
		code int
		want string
	}{
		{"truncated last line", []string{files[0], truncated}, exitDataErr, truncated + ":2: not a run record"},
		{"not JSON", []string{prose, files[0]}, exitDataErr, prose + ":3: not a run record"},
		{"missing file", []string{files[0], filepath.Join(dir, "nope.jsonl")}, exitDataErr, "nope.jsonl: no such file"},
		{"directory without records", []string{empty}, exitDataErr, "no .jsonl files"},
		{"no arguments", nil, exitUsage, "requires at least 1 arg"},
		{"unknown flag", []string{"--nope", files[0]}, exitUsage, "unknown flag"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out := vsrsim(t, append([]string{"merge"}, tc.args...)...)
			assert.Equal(t, tc.code, out.code, out.stderr)
			assert.Empty(t, out.stdout)
			assert.Equal(t, 1, strings.Count(out.stderr, "\n"), "one line: %q", out.stderr)
			assert.Contains(t, out.stderr, tc.want)
		})
	}
}

// TestMergeReportsConflicts: the same run with another trace hash in a second
// file is kept once, from the first file, and reported on stderr.
func TestMergeReportsConflicts(t *testing.T) {
	dir := t.TempDir()
	files := shardFiles(t, dir)
	data, err := os.ReadFile(files[1])
	require.NoError(t, err)
	first := strings.SplitAfter(string(data), "\n")[0]
	var rec runJSON
	require.NoError(t, json.Unmarshal([]byte(first), &rec))
	other := filepath.Join(dir, "other-build.jsonl")
	require.NoError(t, os.WriteFile(other, []byte(strings.Replace(first, rec.TraceHash, "00000000000000ff", 1)), 0o644))

	out := vsrsim(t, "merge", files[1], other)
	require.Equal(t, 0, out.code, out.stderr)
	assert.Equal(t, data, []byte(out.stdout), "the first file's records, unchanged")
	assert.Contains(t, out.stderr, fmt.Sprintf("vsrsim: conflict: seed %d: %s:1 gave safety %s, %s:1 gave safety 00000000000000ff (same flags)\n",
		rec.Seed, files[1], rec.TraceHash, other))
	assert.Regexp(t, `│ conflicts +│ 1 +│`, out.stderr)
}

// TestMergeSumsLinearizabilityUnknown: a shard's whole `sweep -o json` output
// merges, its summary line taken as a summary, not a record, and the runs
// whose linearizability check answered unknown are summed over the shards'
// summaries, in the table and in the Markdown.
func TestMergeSumsLinearizabilityUnknown(t *testing.T) {
	dir := t.TempDir()
	whole := vsrsim(t, append(dvcSweep, "--shard", "0/2", "-o", "json")...)
	require.Equal(t, exitSafety, whole.code, whole.stderr)
	records, summary := failureLines(t, whole.stdout)
	require.Equal(t, float64(0), summary["linearizability_unknown"])
	shard0 := filepath.Join(dir, "shard-0.jsonl")
	require.NoError(t, os.WriteFile(shard0, []byte(whole.stdout), 0o644))
	// Another shard's output, its summary counting 3 unknown, then 2 more in
	// a third file: a record after a summary keeps its line number.
	shard1 := filepath.Join(dir, "shard-1.jsonl")
	require.NoError(t, os.WriteFile(shard1, []byte(`{"summary":true,"runs":3,"linearizability_unknown":3}`+"\n"), 0o644))
	shard2 := filepath.Join(dir, "shard-2.jsonl")
	require.NoError(t, os.WriteFile(shard2, []byte(`{"summary":true,"runs":3,"linearizability_unknown":2}`+"\nFAIL seed 3\n"), 0o644))

	md := filepath.Join(dir, "summary.md")
	out := vsrsim(t, "merge", "--summary-md", md, shard0, shard1)
	require.Equal(t, 0, out.code, out.stderr)
	assert.Equal(t, strings.Join(records, "\n")+"\n", out.stdout, "the records, not the summary")
	for _, row := range [][]string{
		{"records read", fmt.Sprint(len(records))}, {"sweep summaries", "2"}, {"linearizability unknown", "3"},
	} {
		assert.Regexp(t, `│ `+row[0]+` +│ `+row[1]+` +│`, out.stderr)
	}
	text, err := os.ReadFile(md)
	require.NoError(t, err)
	assert.Contains(t, string(text), "Linearizability unknown (step budget spent) in 3 runs, by 2 sweep summaries.")

	bad := vsrsim(t, "merge", shard1, shard2)
	assert.Equal(t, exitDataErr, bad.code)
	assert.Contains(t, bad.stderr, shard2+":2: not a run record")

	require.NoError(t, os.WriteFile(shard2, []byte(`{"summary":true,"runs":3,"linearizability_unknown":2}`+"\n"), 0o644))
	out = vsrsim(t, "merge", shard1, shard2)
	require.Equal(t, 0, out.code, out.stderr)
	assert.Regexp(t, `│ linearizability unknown +│ 5 +│`, out.stderr)
}
