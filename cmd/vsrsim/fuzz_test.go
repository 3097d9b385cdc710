package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The failures file, the saved inputs and the summary are the same with one
// job or two, and every finding replays from its record, shrinks included.
func TestFuzzJobsAgreeAndFindingsReplay(t *testing.T) {
	// Search seed 4: with the protocol model on (D52) the search from seed 1
	// fails only fresh swarm inputs within 96 runs, and this test needs a
	// failing mutated one.
	args := []string{"fuzz", "--budget", "96", "--seed", "4", "--bug", "narrow-repair-under-commit-lag"}
	var outs []cliResult
	var dirs []string
	for _, jobs := range []string{"1", "2"} {
		dir := t.TempDir()
		failures := filepath.Join(dir, "f.jsonl")
		out := vsrsim(t, append(args, "--jobs", jobs, "--failures", failures, "--corpus", filepath.Join(dir, "corpus"))...)
		require.Equal(t, exitSafety, out.code, "stderr: %s", out.stderr)
		outs, dirs = append(outs, out), append(dirs, dir)
	}
	// The records name their saved files by path, which differs by
	// directory only.
	same := func(i int, s string) string { return strings.ReplaceAll(s, dirs[i], "DIR") }
	assert.Equal(t, same(0, outs[0].stdout), same(1, outs[1].stdout))
	a, err := os.ReadFile(filepath.Join(dirs[0], "f.jsonl"))
	require.NoError(t, err)
	b, err := os.ReadFile(filepath.Join(dirs[1], "f.jsonl"))
	require.NoError(t, err)
	assert.Equal(t, same(0, string(a)), same(1, string(b)))
	saved, err := filepath.Glob(filepath.Join(dirs[0], "fuzz-*.vsr"))
	require.NoError(t, err)
	require.NotEmpty(t, saved, "no failing mutated input was saved")
	rep := vsrsim(t, "replay", filepath.Join(dirs[0], "f.jsonl"))
	require.Equal(t, exitPass, rep.code, "%s%s", rep.stdout, rep.stderr)
	assert.Contains(t, rep.stdout, "0 drifted")
	sh := vsrsim(t, "shrink", filepath.Join(dirs[0], "f.jsonl"), "--line", "1", "--max-runs", "200", "-o", filepath.Join(dirs[0], "small.vsr"))
	require.Equal(t, exitPass, sh.code, sh.stderr)

	// The corpus resumes: its inputs run first, and the search goes on.
	corpus, err := filepath.Glob(filepath.Join(dirs[0], "corpus", "*.vsr"))
	require.NoError(t, err)
	require.NotEmpty(t, corpus)
	res := vsrsim(t, "fuzz", "--budget", "8", "--jobs", "2", "--corpus", filepath.Join(dirs[0], "corpus"))
	assert.Contains(t, []int{exitPass, exitLiveness, exitSafety, exitCrash}, res.code, res.stderr)
}

func TestFuzzBadInputs(t *testing.T) {
	bad := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(bad, "x.vsr"), []byte("replicas 3\nat 10 crsh 0\n"), 0o644))
	for _, tt := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"fuzz", "--budget", "0"}, exitUsage, "--budget 0"},
		{[]string{"fuzz", "--jobs", "0"}, exitUsage, "--jobs 0"},
		{[]string{"fuzz", "--seed", "x"}, exitUsage, "--seed"},
		{[]string{"fuzz", "--bug", "nope"}, exitUsage, "--bug"},
		{[]string{"fuzz", "--budget", "1", "--corpus", bad}, exitDataErr, "x.vsr"},
	} {
		out := vsrsim(t, tt.args...)
		assert.Equal(t, tt.code, out.code, "%v: %s", tt.args, out.stderr)
		assertOneErrorLine(t, out.stderr, tt.want)
	}
}
