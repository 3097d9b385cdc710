package shrink

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"vsrsim/sim"
)

func TestParseRender(t *testing.T) {
	src := "# a comment\nreplicas 5\nloss 1/20\nat 300 crash 1 # why\nexpect liveness\nat 100 cut 0 -> 1\n"
	s, err := Parse([]byte(src))
	require.NoError(t, err)
	assert.Equal(t, "# h\nreplicas 5\nloss 1/20\nexpect liveness\nat 100 cut 0 -> 1\nat 300 crash 1\n", string(s.Render([]string{"h"})))
	v, ok := s.get("network loss")
	assert.True(t, ok)
	assert.Equal(t, "1/20", v, "a network setting given bare is found under its network key")
	s.set("network loss", "0")
	assert.Contains(t, string(s.Render(nil)), "\nnetwork loss 0\n")
	assert.NotContains(t, string(s.Render(nil)), "1/20", "set replaces")

	_, err = Parse([]byte("at x crash 1\n"))
	assert.Error(t, err)
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
	} {
		s, err := Parse([]byte("core 0 3\nat 5 " + tc.in + "\n"))
		require.NoError(t, err)
		got := s.without(3, 2)
		core, _ := got.get("core")
		assert.Equal(t, "0", core)
		if tc.want == "" {
			assert.Empty(t, got.Actions, tc.in)
			continue
		}
		require.Len(t, got.Actions, 1, tc.in)
		assert.Equal(t, tc.want, got.Actions[0].Body, tc.in)
	}
}

// crashOf fails a run, as a stand-in bug would, iff replica 1 crashes at or
// after tick 200 with at least three replicas: the search must keep that
// crash alone, and no more.
func crashOf(cfg sim.Config) (sim.Result, error) {
	seen := &crashSink{}
	cfg.Observer = seen
	res, err := sim.Run(cfg, nil)
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
	s, err := Parse([]byte(src))
	require.NoError(t, err)
	out, err := Shrink(s, Options{Seed: 1, MaxRuns: 500, Run: crashOf})
	require.NoError(t, err)
	assert.Equal(t, Size{Actions: 6, Ticks: 3000, Replicas: 5, Clients: 3}, out.Before)
	require.Len(t, out.Script.Actions, 1)
	assert.Equal(t, "crash 1", out.Script.Actions[0].Body, "the one action the failure needs")
	assert.InDelta(t, 200, out.Script.Actions[0].At, 20, "moved close to the earliest tick that fails")
	assert.Equal(t, Size{Actions: 1, Ticks: out.Script.Actions[0].At, Replicas: 3, Clients: 1}, out.After)
	assert.False(t, out.BudgetExceeded)
	assert.Equal(t, sim.VerdictSafety, out.Result.Verdict)

	_, err = Shrink(s, Options{Seed: 1, MaxRuns: 500, Run: func(c sim.Config) (sim.Result, error) { return sim.Run(c, nil) }})
	assert.ErrorIs(t, err, ErrPasses)
}

// TestShrinkBudget: the search stops at MaxRuns and says so.
func TestShrinkBudget(t *testing.T) {
	s, err := Parse([]byte("replicas 5\nticks 3000\nliveness-ticks 0\nat 900 crash 1\nat 1000 crash 2\n"))
	require.NoError(t, err)
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
	needsSource := func(cfg sim.Config) (sim.Result, error) {
		res, err := crashOf(cfg)
		if !cfg.Protocol.SVCQuorumOff {
			res.Verdict, res.Invariant = sim.VerdictPass, ""
		}
		return res, err
	}
	for _, tc := range []struct {
		name     string
		run      func(sim.Config) (sim.Result, error)
		protocol bool
	}{{"needs neither", crashOf, false}, {"needs the source protocol", needsSource, true}} {
		t.Run(tc.name, func(t *testing.T) {
			s, err := Parse([]byte(src))
			require.NoError(t, err)
			out, err := Shrink(s, Options{Seed: 1, MaxRuns: 500, Run: tc.run})
			require.NoError(t, err)
			_, protocol := out.Script.get("protocol")
			_, liveness := out.Script.get("liveness")
			_, corrupt := out.Script.get("network corrupt")
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
		s, err := Parse([]byte("liveness " + in + "\n"))
		require.NoError(t, err)
		got, ok := s.without(3, 2).get("liveness")
		assert.Equal(t, want != "", ok, in)
		assert.Equal(t, want, got, in)
	}
}
