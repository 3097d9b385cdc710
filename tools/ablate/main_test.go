package main

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"vsrsim/sim/settings"
)

const sample = `# verdict: liveness (invariant liveness)
# protocol robust, in a comment, is no protocol line
seed 7
core 1 2
liveness isolate 0
liveness-ticks 30000
protocol svc-quorum-off,abdication-off,prepare-repair-off
at 42 cut 0 -> 2
`

func TestProtocolOptions(t *testing.T) {
	tests := []struct {
		name, text string
		want       []string
	}{
		{"commas", sample, []string{"svc-quorum-off", "abdication-off", "prepare-repair-off"}},
		{"spaces and commas", "protocol backoff-off abdication-off,source-transfer\n", []string{"backoff-off", "abdication-off", "source-transfer"}},
		{"repeated lines add up, once each", "protocol a,b\nprotocol b,c\n", []string{"a", "b", "c"}},
		{"robust names none", "protocol robust\n", nil},
		{"no line", "seed 1\n", nil},
		{"comment after the value", "protocol a # the source\n", []string{"a"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			assert.Equal(t, tc.want, protocolOptions(tc.text))
		})
	}
}

// Each removal rewrites the protocol line alone; the last one removed
// leaves the robust protocol.
func TestWithProtocolForEachRemoval(t *testing.T) {
	opts := protocolOptions(sample)
	tests := []struct {
		drop, line string
	}{
		{"svc-quorum-off", "protocol abdication-off,prepare-repair-off"},
		{"abdication-off", "protocol svc-quorum-off,prepare-repair-off"},
		{"prepare-repair-off", "protocol svc-quorum-off,abdication-off"},
	}
	for _, tc := range tests {
		t.Run(tc.drop, func(t *testing.T) {
			got := withProtocol(sample, without(opts, tc.drop))
			want := strings.Replace(sample, "protocol svc-quorum-off,abdication-off,prepare-repair-off", tc.line, 1)
			assert.Equal(t, want, got)
		})
	}
	assert.Equal(t, []string{"svc-quorum-off", "abdication-off", "prepare-repair-off"}, opts, "without must not touch its input")
}

func TestWithProtocol(t *testing.T) {
	tests := []struct {
		name, text string
		opts       []string
		want       string
	}{
		{"last option removed", "seed 1\nprotocol backoff-off\nticks 9\n", nil, "seed 1\nprotocol robust\nticks 9\n"},
		{"a comment kept", "protocol a,b # why\n", []string{"b"}, "protocol b # why\n"},
		{"later lines go", "protocol a\nseed 1\nprotocol b\n", []string{"b"}, "protocol b\nseed 1\n"},
		{"no line: robust already", "seed 1\n", nil, "seed 1\n"},
		{"no final newline", "protocol a", nil, "protocol robust"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			assert.Equal(t, tc.want, withProtocol(tc.text, tc.opts))
		})
	}
}

func TestDropHelp(t *testing.T) {
	tests := []struct {
		name, text, want string
	}{
		{"isolate", "core 1 2\nliveness isolate 0\nticks 9\n", "core 1 2\nticks 9\n"},
		{"cut", "liveness cut 2->0 2->1\n", ""},
		{"heal", "liveness heal 2\n", ""},
		{"cut and isolate on one line", "liveness cut 0->1 0->2 isolate 0\nseed 1\n", "seed 1\n"},
		{"keep-faults stays", "liveness keep-faults cut 2->0 isolate 0\n", "liveness keep-faults\n"},
		{"keep-faults after the help", "liveness isolate 0 keep-faults # recorded\n", "liveness keep-faults # recorded\n"},
		{"no help", "liveness off\nliveness-ticks 30000\nliveness keep-faults\n", "liveness off\nliveness-ticks 30000\nliveness keep-faults\n"},
		{"a comment naming help", "# liveness isolate 0\n", "# liveness isolate 0\n"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			assert.Equal(t, tc.want, dropHelp(tc.text))
		})
	}
}

func TestRobustText(t *testing.T) {
	got := robustText(sample)
	assert.Contains(t, got, "\nprotocol robust\n")
	assert.NotContains(t, got, "liveness isolate")
	assert.Contains(t, got, "at 42 cut 0 -> 2\n", "the schedule's own cuts stay")
	assert.Contains(t, got, "liveness-ticks 30000\n")
	assert.Equal(t, "liveness", recordedVerdict(got), "the header stays")
}

func TestRecordedVerdict(t *testing.T) {
	assert.Equal(t, "liveness", recordedVerdict(sample))
	assert.Equal(t, "safety", recordedVerdict("# a\n# verdict: safety (invariant durability)\nseed 1\n"))
	assert.Equal(t, "", recordedVerdict("seed 1\n"))
}

var (
	pass     = outcome{Verdict: "pass"}
	liveness = outcome{Verdict: "liveness"}
)

// res builds a result: opts in file order, and the verdict without each.
func res(name string, opts []string, without map[string]outcome) result {
	return result{finding: finding{name: name, opts: opts, recorded: "liveness"}, asIs: liveness, without: without, robust: pass}
}

func TestNecessary(t *testing.T) {
	tests := []struct {
		name string
		r    result
		want []string
	}{
		{"each alone", res("a", []string{"abdication-off", "svc-quorum-off"},
			map[string]outcome{"abdication-off": pass, "svc-quorum-off": pass}),
			[]string{"svc-quorum-off", "abdication-off"}},
		{"one of three", res("b", []string{"svc-quorum-off", "abdication-off", "prepare-repair-off"},
			map[string]outcome{"svc-quorum-off": liveness, "abdication-off": pass, "prepare-repair-off": {Verdict: "unrecoverable"}}),
			[]string{"abdication-off"}},
		{"none alone", res("c", []string{"backoff-off"}, map[string]outcome{"backoff-off": liveness}), nil},
		{"a run that did not run is no pass", res("d", []string{"backoff-off"}, map[string]outcome{"backoff-off": {Err: "boom"}}), nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			assert.Equal(t, tc.want, tc.r.necessary())
		})
	}
}

func TestMoved(t *testing.T) {
	r := res("a", nil, nil)
	assert.Equal(t, "", r.moved())
	r.asIs = pass
	assert.Equal(t, "passes as is", r.moved())
	r.asIs = outcome{Verdict: "safety"}
	assert.Equal(t, "fails as safety, recorded as liveness", r.moved())
	r.recorded = ""
	assert.Equal(t, "", r.moved(), "with no recorded verdict any failure still stands")
}

func TestSummarize(t *testing.T) {
	both := map[string]outcome{"svc-quorum-off": pass, "abdication-off": pass}
	results := []result{
		res("a", []string{"svc-quorum-off", "abdication-off"}, both),
		res("b", []string{"abdication-off", "svc-quorum-off"}, both), // the same set, listed the other way
		res("c", []string{"backoff-off"}, map[string]outcome{"backoff-off": pass}),
		res("d", []string{"backoff-off"}, map[string]outcome{"backoff-off": liveness}),
		res("e", []string{"abdication-off"}, map[string]outcome{"abdication-off": pass}),
		res("robust", nil, nil), // nothing to ablate: not counted
	}
	assert.Equal(t, []setRow{
		{set: []string{"svc-quorum-off", "abdication-off"}, files: 2},
		{set: []string{"abdication-off"}, files: 1},
		{set: []string{"backoff-off"}, files: 1},
		{set: nil, files: 1},
	}, summarize(results))

	c := countOption(results, "abdication-off")
	assert.Equal(t, 3, c.set)
	assert.Equal(t, 3, c.needed)
	assert.Equal(t, 1, c.alone)
}

func TestCell(t *testing.T) {
	r := res("a", []string{"svc-quorum-off", "abdication-off", "prepare-repair-off"},
		map[string]outcome{"svc-quorum-off": pass, "abdication-off": liveness, "prepare-repair-off": {Verdict: "unrecoverable"}})
	tests := []struct{ opt, want string }{
		{"svc-quorum-off", "needed"},
		{"abdication-off", "not needed"},
		{"prepare-repair-off", "not needed (unrecoverable)"},
		{"backoff-off", ""},
	}
	for _, tc := range tests {
		assert.Equal(t, tc.want, cell(r, tc.opt), tc.opt)
	}
}

// A robust variant that fails is named before the summary, and a file no
// single removal passes gets its line.
func TestRenderPutsRobustFindingsFirst(t *testing.T) {
	bad := res("bad.vsr", []string{"backoff-off"}, map[string]outcome{"backoff-off": pass})
	bad.robust = outcome{Verdict: "liveness", Evidence: "view climbed 3 -> 9"}
	stuck := res("stuck.vsr", []string{"svc-quorum-off", "abdication-off"},
		map[string]outcome{"svc-quorum-off": liveness, "abdication-off": liveness})
	stuck.helpKept = &pass
	out := render([]result{bad, stuck})
	summary := strings.Index(out, "## Summary")
	require.Positive(t, summary)
	finding := strings.Index(out, "**`bad.vsr`**")
	require.Positive(t, finding)
	assert.Less(t, finding, summary)
	assert.Contains(t, out, "`stuck.vsr` (`svc-quorum-off,abdication-off`): no single removal passes; with every option removed (help lines kept) it passes")
	assert.Contains(t, out, "| `bad.vsr` | backoff-off | liveness |  |  | needed | **liveness** |")
}

// Every option the simulator knows has its paragraph, in the simulator's
// order: a new option cannot reach the report unexplained.
func TestEveryOptionHasARule(t *testing.T) {
	var names []string
	for _, o := range options {
		names = append(names, o.name)
		assert.NotEmpty(t, o.rule, o.name)
		assert.True(t, strings.HasPrefix(o.rule, "Brings back"), "%s: a rule says what the option brings back", o.name)
	}
	assert.Equal(t, settings.ProtocolWords(), names)
}

// TestRobustFails: a robust variant that fails liveness or safety is a
// finding of the robust protocol; one that ends unrecoverable (the oracle's
// proven excuse, exit 0) or could not run is not.
func TestRobustFails(t *testing.T) {
	for _, tc := range []struct {
		robust outcome
		fails  bool
	}{
		{outcome{Verdict: "pass"}, false},
		{outcome{Verdict: "unrecoverable"}, false},
		{outcome{Verdict: "liveness"}, true},
		{outcome{Verdict: "safety"}, true},
		{outcome{Err: "exit 65"}, false},
	} {
		assert.Equal(t, tc.fails, result{robust: tc.robust}.robustFails(), "%+v", tc.robust)
	}
}
