package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestRecordReplays: a recorded failing seed, run from its file under the
// seed, fails with the verdict and invariant the seed gave.
func TestRecordReplays(t *testing.T) {
	path := filepath.Join(t.TempDir(), "rec.vsr")
	bug := []string{"--bug", "narrow-repair-under-commit-lag"}
	_, orig := runJSONOf(t, exitLiveness, append([]string{"run", "--seed", "131", "--record", path}, bug...)...)
	data, err := os.ReadFile(path)
	require.NoError(t, err)
	assert.Contains(t, string(data), "# replay: vsrsim run --seed 131 --bug narrow-repair-under-commit-lag --scenario-file "+path)
	assert.Contains(t, string(data), "\nat 38 crash 1\n", "the injector's first crash, at its tick")
	_, again := runJSONOf(t, exitLiveness, append([]string{"run", "--seed", "131", "--scenario-file", path}, bug...)...)
	assert.Equal(t, orig.Invariant, again.Invariant)

	out := vsrsim(t, "run", "--seed", "5", "--scenario", "hollow-op", "--record", path)
	assert.Equal(t, exitUsage, out.code, "a scripted run is not recorded")
	out = vsrsim(t, "run", "--seed", "5", "--record", "-")
	assert.Equal(t, exitUsage, out.code, "stdout carries the report")
}

// TestShrinkDeterministic: the same source gives the same file byte for
// byte with one job or two, and the file fails as its header says.
func TestShrinkDeterministic(t *testing.T) {
	dir1, dir2 := t.TempDir(), t.TempDir()
	args := func(dir, jobs string) []string {
		return []string{"shrink", "--seed", "131", "--bug", "narrow-repair-under-commit-lag",
			"--max-runs", "60", "--jobs", jobs, "-o", filepath.Join(dir, "small.vsr")}
	}
	one := vsrsim(t, args(dir1, "1")...)
	require.Equal(t, 0, one.code, one.stderr)
	two := vsrsim(t, args(dir2, "2")...)
	require.Equal(t, 0, two.code, two.stderr)
	a, err := os.ReadFile(filepath.Join(dir1, "small.vsr"))
	require.NoError(t, err)
	b, err := os.ReadFile(filepath.Join(dir2, "small.vsr"))
	require.NoError(t, err)
	assert.Equal(t, string(a), strings.ReplaceAll(string(b), dir2, dir1))
	assert.Equal(t, one.stderr, two.stderr, "progress and summary too")
	// Seed 131's recording holds its crashes and restarts, its aimed cuts
	// and their notes, holds and extra delays.
	assert.Contains(t, one.stderr, "85 actions, 8146 ticks, 3 replicas, 10 clients -> ")

	var replay string
	for _, line := range strings.Split(string(a), "\n") {
		if r, ok := strings.CutPrefix(line, "# replay: "); ok {
			replay = r
		}
	}
	require.NotEmpty(t, replay)
	_, res := runJSONOf(t, exitLiveness, shellWords(t, replay)[1:]...)
	assert.Equal(t, "liveness", res.Invariant)

	// The file carries the seed it fails under: run and shrink take it.
	small := filepath.Join(dir1, "small.vsr")
	assert.Contains(t, string(a), fmt.Sprintf("\nseed %d\n", res.Seed))
	_, alone := runJSONOf(t, exitLiveness, "run", "--scenario-file", small, "--bug", "narrow-repair-under-commit-lag")
	assert.Equal(t, res.Seed, alone.Seed)
	assert.Equal(t, res.TraceHash, alone.TraceHash)
	again := vsrsim(t, "shrink", "--scenario-file", small, "--bug", "narrow-repair-under-commit-lag", "--max-runs", "5",
		"-o", filepath.Join(dir1, "again.vsr"))
	require.Equal(t, 0, again.code, again.stderr)
}

// TestShrinkRefuses: a passing seed, a named scenario and missing inputs are
// usage errors, each one line.
func TestShrinkRefuses(t *testing.T) {
	o := filepath.Join(t.TempDir(), "o.vsr")
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--seed", "1"}, "vsrsim: seed 1 passes (verdict pass): nothing to shrink"},
		{[]string{"--seed", "1", "--scenario", "hollow-op"}, "vsrsim: --scenario: a named scenario is a Go script"},
		{[]string{}, "vsrsim: give --seed SEED or FAILURES.jsonl --line K"},
		{[]string{"--seed", "5", "--max-runs", "0"}, "vsrsim: --max-runs, --jobs"},
	} {
		out := vsrsim(t, append(append([]string{"shrink"}, tc.args...), "-o", o)...)
		assert.Equal(t, exitUsage, out.code, tc.args)
		assertOneErrorLine(t, out.stderr, tc.want)
	}
	_, err := os.Stat(o)
	assert.True(t, os.IsNotExist(err), "no file for a refused shrink")
}

// TestShrinkFailuresLine: a sweep's failure line names the run to shrink.
func TestShrinkFailuresLine(t *testing.T) {
	dir := t.TempDir()
	failures := filepath.Join(dir, "f.jsonl")
	sw := vsrsim(t, "sweep", "--seeds", "131-131", "--bug", "narrow-repair-under-commit-lag", "--failures", failures)
	require.NotEqual(t, 0, sw.code)
	out := vsrsim(t, "shrink", failures, "--line", "1", "--max-runs", "20", "-o", filepath.Join(dir, "s.vsr"))
	require.Equal(t, 0, out.code, out.stderr)
	data, err := os.ReadFile(filepath.Join(dir, "s.vsr"))
	require.NoError(t, err)
	assert.Contains(t, string(data), "# source seed: 131, bugs: narrow-repair-under-commit-lag\n")

	out = vsrsim(t, "shrink", failures, "--line", "9", "-o", filepath.Join(dir, "s.vsr"))
	assert.Equal(t, exitUsage, out.code)
}
