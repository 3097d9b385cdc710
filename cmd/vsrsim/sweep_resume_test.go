package main

import (
	"encoding/json"
	"encoding/xml"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// sweepFiles are the files one sweep (or a chain of resumed sweeps) writes.
type sweepFiles struct{ failures, excused, junit, cursor string }

func newSweepFiles(dir string) sweepFiles {
	return sweepFiles{
		failures: filepath.Join(dir, "failures.jsonl"), excused: filepath.Join(dir, "excused.jsonl"),
		junit: filepath.Join(dir, "junit.xml"), cursor: filepath.Join(dir, "cursor.json"),
	}
}

func (f sweepFiles) args() []string {
	return []string{"--failures", f.failures, "--excused", f.excused, "--junit", f.junit, "-o", "json"}
}

// lastSummary is the summary object of sweep -o json output, less what a
// wall clock measures and where the last part of a chain started.
func lastSummary(t *testing.T, stdout string) map[string]any {
	t.Helper()
	_, summary := failureLines(t, stdout)
	for _, k := range []string{"runs_per_s", "events_per_s", "wall_s", "slowest_seed", "slowest_seed_hex", "slowest_wall_s", "resumed_at_index", "jobs"} {
		require.Contains(t, summary, k)
		delete(summary, k)
	}
	return summary
}

// junitFailures lists the failing cases of a JUnit file, in file order, and
// counts its sweep summary cases.
func junitFailures(t *testing.T, path string) (failures []string, summaries int) {
	t.Helper()
	data, err := os.ReadFile(path)
	require.NoError(t, err)
	var doc junitSuites
	require.NoError(t, xml.Unmarshal(data, &doc))
	for _, s := range doc.Suites {
		for _, c := range s.Cases {
			if c.Name == "sweep summary" {
				summaries++
			}
			if c.Failure != nil {
				failures = append(failures, c.Name)
			}
		}
	}
	assert.Equal(t, len(failures), doc.Failures, "the file's failure count is every suite's")
	return failures, summaries
}

func readText(t *testing.T, path string) string {
	t.Helper()
	data, err := os.ReadFile(path)
	require.NoError(t, err)
	return string(data)
}

// TestSweepResumeCoversOnce: a sweep stopped by --for and resumed twice from
// its cursor covers exactly the seeds of one sweep: the same summary (bar
// wall-clock figures), the same --failures and --excused lines, and a JUnit
// file that lists every finding. --for 1ns starts exactly one seed with one
// job (the first seed of a sweep always runs), so which seeds each part
// covers does not depend on the machine's speed.
func TestSweepResumeCoversOnce(t *testing.T) {
	for _, tc := range []struct {
		name       string
		run, seeds []string // the run flags, which every part repeats, and the range's
		code       int
	}{
		{"findings", []string{"--scenario", "stale-dvc-cache", "--bug", "dvc-cache-ignores-journal"}, []string{"--seeds", "1-5"}, exitSafety},
		{"unrecoverable", []string{"--scenario-file", filepath.Join("..", "..", "seeds", "recorded", "23930.vsr")}, []string{"--seeds", "23925-23932"}, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			args := append(slices.Clone(tc.run), tc.seeds...)
			whole := newSweepFiles(t.TempDir())
			one := vsrsim(t, append(append([]string{"sweep", "--jobs", "2"}, args...), whole.args()...)...)
			require.Equal(t, tc.code, one.code, one.stderr)
			want := lastSummary(t, one.stdout)

			parts := newSweepFiles(t.TempDir())
			first := vsrsim(t, append(append([]string{"sweep", "--jobs", "1", "--for", "1ns", "--cursor", parts.cursor}, args...), parts.args()...)...)
			require.Contains(t, first.stderr, "--for 1ns spent after 1 of", first.stderr)
			var cursor map[string]any
			require.NoError(t, json.Unmarshal([]byte(readText(t, parts.cursor)), &cursor))
			assert.Equal(t, float64(1), cursor["next_index"])
			assert.Equal(t, false, cursor["done"])

			// The range comes from the cursor; the run flags are checked
			// against it.
			second := vsrsim(t, append(append([]string{"sweep", "--jobs", "1", "--for", "1ns", "--resume", parts.cursor}, tc.run...), parts.args()...)...)
			require.Contains(t, second.stderr, "--for 1ns spent after 2 of", second.stderr)
			_, s2 := failureLines(t, second.stdout)
			assert.Equal(t, true, s2["stopped_at_for"])
			assert.Equal(t, float64(1), s2["resumed_at_index"])

			// The last part names its range again, as a CI job would; it
			// must be the cursor's.
			last := vsrsim(t, append(append([]string{"sweep", "--jobs", "2", "--resume", parts.cursor}, args...), parts.args()...)...)
			require.Equal(t, tc.code, last.code, last.stderr)
			got := lastSummary(t, last.stdout)
			assert.Equal(t, want, got, "the same summary as one sweep")
			covered, ok := got["covered"].(map[string]any)
			require.True(t, ok)
			assert.Equal(t, true, covered["complete"])

			assert.Equal(t, readText(t, whole.failures), readText(t, parts.failures), "--failures: every finding once, in seed order")
			assert.Equal(t, readText(t, whole.excused), readText(t, parts.excused), "--excused: every unrecoverable run once")
			wantCases, _ := junitFailures(t, whole.junit)
			gotCases, summaries := junitFailures(t, parts.junit)
			assert.Equal(t, wantCases, gotCases, "JUnit: every finding of every part")
			assert.Equal(t, 3, summaries, "one summary case per part")

			require.NoError(t, json.Unmarshal([]byte(readText(t, parts.cursor)), &cursor))
			assert.Equal(t, true, cursor["done"])
			assert.Nil(t, cursor["next_seed"])
			assert.Equal(t, float64(strings.Count(readText(t, parts.failures), "\n")), cursor["findings_written"])
			assert.Equal(t, float64(strings.Count(readText(t, parts.excused), "\n")), cursor["excused_written"])
		})
	}
}

// TestSweepExcused: --excused holds one record per unrecoverable run, each
// with its seed, rule, evidence and replay command, and the summary table a
// row per rule with its count.
func TestSweepExcused(t *testing.T) {
	path := filepath.Join(t.TempDir(), "excused.jsonl")
	args := []string{"sweep", "--scenario-file", filepath.Join("..", "..", "seeds", "recorded", "23930.vsr"), "--seeds", "23925-23936", "--excused", path}
	out := vsrsim(t, append(args, "-o", "json")...)
	require.Equal(t, 0, out.code, out.stderr)
	fails, summary := failureLines(t, out.stdout)
	assert.Empty(t, fails, "an unrecoverable run is no finding")
	lines := strings.Split(strings.TrimSuffix(readText(t, path), "\n"), "\n")
	require.Positive(t, summary["unrecoverable"], "the file's seeds include unrecoverable runs")
	require.Len(t, lines, int(summary["unrecoverable"].(float64)))
	rules := map[string]float64{}
	for _, line := range lines {
		var rec runJSON
		require.NoError(t, json.Unmarshal([]byte(line), &rec))
		assert.Equal(t, "unrecoverable", string(rec.Verdict))
		assert.NotEmpty(t, rec.Rule)
		assert.NotEmpty(t, rec.Evidence)
		assert.Contains(t, rec.Replay, "vsrsim run --seed ")
		rules[rec.Rule]++
	}
	byRule, ok := summary["unrecoverable_rules"].(map[string]any)
	require.True(t, ok)
	for rule, n := range rules {
		assert.Equal(t, n, byRule[rule], rule)
	}

	table := vsrsim(t, args[:len(args)-2]...)
	require.Equal(t, 0, table.code, table.stderr)
	for rule, n := range rules {
		assert.Regexp(t, `│ unrecoverable: `+rule+` +│ `+strings.TrimSuffix(strings.TrimSuffix(jsonNumber(n), ".0"), ".")+` +│`, table.stdout)
	}
}

func jsonNumber(f float64) string {
	data, _ := json.Marshal(f)
	return string(data)
}

// TestSweepResumeBadInput: a cursor that is missing, malformed or of another
// sweep is refused with one line and the input's exit code, before any seed.
func TestSweepResumeBadInput(t *testing.T) {
	dir := t.TempDir()
	good := filepath.Join(dir, "cursor.json")
	out := vsrsim(t, "sweep", "--seeds", "1-4", "--jobs", "1", "--for", "1ns", "--cursor", good)
	require.Equal(t, 0, out.code, out.stderr)
	bad := filepath.Join(dir, "bad.json")
	require.NoError(t, os.WriteFile(bad, []byte(strings.Replace(readText(t, good), `"next_index": 1`, `"next_index": 3`, 1)), 0o644))
	typo := filepath.Join(dir, "typo.json")
	require.NoError(t, os.WriteFile(typo, []byte(strings.Replace(readText(t, good), `"next_index"`, `"next_indx"`, 1)), 0o644))
	for _, tc := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"--resume", filepath.Join(dir, "none.json")}, exitDataErr, "no such file"},
		{[]string{"--resume", bad}, exitDataErr, "is not the seed at next_index 3"},
		{[]string{"--resume", typo}, exitDataErr, "unknown field"},
		{[]string{"--resume", good, "--seeds", "1-5"}, exitUsage, "the cursor is of the range"},
		{[]string{"--resume", good, "--replicas", "5"}, exitUsage, "the cursor's sweep runs"},
		{[]string{"--for", "-1s"}, exitUsage, "--for -1s"},
		{[]string{"--resume-cursor"}, exitUsage, "--resume-cursor: give --cursor FILE"},
		{[]string{"--resume-cursor", "--cursor", good, "--resume", good}, exitUsage, "--resume-cursor: give --cursor FILE"},
	} {
		out := vsrsim(t, append([]string{"sweep"}, tc.args...)...)
		assert.Equal(t, tc.code, out.code, "%v: %s", tc.args, out.stderr)
		assert.Equal(t, 1, strings.Count(out.stderr, "\n"), "%v: one line: %q", tc.args, out.stderr)
		assert.Contains(t, out.stderr, tc.want, tc.args)
	}
}

// TestSweepResumeCursorRerun: one command line with --cursor and
// --resume-cursor, run again and again as a rerun pod is, starts the range
// the first time, goes on from the cursor after, and once the range is done
// runs nothing and reports the whole sweep with its exit code.
func TestSweepResumeCursorRerun(t *testing.T) {
	cursor := filepath.Join(t.TempDir(), "cursor.json")
	args := []string{"sweep", "--scenario", "stale-dvc-cache", "--bug", "dvc-cache-ignores-journal", "--seeds", "1-3",
		"--jobs", "1", "--for", "1ns", "--cursor", cursor, "--resume-cursor", "-o", "json"}
	for i, want := range []string{"1 of 3", "2 of 3", "3 of 3", "3 of 3"} {
		out := vsrsim(t, args...)
		require.Equal(t, exitSafety, out.code, out.stderr)
		_, summary := failureLines(t, out.stdout)
		covered, ok := summary["covered"].(map[string]any)
		require.True(t, ok)
		assert.Equal(t, want[:1], jsonNumber(covered["runs"].(float64)), "run %d", i)
		assert.Equal(t, summary["runs"], covered["runs"], "run %d: the counts are every part's", i)
	}
}
