package sweep_test

import (
	"context"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"vsrsim/sim"
	"vsrsim/sweep"
)

// richRun is fakeRun with what a resumed summary must carry over: recovery
// ticks, unrecoverable runs with rules, and marks-free counts.
func richRun(seed uint64) (sim.Result, error) {
	if seed%5 == 0 {
		rule := "no-voters"
		if seed%10 == 0 {
			rule = "storage-beyond-f"
		}
		return sim.Result{Seed: seed, Verdict: sim.VerdictUnrecoverable, Rule: rule, Events: seed}, nil
	}
	res, err := fakeRun(seed)
	res.RecoveryTicks, res.Committed = seed*10, seed
	return res, err
}

// tickingClock advances a second each time it is read, from any goroutine:
// a budget of n+0.5 seconds lets exactly the reads after the start up to n
// pass, whatever the machine's speed.
func tickingClock() func() time.Time {
	var reads atomic.Int64
	base := time.Unix(1_000_000, 0)
	return func() time.Time { return base.Add(time.Duration(reads.Add(1)-1) * time.Second) }
}

// comparable drops what a wall clock measures, which differs from sweep to
// sweep.
func comparable(st sweep.State) sweep.State {
	st.Wall, st.SlowestWall, st.Slowest = 0, 0, sweep.SeedAt{}
	return st
}

// TestBudgetResumeCoversOnce: a sweep stopped by its budget and resumed
// twice from where it stopped covers exactly the seeds of one sweep, each
// once, in order, and ends with the same counts.
func TestBudgetResumeCoversOnce(t *testing.T) {
	rng := sweep.Range{First: 1, Count: 40, Shard: 1, ShardN: 2}
	wantOut, want := collect(t, context.Background(), sweep.Options{Range: rng, Jobs: 2}, richRun)
	require.False(t, want.Expired)
	require.Equal(t, rng.Len(), want.Next)
	require.NotEmpty(t, want.UnrecoverableRules)

	var got []sweep.Outcome
	var prior sweep.State
	from := uint64(0)
	for session := 0; session < 3; session++ {
		opts := sweep.Options{Range: rng, Jobs: 1, From: from, Prior: prior}
		if session < 2 {
			// The budget is read once at the start and once before each
			// seed after the first: 3.5 s lets four seeds start.
			opts.Budget, opts.Now = 3500*time.Millisecond, tickingClock()
		}
		out, sum := collect(t, context.Background(), opts, richRun)
		assert.Equal(t, from, sum.From)
		if session < 2 {
			assert.True(t, sum.Expired, "session %d stopped by its budget", session)
			assert.False(t, sum.Interrupted)
			assert.Equal(t, from+4, sum.Next, "session %d ran four seeds", session)
		} else {
			assert.False(t, sum.Expired)
			assert.Equal(t, rng.Len(), sum.Next)
		}
		got = append(got, out...)
		from, prior = sum.Next, sum.State()
		require.NoError(t, prior.Validate())
	}
	assert.Equal(t, seedsOf(wantOut), seedsOf(got), "every seed once, in order")
	assert.Equal(t, comparable(want.State()), comparable(prior))
}

// TestBudgetAlwaysStartsOneSeed: a budget already spent still runs the first
// seed, so a sweep resumed under any budget makes progress; the runs in
// flight when it expires finish and are delivered.
func TestBudgetAlwaysStartsOneSeed(t *testing.T) {
	for _, jobs := range []int{1, 4} {
		out, sum := collect(t, context.Background(), sweep.Options{
			Range: sweep.Range{First: 1, Count: 10}, Jobs: jobs, From: 3, Budget: time.Nanosecond, Now: tickingClock(),
		}, richRun)
		require.NotEmpty(t, out)
		assert.Equal(t, uint64(4), out[0].Seed, "index 3 is seed 4")
		assert.Equal(t, sum.Next-3, uint64(len(out)), "a prefix with no gap")
		assert.True(t, sum.Expired)
	}
}

// TestStateValidate refuses counts no sweep writes.
func TestStateValidate(t *testing.T) {
	_, sum := collect(t, context.Background(), sweep.Options{Range: sweep.Range{First: 1, Count: 30}, Jobs: 1}, richRun)
	good := sum.State()
	require.NoError(t, good.Validate())
	for name, spoil := range map[string]func(*sweep.State){
		"runs":          func(st *sweep.State) { st.Runs++ },
		"verdict":       func(st *sweep.State) { st.Failed["pass"] = 1; st.Passed-- },
		"rules":         func(st *sweep.State) { st.UnrecoverableRules["no-voters"]++ },
		"first failure": func(st *sweep.State) { st.FirstFailure = nil },
		"mark":          func(st *sweep.State) { st.Marks = map[string]uint64{"no-such-mark": 1} },
	} {
		t.Run(name, func(t *testing.T) {
			st := sum.State()
			spoil(&st)
			assert.Error(t, st.Validate())
		})
	}
}

// TestResumeAfterMaxFailures: a sweep resumed from one stopped at
// MaxFailures runs nothing more, as the one sweep would not have.
func TestResumeAfterMaxFailures(t *testing.T) {
	rng := sweep.Range{First: 1, Count: 30}
	_, first := collect(t, context.Background(), sweep.Options{Range: rng, Jobs: 2, MaxFailures: 2}, richRun)
	require.True(t, first.Stopped)
	out, again := collect(t, context.Background(), sweep.Options{Range: rng, Jobs: 2, MaxFailures: 2, From: first.Next, Prior: first.State()}, richRun)
	assert.Empty(t, out)
	assert.True(t, again.Stopped)
	assert.Equal(t, first.Next, again.Next)
	assert.Equal(t, comparable(first.State()), comparable(again.State()))
}
