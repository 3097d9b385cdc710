package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"vsrsim/sweep"
)

// failureLines splits sweep -o json output into the failure records and the
// summary object.
func failureLines(t *testing.T, stdout string) ([]string, map[string]any) {
	t.Helper()
	lines := strings.Split(strings.TrimSuffix(stdout, "\n"), "\n")
	require.NotEmpty(t, lines)
	var summary map[string]any
	require.NoError(t, json.Unmarshal([]byte(lines[len(lines)-1]), &summary))
	require.Equal(t, true, summary["summary"], "the last line is the summary")
	return lines[:len(lines)-1], summary
}

// TestSweepJobsAgree: --jobs 1 and --jobs 2 print the same failure records for
// the same seeds, in seed order.
func TestSweepJobsAgree(t *testing.T) {
	args := []string{"sweep", "--scenario", "stale-dvc-cache", "--bug", "dvc-cache-ignores-journal", "--seeds", "1-6", "-o", "json"}
	one := vsrsim(t, append(args, "--jobs", "1")...)
	two := vsrsim(t, append(args, "--jobs", "2")...)
	require.Equal(t, exitSafety, one.code, one.stderr)
	require.Equal(t, exitSafety, two.code, two.stderr)
	f1, s1 := failureLines(t, one.stdout)
	f2, s2 := failureLines(t, two.stdout)
	require.Len(t, f1, 6)
	assert.Equal(t, f1, f2, "byte-identical failure records")
	for i, line := range f1 {
		var rec runJSON
		require.NoError(t, json.Unmarshal([]byte(line), &rec))
		assert.Equal(t, uint64(i+1), rec.Seed)
		assert.Equal(t, "safety", string(rec.Verdict))
	}
	for _, s := range []map[string]any{s1, s2} {
		assert.Equal(t, float64(6), s["runs"])
		assert.Equal(t, float64(0), s["passed"])
		assert.Equal(t, float64(6), s["failed_total"])
		assert.Equal(t, map[string]any{"safety": float64(6), "liveness": float64(0), "crash": float64(0)}, s["failed"])
		assert.Equal(t, float64(1), s["first_failure_seed"])
		assert.Contains(t, s, "runs_per_s")
		assert.Contains(t, s, "events_per_s")
	}
}

// TestSweepPassExitsZero: every fix on, nothing found, first_failure_seed null.
func TestSweepPassExitsZero(t *testing.T) {
	out := vsrsim(t, "sweep", "--count", "20", "--start", "100", "-o", "json")
	require.Equal(t, 0, out.code, out.stderr)
	fails, summary := failureLines(t, out.stdout)
	assert.Empty(t, fails)
	assert.Equal(t, float64(20), summary["runs"])
	assert.Nil(t, summary["first_failure_seed"])
	exercised, ok := summary["exercised"].(map[string]any)
	require.True(t, ok, "the summary counts the mechanisms runs exercised")
	assert.Contains(t, exercised, "view_changes")
	assert.Contains(t, exercised, "state_transfers")

	table := vsrsim(t, "sweep", "--count", "5")
	require.Equal(t, 0, table.code, table.stderr)
	assert.Contains(t, table.stdout, "first failure seed")
	assert.Empty(t, table.stderr, "no progress line when stderr is not a terminal")
}

// TestSweepFailuresFile: each failure is one JSONL line whose replay command
// reproduces the run's verdict and trace hash.
func TestSweepFailuresFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "failures.jsonl")
	out := vsrsim(t, "sweep", "--scenario", "hollow-op", "--bug", "narrow-repair-under-commit-lag",
		"--seeds", "1-3", "--failures", path, "--max-failures", "2")
	require.Equal(t, exitLiveness, out.code, out.stderr)
	assert.Contains(t, out.stdout, "stopped at --max-failures")
	f, err := os.Open(path)
	require.NoError(t, err)
	defer f.Close()
	var recs []runJSON
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		var rec runJSON
		require.NoError(t, json.Unmarshal(sc.Bytes(), &rec))
		recs = append(recs, rec)
	}
	require.Len(t, recs, 2)
	args := strings.Fields(recs[1].Replay)
	require.Equal(t, []string{"vsrsim", "run"}, args[:2])
	_, again := runJSONOf(t, exitLiveness, args[1:]...)
	assert.Equal(t, recs[1].TraceHash, again.TraceHash)
	assert.Equal(t, recs[1].Verdict, again.Verdict)
	assert.NotContains(t, out.stderr, "already holds", "a new file")

	// A second sweep appends, and says so: the runs of two sweeps (of two
	// builds, say) would otherwise read as one sweep's.
	out = vsrsim(t, "sweep", "--scenario", "hollow-op", "--bug", "narrow-repair-under-commit-lag",
		"--seeds", "1-1", "--failures", path, "--max-failures", "1")
	require.Equal(t, exitLiveness, out.code, out.stderr)
	assert.Contains(t, out.stderr, "--failures "+path+" already holds")
}

// TestSweepUsageErrors: bad arguments exit 64 with one line on stderr.
func TestSweepUsageErrors(t *testing.T) {
	for _, args := range [][]string{
		{"--seeds", "10-1"},
		{"--shard", "3/2"},
		{"--shard", "1/0"},
		{"--shard", "x"},
		{"--seeds", "1-5", "--count", "3"},
		{"--seeds", "abc"},
		{"--count", "0"},
		{"--jobs", "0"},
		{"--scenario", "nope"},
		{"--bug", "nope"},
		{"extra-arg"},
	} {
		out := vsrsim(t, append([]string{"sweep"}, args...)...)
		assert.Equal(t, exitUsage, out.code, "%v: %s", args, out.stderr)
		assert.Equal(t, 1, strings.Count(out.stderr, "\n"), "%v: one line: %q", args, out.stderr)
		assert.Empty(t, out.stdout, "%v", args)
	}
}

// TestSweepInterrupt: Ctrl-C stops a sweep cleanly: the summary is printed,
// every failure found so far is in the failures file, and the exit code is the
// findings' (130 when there are none).
func TestSweepInterrupt(t *testing.T) {
	for _, tc := range []struct {
		name string
		args []string
		code int
	}{
		{"with findings", []string{"--scenario", "hollow-op", "--bug", "narrow-repair-under-commit-lag"}, exitLiveness},
		{"without findings", nil, exitInterrupted},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "failures.jsonl")
			args := append([]string{"sweep", "--count", "1000000", "--jobs", "1", "--failures", path}, tc.args...)
			cmd := exec.Command(binary, args...)
			var stdout, stderr bytes.Buffer
			cmd.Stdout, cmd.Stderr = &stdout, &stderr
			require.NoError(t, cmd.Start())
			// Let it run a little: until a finding is on disk, or a moment.
			for i := 0; i < 200; i++ {
				if data, _ := os.ReadFile(path); len(data) > 0 {
					break
				}
				time.Sleep(10 * time.Millisecond)
			}
			require.NoError(t, cmd.Process.Signal(os.Interrupt))
			err := cmd.Wait()
			var exit *exec.ExitError
			require.True(t, errors.As(err, &exit), "exit: %v", err)
			assert.Equal(t, tc.code, exit.ExitCode(), stderr.String())
			assert.Contains(t, stdout.String(), "interrupted")
			assert.Contains(t, stderr.String(), "vsrsim: interrupted after")
			data, err := os.ReadFile(path)
			require.NoError(t, err)
			assert.Equal(t, strings.Count(stdout.String(), "FAIL seed"), strings.Count(string(data), "\n"),
				"every failure printed is in the file")
		})
	}
}

// TestSweepCountsLinearizabilityUnknown: the summary counts the runs whose
// linearizability check answered unknown, as linearizability_unknown in JSON
// (0 in a real sweep, where every check settles) and a row of the table.
func TestSweepCountsLinearizabilityUnknown(t *testing.T) {
	out := vsrsim(t, "sweep", "--count", "3", "-o", "json")
	require.Equal(t, 0, out.code, out.stderr)
	_, summary := failureLines(t, out.stdout)
	assert.Equal(t, float64(0), summary["linearizability_unknown"])

	sum := sweep.Summary{Runs: 9, Passed: 9, LinearizabilityUnknown: 4}
	data, err := json.Marshal(newSweepJSON(sum, sweep.Range{First: 1, Count: 9}, 1))
	require.NoError(t, err)
	assert.Contains(t, string(data), `"linearizability_unknown":4`)
	var table bytes.Buffer
	require.NoError(t, writeSweepTable(&table, sum, sweep.Range{First: 1, Count: 9}, 1))
	assert.Regexp(t, `│ linearizability unknown +│ 4 +│`, table.String())
}
