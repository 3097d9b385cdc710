package main

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestBadInputs feeds the inputs that once misbehaved: each must end in one
// line on stderr naming the problem, the right exit code, and no panic.
func TestBadInputs(t *testing.T) {
	record := `{"seed":1,"scenario":"","bugs":[],"verdict":"pass","trace_hash":"0123456789abcdef","replay":"vsrsim run --seed 1"}`
	file := func(text string) string { return writeFile(t, "in.txt", text) }
	tests := []struct {
		name string
		args []string
		code int
		want string
	}{
		{"ticks wrap", []string{"run", "--seed", "1", "--ticks", "18446744073709551615"}, exitUsage, "ticks 18446744073709551615: must be 0..1000000"},
		{"ticks above bound", []string{"run", "--seed", "1", "--ticks", "1000001"}, exitUsage, "must be 0..1000000"},
		{"replicas huge", []string{"run", "--seed", "1", "--replicas", "99999999999"}, exitUsage, "replicas"},
		{"clients negative", []string{"run", "--seed", "1", "--clients", "-3"}, exitUsage, `clients "-3" is not a number`},
		{"journal slots below min", []string{"run", "--seed", "1", "--journal-slots", "16"}, exitUsage, "journal-slots 16: must be 64..65536"},
		{"journal slots tiny", []string{"run", "--seed", "1", "--journal-slots", "8"}, exitUsage, "must be 64..65536"},
		{"seed twice", []string{"run", "--seed", "1", "--seed", "2"}, exitUsage, "given twice"},
		{"scenario twice", []string{"run", "--seed", "1", "--scenario", "hollow-op", "--scenario", "stale-offer"}, exitUsage, "given twice"},
		{"empty trace path", []string{"run", "--seed", "1", "--trace", ""}, exitUsage, "--trace: empty file name"},
		{"blank trace path", []string{"run", "--seed", "1", "--trace", " "}, exitUsage, "--trace: empty file name"},
		{"self extra delay", []string{"run", "--seed", "1", "--extra-delay", "1:1=5"}, exitUsage, "does not send to itself"},
		{"extra delay above bound", []string{"run", "--seed", "1", "--extra-delay", "0:1=1048577"}, exitUsage, "above the maximum of 1048576"},
		{"extra delay past u64", []string{"run", "--seed", "1", "--extra-delay", "0:1=99999999999999999999999"}, exitUsage, "above the maximum of 1048576"},
		{"file extra delay above bound", []string{"run", "--seed", "1", "--scenario-file", file("at 0 extra-delay 0:1=4294967297\n")}, exitDataErr, "above the maximum of 1048576"},
		{"file self extra delay", []string{"run", "--seed", "1", "--scenario-file", file("at 0 extra-delay 2:2=5\n")}, exitDataErr, "does not send to itself"},
		{"trace filter unknown kind", []string{"run", "--seed", "1", "--trace", "-", "--trace-filter", "kind=sned"}, exitUsage, `unknown kind "sned"`},
		{"trace filter without trace", []string{"run", "--seed", "1", "--trace-filter", "kind=send"}, exitUsage, "--trace-filter needs --trace"},
		{"empty perfetto path", []string{"run", "--seed", "1", "--perfetto", ""}, exitUsage, "--perfetto: empty file name"},
		{"timeline on stdout", []string{"run", "--seed", "1", "--timeline", "-"}, exitUsage, "--timeline: give a file name"},
		{"linearizability dir missing", []string{"sweep", "--count", "1", "--linearizability-html-dir", "/nonexistent/dir"}, exitUsage, "not a directory"},
		{"scenario file byte order mark", []string{"run", "--seed", "1", "--scenario-file", file("\ufeffreplicas 3\n")}, exitDataErr, "byte order mark"},
		{"scenario file long line", []string{"run", "--seed", "1", "--scenario-file", file("note " + strings.Repeat("x", 70<<10) + "\n")}, exitDataErr, ":1: line longer than 64 KiB"},
		{"start wraps", []string{"sweep", "--start", "18446744073709551615", "--count", "2"}, exitUsage, "past the last seed"},
		{"count huge", []string{"sweep", "--count", "18446744073709551615"}, exitUsage, "--count"},
		{"jobs huge", []string{"sweep", "--count", "1", "--jobs", "100000"}, exitUsage, "--jobs 100000"},
		{"empty shard", []string{"sweep", "--count", "3", "--shard", "5/8"}, exitUsage, "no seed to run"},
		{"line zero", []string{"replay", "--line", "0", file(record + "\n")}, exitUsage, "--line 0"},
		{"replay empty trace path", []string{"replay", "--trace", "", file(record + "\n")}, exitUsage, "--trace: empty file name"},
		{"json array", []string{"replay", file("[]\n")}, exitDataErr, "not a JSON array or null"},
		{"json null", []string{"replay", file("null\n")}, exitDataErr, "not a JSON array or null"},
		{"byte order mark", []string{"replay", file("\ufeff" + record + "\n")}, exitDataErr, "byte order mark"},
		{"long line", []string{"replay", file("- 1 - pass 0123456789abcdef " + strings.Repeat("x", 70<<10) + "\n")}, exitDataErr, ":1: line longer than 64 KiB"},
		{"record scenario unknown", []string{"replay", file(strings.Replace(record, `"scenario":""`, `"scenario":"nope"`, 1) + "\n")}, exitDataErr, `scenario "nope" does not match`},
		{"record bug unknown", []string{"replay", file(strings.Replace(record, `"bugs":[]`, `"bugs":["nope"]`, 1) + "\n")}, exitDataErr, "bugs [nope] do not match"},
		{"replay scenario unknown", []string{"replay", file(strings.NewReplacer(`--seed 1"`, `--seed 1 --scenario nope"`, `"scenario":""`, `"scenario":"nope"`).Replace(record) + "\n")}, exitDataErr, `unknown scenario "nope"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out := vsrsim(t, tt.args...)
			assert.Equal(t, tt.code, out.code, "stderr: %s", out.stderr)
			assertOneErrorLine(t, out.stderr, tt.want)
			assert.NotContains(t, out.stderr, "internal error")
			assert.NotContains(t, out.stderr, "panic")
		})
	}
}

// TestTraceToStdout: --trace - puts the NDJSON trace on stdout, every line of
// it JSON, and the report on stderr.
func TestTraceToStdout(t *testing.T) {
	out := vsrsim(t, "run", "--seed", "1", "--trace", "-", "-o", "json")
	require.Equal(t, exitPass, out.code, out.stderr)
	lines := strings.Split(strings.TrimSuffix(out.stdout, "\n"), "\n")
	require.Greater(t, len(lines), 100)
	for _, line := range lines[:100] {
		assert.True(t, json.Valid([]byte(line)), "trace line %q", line)
	}
	var report runJSON
	require.NoError(t, json.Unmarshal([]byte(out.stderr), &report), "the report moved to stderr")
	assert.Equal(t, "0x1", report.SeedHex)
}

// TestOptionDump: a disabled fault reads "off" without its parameters, the
// delay cannot read as a mean below its minimum, and flags are marked.
func TestOptionDump(t *testing.T) {
	out := vsrsim(t, "run", "--seed", "3", "--replicas", "1", "--ticks", "2000")
	require.Equal(t, exitPass, out.code, out.stderr)
	dump, _, _ := strings.Cut(out.stdout, "\n\n")
	assert.Regexp(t, `(?m)^  replicas +1  \(set by --replicas\)$`, dump)
	assert.Regexp(t, `(?m)^  ticks +faults=2000 liveness=\d+  \(set by --ticks\)$`, dump)
	assert.Regexp(t, `(?m)^  partition +off$`, dump, "one replica cannot be partitioned")
	assert.Regexp(t, `(?m)^  delay +\d+ \+ exponential\(mean \d+\) ticks$`, dump)
	assert.Regexp(t, `(?m)^  clients +\d+$`, dump, "a drawn value is not marked")
}

// TestTraceFilterFlag: a filtered trace keeps only matching lines between its
// header and trailer, and the run's hash is the unfiltered one.
func TestTraceFilterFlag(t *testing.T) {
	full := vsrsim(t, "run", "--seed", "5", "--trace", "-", "-o", "json")
	require.Equal(t, exitPass, full.code, full.stderr)
	cut := vsrsim(t, "run", "--seed", "5", "--trace", "-", "-o", "json", "--trace-filter", "kind=status,crash,commit", "--trace-filter", "replica=0")
	require.Equal(t, exitPass, cut.code, cut.stderr)
	assert.Equal(t, full.stderr, cut.stderr, "same run, same report, same hash")

	lines := strings.Split(strings.TrimSuffix(cut.stdout, "\n"), "\n")
	require.Greater(t, len(lines), 2)
	assert.Less(t, len(lines), strings.Count(full.stdout, "\n"))
	for _, line := range lines[1 : len(lines)-1] {
		var l struct {
			Kind    string `json:"kind"`
			Event   string `json:"event"`
			Replica *int   `json:"replica"`
		}
		require.NoError(t, json.Unmarshal([]byte(line), &l))
		assert.True(t, l.Event == "status" || l.Event == "commit" || l.Kind == "crash", line)
		require.NotNil(t, l.Replica, line)
		assert.Equal(t, 0, *l.Replica, line)
	}
	var trailer struct {
		Kind    string `json:"kind"`
		Written int    `json:"lines_written"`
	}
	require.NoError(t, json.Unmarshal([]byte(lines[len(lines)-1]), &trailer))
	assert.Equal(t, "trailer", trailer.Kind)
	assert.Equal(t, len(lines)-2, trailer.Written)
}
