package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"vsrsim/scenarios"
)

// binary is the vsrsim built once for the whole file: the tests drive it as a
// user would, exit codes and all.
var binary string

func TestMain(m *testing.M) {
	os.Exit(buildAndRun(m))
}

func buildAndRun(m *testing.M) int {
	dir, err := os.MkdirTemp("", "vsrsim-cli-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer os.RemoveAll(dir)
	binary = filepath.Join(dir, "vsrsim")
	build := exec.Command("go", "build", "-o", binary, ".")
	if out, err := build.CombinedOutput(); err != nil {
		fmt.Fprintf(os.Stderr, "go build: %v\n%s", err, out)
		return 1
	}
	return m.Run()
}

type cliResult struct {
	code           int
	stdout, stderr string
}

func vsrsim(t *testing.T, args ...string) cliResult {
	t.Helper()
	cmd := exec.Command(binary, args...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	code := 0
	if err != nil {
		var exit *exec.ExitError
		require.True(t, errors.As(err, &exit), "running vsrsim %v: %v", args, err)
		code = exit.ExitCode()
	}
	return cliResult{code: code, stdout: stdout.String(), stderr: stderr.String()}
}

// runJSONOf runs vsrsim with -o json and decodes the one object it must print.
func runJSONOf(t *testing.T, wantCode int, args ...string) (map[string]any, runJSON) {
	t.Helper()
	out := vsrsim(t, append(args, "-o", "json")...)
	require.Equal(t, wantCode, out.code, "stderr: %s", out.stderr)
	require.Empty(t, out.stderr)
	lines := strings.Split(strings.TrimSuffix(out.stdout, "\n"), "\n")
	require.Len(t, lines, 1, "want exactly one JSON object on stdout")
	var raw map[string]any
	require.NoError(t, json.Unmarshal([]byte(lines[0]), &raw))
	var typed runJSON
	require.NoError(t, json.Unmarshal([]byte(lines[0]), &typed))
	return raw, typed
}

func TestRunJSONContract(t *testing.T) {
	raw, res := runJSONOf(t, exitPass, "run", "--seed", "1")
	for _, field := range []string{"seed", "scenario", "bugs", "replicas", "verdict", "invariant",
		"evidence", "ticks", "events", "trace_hash", "replay"} {
		assert.Contains(t, raw, field)
	}
	assert.Equal(t, []any{}, raw["bugs"], "bugs must be an empty array, not null")
	assert.EqualValues(t, 1, res.Seed)
	assert.Equal(t, "pass", string(res.Verdict))
	assert.Len(t, res.TraceHash, 16)
	assert.Positive(t, res.Events)
	assert.Positive(t, res.Committed)
	assert.NotEmpty(t, res.Options)
	assert.Equal(t, "vsrsim run --seed 1", res.Replay)
}

func TestRunDeterminism(t *testing.T) {
	_, a := runJSONOf(t, exitPass, "run", "--seed", "1")
	_, again := runJSONOf(t, exitPass, "run", "--seed", "0x1")
	_, b := runJSONOf(t, exitPass, "run", "--seed", "2")
	assert.Equal(t, a.TraceHash, again.TraceHash, "same seed, same trace")
	assert.Equal(t, a.Events, again.Events)
	assert.NotEqual(t, a.TraceHash, b.TraceHash, "different seeds, different traces")
}

func TestRunTableOutput(t *testing.T) {
	out := vsrsim(t, "run", "--seed", "1")
	require.Equal(t, exitPass, out.code, "stderr: %s", out.stderr)
	assert.True(t, strings.HasPrefix(out.stdout, "seed 1 (0x1) options:\n"), "option dump comes first")
	for _, want := range []string{"journal_slots", "trace hash", "ops committed", "view changes",
		"packets sent / delivered / dropped / duplicated", "replay: vsrsim run --seed 1\n", "SEED 1 (0x1)"} {
		assert.Contains(t, out.stdout, want)
	}
	assert.NotContains(t, out.stdout, "( 0 X 1 )", "the header keeps the hex seed as typed")
	assert.NotContains(t, out.stdout, "last trace lines:", "a passing run has no tail")
}

// TestRunScenarioFailure runs a scenario with its bug on: the verdict picks the
// exit code, and the report ends with the trace tail.
func TestRunScenarioFailure(t *testing.T) {
	s, err := scenarios.Lookup("hollow-op")
	if err != nil {
		t.Skip("hollow-op is not registered")
	}
	want := verdictExitCode(s.Expect)
	out := vsrsim(t, "run", "--seed", "1", "--scenario", s.Name, "--bug", s.Bug)
	require.Equal(t, want, out.code, "stderr: %s", out.stderr)
	assert.Contains(t, out.stdout, "last trace lines:\n  t=")
	assert.Contains(t, out.stdout, "replay: vsrsim run --seed 1 --scenario hollow-op --bug "+s.Bug+"\n")

	raw, res := runJSONOf(t, want, "run", "--seed", "1", "--scenario", s.Name, "--bug", s.Bug)
	assert.Equal(t, []any{s.Bug}, raw["bugs"])
	assert.Equal(t, s.Expect, res.Verdict)
	assert.Equal(t, want, res.ExitCode)
	assert.NotEmpty(t, res.Invariant)
	assert.NotEmpty(t, res.Evidence)
	assert.NotEmpty(t, res.Tail)
}

func TestUsageErrors(t *testing.T) {
	tests := []struct {
		name string
		args []string
		want string // in the error line
	}{
		{"seed not a number", []string{"run", "--seed", "banana"}, "banana"},
		{"seed missing", []string{"run"}, "seed"},
		{"zero replicas", []string{"run", "--seed", "1", "--replicas", "0"}, "replicas"},
		{"extra delay to a missing replica", []string{"run", "--seed", "1", "--replicas", "3", "--extra-delay", "9:0=10"}, "no replica 9"},
		{"extra delay syntax", []string{"run", "--seed", "1", "--extra-delay", "9-0=10"}, "FROM:TO=TICKS"},
		{"unknown bug", []string{"run", "--seed", "1", "--bug", "nope"}, `unknown bug "nope"`},
		{"unknown scenario", []string{"run", "--seed", "1", "--scenario", "nope"}, `unknown scenario "nope"`},
		{"unknown output", []string{"run", "--seed", "1", "-o", "xml"}, "xml"},
		{"unknown journal", []string{"run", "--seed", "1", "--journal", "disk"}, "disk"},
		{"unknown flag", []string{"run", "--seed", "1", "--nope"}, "unknown flag: --nope"},
		{"stray argument", []string{"run", "--seed", "1", "extra"}, "extra"},
		{"unknown command", []string{"bogus"}, "bogus"},
		{"list output", []string{"list", "-o", "xml"}, "xml"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out := vsrsim(t, tt.args...)
			assert.Equal(t, exitUsage, out.code)
			assert.Empty(t, out.stdout, "no report for a run that never started")
			assertOneErrorLine(t, out.stderr, tt.want)
		})
	}
}

func assertOneErrorLine(t *testing.T, stderr, want string) {
	t.Helper()
	assert.True(t, strings.HasPrefix(stderr, "vsrsim: "), "stderr: %q", stderr)
	assert.Equal(t, 1, strings.Count(stderr, "\n"), "stderr must be one line: %q", stderr)
	assert.True(t, strings.HasSuffix(stderr, "\n"))
	assert.Contains(t, stderr, want)
}

func TestTraceWriteErrors(t *testing.T) {
	tests := []struct {
		name, path string
	}{
		{"missing directory", filepath.Join(t.TempDir(), "no", "such", "trace.ndjson")},
		{"full device", "/dev/full"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.path == "/dev/full" {
				if _, err := os.Stat(tt.path); err != nil {
					t.Skip("no /dev/full on this system")
				}
			}
			out := vsrsim(t, "run", "--seed", "1", "--trace", tt.path, "-o", "json")
			assert.Equal(t, exitSoftware, out.code)
			assertOneErrorLine(t, out.stderr, "trace")
		})
	}
}

// TestTraceAndReplay writes a trace, checks it line by line, and runs the
// replay command from the JSON report: it must reproduce the trace hash.
func TestTraceAndReplay(t *testing.T) {
	trace := filepath.Join(t.TempDir(), "run.ndjson")
	args := []string{"run", "--seed", "3", "--replicas", "3", "--clients", "2", "--ticks", "3000",
		"--journal", "wal", "--topology", "star", "--extra-delay", "*:0=5", "--trace", trace}
	_, res := runJSONOf(t, exitPass, args...)

	file, err := os.Open(trace)
	require.NoError(t, err)
	defer file.Close()
	scanner := bufio.NewScanner(file)
	scanner.Buffer(make([]byte, 0, 1<<16), 1<<20)
	var lines uint64
	var last uint64
	var header, trailer map[string]any
	for scanner.Scan() {
		var line struct {
			Tick *uint64 `json:"tick"`
			Kind *string `json:"kind"`
			Line *string `json:"line"`
		}
		require.NoError(t, json.Unmarshal(scanner.Bytes(), &line), "trace line %d", lines+1)
		require.NotNil(t, line.Kind, "trace line %d has no kind", lines+1)
		switch {
		case header == nil:
			require.Equal(t, "header", *line.Kind, "the first line is the header")
			require.NoError(t, json.Unmarshal(scanner.Bytes(), &header))
			continue
		case *line.Kind == "trailer":
			require.Nil(t, trailer, "one trailer")
			require.NoError(t, json.Unmarshal(scanner.Bytes(), &trailer))
			continue
		}
		require.Nil(t, trailer, "the trailer is the last line")
		require.NotNil(t, line.Tick, "trace line %d has no tick", lines+1)
		require.NotNil(t, line.Line, "trace line %d has no line", lines+1)
		assert.GreaterOrEqual(t, *line.Tick, last, "ticks never go back")
		last = *line.Tick
		lines++
	}
	require.NoError(t, scanner.Err())
	assert.Equal(t, res.Events, lines, "one NDJSON line per trace event")
	require.NotNil(t, trailer)
	assert.Equal(t, "0x3", header["seed_hex"])
	assert.Equal(t, float64(3), header["replicas"])
	assert.NotEmpty(t, header["options"])
	assert.Equal(t, res.TraceHash, trailer["trace_hash"])
	assert.Equal(t, string(res.Verdict), trailer["verdict"])

	assert.Equal(t,
		"vsrsim run --seed 3 --replicas 3 --clients 2 --ticks 3000 --journal wal --topology star --extra-delay '*:0=5'",
		res.Replay)
	replayArgs := shellWords(t, res.Replay)
	require.Equal(t, "vsrsim", replayArgs[0])
	_, again := runJSONOf(t, exitPass, replayArgs[1:]...)
	assert.Equal(t, res.TraceHash, again.TraceHash, "the replay command reproduces the run")
	assert.Equal(t, res.Replay, again.Replay)
}

// shellWords splits the replay command as a POSIX shell would.
func shellWords(t *testing.T, s string) []string {
	t.Helper()
	require.Equal(t, 0, strings.Count(s, "'")%2, "unterminated quote in %q", s)
	return splitCommand(s)
}

func TestList(t *testing.T) {
	out := vsrsim(t, "list")
	require.Equal(t, exitPass, out.code, "stderr: %s", out.stderr)
	assert.Contains(t, out.stdout, "narrow-repair-under-commit-lag")
	for _, s := range scenarios.All() {
		assert.Contains(t, out.stdout, s.Name)
	}

	out = vsrsim(t, "list", "-o", "json")
	require.Equal(t, exitPass, out.code, "stderr: %s", out.stderr)
	var list listJSON
	require.NoError(t, json.Unmarshal([]byte(out.stdout), &list))
	assert.Len(t, list.Scenarios, len(scenarios.All()))
	require.NotEmpty(t, list.Bugs)
	assert.Equal(t, "narrow-repair-under-commit-lag", list.Bugs[0].Name)
	assert.Contains(t, out.stdout, `"scenarios":[`, "scenarios is an array even when empty")
}

func TestCompletion(t *testing.T) {
	out := vsrsim(t, "completion", "bash")
	require.Equal(t, exitPass, out.code, "stderr: %s", out.stderr)
	assert.Contains(t, out.stdout, "bash completion")

	tests := []struct {
		args []string
		want []string
	}{
		{[]string{"__complete", "run", "--bug", ""}, []string{"narrow-repair-under-commit-lag", "dvc-cache-ignores-journal"}},
		{[]string{"__complete", "run", "-o", ""}, []string{"table", "json"}},
		{[]string{"__complete", "run", "--journal", ""}, []string{"wal", "memory"}},
		{[]string{"__complete", "run", "--scenario", ""}, scenarioNames()},
	}
	for _, tt := range tests {
		t.Run(strings.Join(tt.args[1:], " "), func(t *testing.T) {
			out := vsrsim(t, tt.args...)
			require.Equal(t, exitPass, out.code, "stderr: %s", out.stderr)
			// One candidate per line, optionally followed by a tab and its
			// description.
			var got []string
			for _, line := range strings.Split(out.stdout, "\n") {
				name, _, _ := strings.Cut(line, "\t")
				got = append(got, name)
			}
			for _, want := range tt.want {
				assert.Contains(t, got, want)
			}
		})
	}
}

func scenarioNames() []string {
	var names []string
	for _, s := range scenarios.All() {
		names = append(names, s.Name)
	}
	return names
}
