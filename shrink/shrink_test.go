package shrink

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"vsrsim/scenarios/vsrfile"
	"vsrsim/sim"
)

// parse reads a scenario file's syntax.
func parse(t *testing.T, text string) *vsrfile.File {
	t.Helper()
	f, err := vsrfile.Parse([]byte(text))
	require.NoError(t, err)
	return f
}

// body is an action as a file writes it, without its tick.
func body(a vsrfile.Action) string {
	f := vsrfile.Format(&vsrfile.File{Actions: []vsrfile.Action{a}})
	_, rest, _ := strings.Cut(strings.TrimSuffix(string(f), "\n")[len("at "):], " ")
	return rest
}

// TestEdits: a network setting given bare is found under its network key,
// and set replaces it, last, in the network form.
func TestEdits(t *testing.T) {
	s := parse(t, "# a comment\nseed 3\nreplicas 5\nloss 1/20\nat 300 crash 1 # why\nexpect liveness\nat 100 cut 0 -> 1\n")
	v, ok := get(s, "network loss")
	assert.True(t, ok)
	assert.Equal(t, "1/20", v)
	c := source(s)
	set(c, "network loss", "0")
	assert.Equal(t, "replicas 5\nexpect liveness\nnetwork loss 0\nat 100 cut 0 -> 1\nat 300 crash 1\n", string(vsrfile.Format(c)),
		"the search's tree has no comments or seed")
	assert.Contains(t, string(vsrfile.Format(s)), "\nloss 1/20\n", "the source is untouched")
}

// TestWithout: a smaller cluster drops the targets it lacks, and an action
// left with nothing to act on.
func TestWithout(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"crash 1 3", "crash 1"},
		{"crash 3", ""},
		{"cut 0 3 -> 1 4", "cut 0 -> 1"},
		{"cut 3 -> 4", ""},
		{"cut primary -> *", "cut primary -> *"},
		{"drop Commit 0 -> 4", ""},
		{"drop Commit 0 -> 1 4", "drop Commit 0 -> 1"},
		{"partition 0 | 1 3", "partition 0 | 1"},
		{"partition 0 | 3", ""},
		{"extra-delay 3:*=400", ""},
		{"extra-delay 1:*=400", "extra-delay 1:*=400"},
		{"cut c0 c2 -> 1", "cut c0 -> 1"},
		{"note r4 is slow", "note r4 is slow"},
		{"corrupt 3 op 2 body", ""},
		{"corrupt 1 superblock", "corrupt 1 superblock"},
		{"misdirect 4 op 2 -> op 3", ""},
		{"misdirect primary op 2 -> op 3", "misdirect primary op 2 -> op 3"},
	} {
		s := parse(t, "core 0 3\nat 5 "+tc.in+"\n")
		got := without(s, 3, 2)
		core, _ := get(got, "core")
		assert.Equal(t, "0", core)
		if tc.want == "" {
			assert.Empty(t, got.Actions, tc.in)
			continue
		}
		require.Len(t, got.Actions, 1, tc.in)
		assert.Equal(t, tc.want, body(got.Actions[0]), tc.in)
	}
}

// crashOf fails a run, as a stand-in bug would, iff replica 1 crashes at or
// after tick 200 with at least three replicas: the search must keep that
// crash alone, and no more.
func crashOf(cfg sim.Config, at sim.Attach) (sim.Result, error) {
	seen := &crashSink{}
	at.Observer = seen
	res, err := sim.Run(cfg, at)
	if err == nil && seen.crashed && cfg.Replicas >= 3 {
		res.Verdict, res.Invariant = sim.VerdictSafety, "stand-in"
	}
	return res, err
}

type crashSink struct{ crashed bool }

func (c *crashSink) Record(r *sim.Record) error {
	if r.Kind == "crash" && r.Node == 1 && r.Tick >= 200 {
		c.crashed = true
	}
	return nil
}

func TestShrinkKeepsWhatFails(t *testing.T) {
	src := "replicas 5\nclients 3\nticks 3000\nliveness-ticks 0\nloss 1/50\n" +
		"at 100 crash 0\nat 400 restart 0\nat 900 crash 1\nat 1000 crash 2\nat 1200 restart 2\nat 2000 cut 0 -> 1\n"
	s := parse(t, src)
	out, err := Shrink(s, Options{Seed: 1, MaxRuns: 500, Run: crashOf})
	require.NoError(t, err)
	assert.Equal(t, Size{Actions: 6, Ticks: 3000, Replicas: 5, Clients: 3}, out.Before)
	require.Len(t, out.Script.Actions, 1)
	assert.Equal(t, "crash 1", body(out.Script.Actions[0]), "the one action the failure needs")
	assert.InDelta(t, 200, out.Script.Actions[0].At, 20, "moved close to the earliest tick that fails")
	assert.Equal(t, Size{Actions: 1, Ticks: out.Script.Actions[0].At, Replicas: 3, Clients: 1}, out.After)
	assert.False(t, out.BudgetExceeded)
	assert.Equal(t, sim.VerdictSafety, out.Result.Verdict)

	_, err = Shrink(s, Options{Seed: 1, MaxRuns: 500, Run: sim.Run})
	assert.ErrorIs(t, err, ErrPasses)
}

// TestShrinkBudget: the search stops at MaxRuns and says so.
func TestShrinkBudget(t *testing.T) {
	s := parse(t, "replicas 5\nticks 3000\nliveness-ticks 0\nat 900 crash 1\nat 1000 crash 2\n")
	out, err := Shrink(s, Options{Seed: 1, MaxRuns: 3, Run: crashOf})
	require.NoError(t, err)
	assert.True(t, out.BudgetExceeded)
	assert.LessOrEqual(t, out.Runs, 3+3, "one candidate's seeds past the budget at most")
}

func TestHalve(t *testing.T) {
	for in, want := range map[string]string{"1/50": "1/100", "1/23 max=10": "1/46 max=10", "0": "", "1%": "", "off": ""} {
		got, ok := halve(in)
		assert.Equal(t, want != "", ok, in)
		assert.Equal(t, want, got, in)
	}
}

// TestShrinkRobust: a recorded file's source protocol and liveness cuts go
// when the failure needs neither, and stay when it needs them; corruption
// never set is not written as off.
func TestShrinkRobust(t *testing.T) {
	src := "replicas 3\nticks 3000\nliveness-ticks 0\nprotocol svc-quorum-off,backoff-off\nliveness cut 2->0 0->2\nat 900 crash 1\n"
	needsSource := func(cfg sim.Config, at sim.Attach) (sim.Result, error) {
		res, err := crashOf(cfg, at)
		if !cfg.Protocol.SVCQuorumOff {
			res.Verdict, res.Invariant = sim.VerdictPass, ""
		}
		return res, err
	}
	for _, tc := range []struct {
		name     string
		run      func(sim.Config, sim.Attach) (sim.Result, error)
		protocol bool
	}{{"needs neither", crashOf, false}, {"needs the source protocol", needsSource, true}} {
		t.Run(tc.name, func(t *testing.T) {
			s := parse(t, src)
			out, err := Shrink(s, Options{Seed: 1, MaxRuns: 500, Run: tc.run})
			require.NoError(t, err)
			_, protocol := get(out.Script, "protocol")
			_, liveness := get(out.Script, "liveness")
			_, corrupt := get(out.Script, "network corrupt")
			assert.Equal(t, tc.protocol, protocol)
			assert.False(t, liveness)
			assert.False(t, corrupt)
		})
	}
}

// TestWithoutLivenessCut: a smaller cluster keeps the liveness cuts among
// the replicas it has.
func TestWithoutLivenessCut(t *testing.T) {
	for in, want := range map[string]string{
		"cut 0->1 3->0 1->4":   "cut 0->1",
		"cut 3->4":             "",
		"keep-faults cut 2->3": "keep-faults",
		"keep-faults":          "keep-faults",
	} {
		got, ok := get(without(parse(t, "liveness "+in+"\n"), 3, 2), "liveness")
		assert.Equal(t, want != "", ok, in)
		assert.Equal(t, want, got, in)
	}
}
