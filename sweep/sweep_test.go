package sweep_test

import (
	"context"
	"errors"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"vsrsim/sim"
	"vsrsim/sim/check/linearize"
	"vsrsim/sweep"
)

// fakeRun fails every seed divisible by 3 (liveness) or 7 (safety), panics on
// seeds divisible by 11 and errors on seed 13.
func fakeRun(seed uint64) (sim.Result, error) {
	switch {
	case seed%11 == 0:
		panic("boom")
	case seed == 13:
		return sim.Result{}, errors.New("bad config")
	case seed%7 == 0:
		return sim.Result{Seed: seed, Verdict: sim.VerdictSafety, Events: seed}, nil
	case seed%3 == 0:
		return sim.Result{Seed: seed, Verdict: sim.VerdictLiveness, Events: seed}, nil
	}
	return sim.Result{Seed: seed, Verdict: sim.VerdictPass, Events: seed}, nil
}

func collect(t *testing.T, ctx context.Context, opts sweep.Options, run sweep.RunFunc) ([]sweep.Outcome, sweep.Summary) {
	t.Helper()
	var got []sweep.Outcome
	sum := sweep.Run(ctx, opts, run, func(o sweep.Outcome) { got = append(got, o) })
	return got, sum
}

func seedsOf(os []sweep.Outcome) []uint64 {
	out := make([]uint64, len(os))
	for i, o := range os {
		out[i] = o.Seed
	}
	return out
}

// TestOrderIndependentOfJobs: one worker or many, outcomes come back in seed
// order with the same verdicts, and the summary counts agree.
func TestOrderIndependentOfJobs(t *testing.T) {
	opts := sweep.Options{Range: sweep.Range{First: 1, Count: 60}}
	var want []sweep.Outcome
	var wantSum sweep.Summary
	for _, jobs := range []int{1, 2, 4, 8} {
		opts.Jobs = jobs
		got, sum := collect(t, context.Background(), opts, fakeRun)
		require.Len(t, got, 60)
		for i, o := range got {
			assert.Equal(t, uint64(i+1), o.Seed, "jobs %d: seed order", jobs)
		}
		if want == nil {
			want, wantSum = got, sum
			continue
		}
		for i := range got {
			assert.Equal(t, want[i].Result.Verdict, got[i].Result.Verdict, "jobs %d seed %d", jobs, got[i].Seed)
		}
		assert.Equal(t, wantSum.Failed, sum.Failed)
		assert.Equal(t, wantSum.Passed, sum.Passed)
		assert.Equal(t, wantSum.Events, sum.Events)
	}
}

// TestOutOfOrderCompletion forces later seeds to finish first: delivery still
// waits for seed order.
func TestOutOfOrderCompletion(t *testing.T) {
	release := make(chan struct{})
	var once sync.Once
	run := func(seed uint64) (sim.Result, error) {
		if seed == 1 {
			<-release // seed 1 finishes last
		} else if seed == 4 {
			once.Do(func() { close(release) })
		}
		return sim.Result{Seed: seed, Verdict: sim.VerdictPass}, nil
	}
	got, sum := collect(t, context.Background(), sweep.Options{Range: sweep.Range{First: 1, Count: 4}, Jobs: 4}, run)
	assert.Equal(t, []uint64{1, 2, 3, 4}, seedsOf(got))
	assert.Equal(t, uint64(4), sum.Passed)
}

// TestPanicIsACrashFinding: a run that panics is reported as a crash for its
// seed, and the sweep goes on.
func TestPanicIsACrashFinding(t *testing.T) {
	got, sum := collect(t, context.Background(), sweep.Options{Range: sweep.Range{First: 10, Count: 4}, Jobs: 2}, fakeRun)
	require.Len(t, got, 4)
	assert.Equal(t, sim.VerdictCrash, got[1].Result.Verdict, "seed 11 panicked")
	assert.Contains(t, got[1].Result.Evidence, "boom")
	assert.Equal(t, uint64(11), got[1].Result.Seed)
	assert.Error(t, got[3].Err, "seed 13 returned an error")
	assert.Equal(t, uint64(1), sum.Failed[sim.VerdictCrash])
	assert.Equal(t, uint64(1), sum.Errors)
	assert.Equal(t, uint64(4), sum.Runs)
}

// TestMaxFailures stops after the first N findings in seed order, the same
// findings whatever the number of jobs.
func TestMaxFailures(t *testing.T) {
	for _, jobs := range []int{1, 3} {
		got, sum := collect(t, context.Background(), sweep.Options{Range: sweep.Range{First: 1, Count: 100}, Jobs: jobs, MaxFailures: 2}, fakeRun)
		assert.Equal(t, []uint64{1, 2, 3, 4, 5, 6}, seedsOf(got), "jobs %d", jobs)
		assert.True(t, sum.Stopped)
		assert.False(t, sum.Interrupted)
		require.NotNil(t, sum.FirstFailure)
		assert.Equal(t, uint64(3), sum.FirstFailure.Seed)
	}
}

// TestCancelKeepsCompletedPrefix: a cancelled sweep delivers what completed, in
// order, and says it was interrupted.
func TestCancelKeepsCompletedPrefix(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	run := func(seed uint64) (sim.Result, error) {
		if seed == 5 {
			cancel()
		}
		return sim.Result{Seed: seed, Verdict: sim.VerdictPass}, nil
	}
	got, sum := collect(t, ctx, sweep.Options{Range: sweep.Range{First: 1, Count: 1000}, Jobs: 1}, run)
	assert.Equal(t, []uint64{1, 2, 3, 4, 5}, seedsOf(got))
	assert.True(t, sum.Interrupted)
}

// TestShardsCoverTheRangeOnce: shards 0..N-1 run every seed of the range
// exactly once between them.
func TestShardsCoverTheRangeOnce(t *testing.T) {
	for _, n := range []uint64{1, 2, 3, 7} {
		seen := map[uint64]int{}
		for i := uint64(0); i < n; i++ {
			r := sweep.Range{First: 100, Count: 50, Shard: i, ShardN: n}
			require.NoError(t, r.Validate())
			for k := uint64(0); k < r.Len(); k++ {
				seen[r.Seed(k)]++
			}
		}
		assert.Len(t, seen, 50, "shards of %d", n)
		for s, c := range seen {
			assert.Equal(t, 1, c, "seed %d", s)
			assert.True(t, s >= 100 && s < 150)
		}
	}
	assert.Error(t, sweep.Range{First: 1, Count: 10, Shard: 3, ShardN: 2}.Validate())
	assert.Error(t, sweep.Range{First: 1, Count: 0}.Validate())
	assert.Equal(t, uint64(0), sweep.Range{First: 1, Count: 2, Shard: 2, ShardN: 3}.Len())
}

// TestCoverage counts the runs that exercised each mechanism.
func TestCoverage(t *testing.T) {
	run := func(seed uint64) (sim.Result, error) {
		r := sim.Result{Seed: seed, Verdict: sim.VerdictPass}
		if seed%2 == 0 {
			r.Stats.ViewChanges = 3
		}
		if seed%5 == 0 {
			r.Stats.StateTransfers = 1
		}
		return r, nil
	}
	_, sum := collect(t, context.Background(), sweep.Options{Range: sweep.Range{First: 1, Count: 10}, Jobs: 2}, run)
	assert.Equal(t, uint64(5), sum.Coverage.ViewChanges)
	assert.Equal(t, uint64(2), sum.Coverage.StateTransfers)
	assert.Zero(t, sum.Coverage.Restarts)
}

// TestLinearizabilityUnknownCounted: runs whose linearizability check
// answered unknown are counted, whatever their verdict, and only they.
func TestLinearizabilityUnknownCounted(t *testing.T) {
	run := func(seed uint64) (sim.Result, error) {
		res := sim.Result{Seed: seed, Verdict: sim.VerdictPass, Linearizability: linearize.Linearizable}
		switch seed % 4 {
		case 1:
			res.Linearizability = linearize.Unknown
		case 2:
			res.Verdict, res.Linearizability = sim.VerdictUnrecoverable, linearize.Unknown
		case 3:
			res.Verdict, res.Linearizability = sim.VerdictSafety, linearize.NotLinearizable
		}
		return res, nil
	}
	_, sum := collect(t, context.Background(), sweep.Options{Range: sweep.Range{First: 1, Count: 10}, Jobs: 2}, run)
	assert.Equal(t, uint64(6), sum.LinearizabilityUnknown, "seeds 1, 2, 5, 6, 9, 10")
	assert.Equal(t, uint64(8), sum.Passed)
}
