package outcome_test

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"vsrsim/outcome"
	"vsrsim/sim"
	"vsrsim/sim/check"
)

// TestTableMatchesSim: the table's names are sim's, its findings are the
// verdicts sim calls failed, and every verdict sim gives has a row.
func TestTableMatchesSim(t *testing.T) {
	names := map[sim.Verdict]string{
		sim.VerdictPass: outcome.Pass, sim.VerdictSafety: outcome.Safety, sim.VerdictLiveness: outcome.Liveness,
		sim.VerdictCrash: outcome.Crash, sim.VerdictUnrecoverable: outcome.Unrecoverable,
	}
	for v, name := range names {
		assert.Equal(t, string(v), name)
		assert.True(t, outcome.Known(name), name)
	}
	assert.Len(t, outcome.Table, len(names))
	for _, r := range outcome.Table {
		assert.Equal(t, sim.Verdict(r.Verdict).Failed(), r.Failed, r.Verdict)
	}
	assert.Equal(t, check.InvLinearizable, outcome.InvLinearizable)
	assert.Equal(t, sim.LivenessChecked, outcome.LivenessChecked)
	assert.Equal(t, sim.LivenessUnchecked, outcome.LivenessUnchecked)
}

// TestRunExitCode: a pass whose liveness was not judged exits 5 unless the
// run asked for it; every other verdict exits as ExitCode has it, and 2 stays
// unused.
func TestRunExitCode(t *testing.T) {
	for _, tc := range []struct {
		verdict, liveness string
		off               bool
		want              int
	}{
		{"pass", "checked", false, 0},
		{"pass", "unchecked", false, outcome.ExitUnchecked},
		{"pass", "unchecked", true, 0},
		{"unrecoverable", "checked", false, 0},
		{"safety", "unchecked", false, 1},
		{"liveness", "unchecked", false, 3},
		{"crash", "", false, 4},
	} {
		assert.Equal(t, tc.want, outcome.RunExitCode(tc.verdict, tc.liveness, tc.off), "%+v", tc)
	}
	assert.Equal(t, 5, outcome.ExitUnchecked)
	for _, code := range []int{outcome.ExitPass, outcome.ExitSafety, outcome.ExitLiveness, outcome.ExitCrash, outcome.ExitUnchecked,
		outcome.ExitUsage, outcome.ExitDataErr, outcome.ExitSoftware, outcome.ExitInterrupted} {
		assert.NotEqual(t, 2, code, "2 is the Go runtime's panic")
	}
}

func TestExitCode(t *testing.T) {
	for v, code := range map[string]int{"pass": 0, "unrecoverable": 0, "safety": 1, "liveness": 3, "crash": 4, "bogus": 70} {
		assert.Equal(t, code, outcome.ExitCode(v), v)
	}
}

// TestWorst: safety, then crash, then liveness.
func TestWorst(t *testing.T) {
	count := func(m map[string]uint64) func(string) uint64 { return func(v string) uint64 { return m[v] } }
	for _, tc := range []struct {
		counts map[string]uint64
		want   string
	}{
		{map[string]uint64{"liveness": 3, "crash": 1, "safety": 1}, "safety"},
		{map[string]uint64{"liveness": 3, "crash": 1}, "crash"},
		{map[string]uint64{"liveness": 3, "pass": 9}, "liveness"},
		{map[string]uint64{"pass": 9, "unrecoverable": 2}, ""},
	} {
		got, ok := outcome.Worst(count(tc.counts))
		assert.Equal(t, tc.want, got)
		assert.Equal(t, tc.want != "", ok)
	}
}

// Every rewrite the simulator makes is in the table, between verdicts the
// table knows; one it lacks is a bug and panics.
func TestRewrites(t *testing.T) {
	for _, r := range outcome.Rewrites {
		assert.True(t, outcome.Known(r.From) && outcome.Known(r.To), "%s -> %s", r.From, r.To)
		assert.NotEmpty(t, r.Why)
		assert.Equal(t, r.To, outcome.Rewritten(r.From, r.To))
	}
	assert.Panics(t, func() { outcome.Rewritten(outcome.Liveness, outcome.Unrecoverable) }, "a stall is excused at the stall, never rewritten")
	assert.Panics(t, func() { outcome.Rewritten(outcome.Crash, outcome.Unrecoverable) }, "no disk excuses a replica's own assertion")
}
