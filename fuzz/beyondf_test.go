package fuzz

import (
	"context"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"vsrsim/prng"
	"vsrsim/scenarios/vsrfile"
	"vsrsim/sim"
)

// TestCrashesBeyondFIsARareDraw: a mutated child says `crashes beyond-f` in
// about 1 of CrashesBeyondFOneIn draws, whatever its parent said (a parent's
// setting is not inherited), and names the draw among its operators.
func TestCrashesBeyondFIsARareDraw(t *testing.T) {
	parent, other := recorded(t, 42), recorded(t, 43)
	f, err := vsrfile.Parse(parent.in.File)
	require.NoError(t, err)
	f.Set(vsrfile.Setting{Key: "crashes", Args: []string{"beyond-f"}})
	beyondParent := &entry{in: Input{Seed: parent.in.Seed, File: vsrfile.Format(f)}, shape: parent.shape}
	rng := prng.New(3, prng.StreamFuzz)
	const children = 2000
	for _, p := range []*entry{parent, beyondParent} {
		drawn := 0
		for i := 0; i < children; i++ {
			child := mutate(rng, p, other)
			says := strings.Contains(string(child.File), "\ncrashes beyond-f\n")
			assert.Equal(t, says, strings.Contains(child.Op, "crashes-beyond-f"), child.Op)
			if says {
				drawn++
			}
		}
		want := children / CrashesBeyondFOneIn
		assert.InDelta(t, want, drawn, float64(want)/2, "1 in %d children, not inherited", CrashesBeyondFOneIn)
	}
}

// TestSummaryCountsUnrecoverableByRule: every unrecoverable run is counted
// under the rule that excused it, and the counts add up.
func TestSummaryCountsUnrecoverableByRule(t *testing.T) {
	var seen []Outcome
	sum := Run(context.Background(), Options{Budget: 96, Seed: 1, Jobs: 2, Run: func(cfg sim.Config, at sim.Attach) (sim.Result, error) {
		// Every third run excused under one of two rules, so the count
		// does not hang on how often the search meets one.
		res, err := sim.Run(cfg, at)
		if cfg.Seed%3 == 0 {
			res.Verdict, res.Rule = sim.VerdictUnrecoverable, []string{"too-few-up", "no-voters"}[cfg.Seed%2]
		}
		return res, err
	}, Deliver: func(o Outcome) { seen = append(seen, o) }})
	by := map[string]int{}
	beyond := 0
	for _, o := range seen {
		if o.Err == nil && o.Result.Verdict == sim.VerdictUnrecoverable {
			by[o.Result.Rule]++
		}
		if o.Result.CrashesBeyondF {
			beyond++
		}
	}
	require.NotEmpty(t, by)
	assert.Equal(t, by, sum.UnrecoverableBy)
	total := 0
	for _, n := range sum.UnrecoverableBy {
		total += n
	}
	assert.Equal(t, sum.Unrecoverable, total)
	assert.Equal(t, beyond, sum.BeyondF)
}

// TestChildWithOtherCrashesRedrawsItsCore: a recorded core was drawn for the
// recorded crashes, so a child whose crashes or restarts differ from its
// parent's lets the run draw its core (and drops the liveness cuts and
// cut-offs recorded for the old core's outsiders, keeping keep-faults); a
// child with its parent's crashes keeps the parent's core.
func TestChildWithOtherCrashesRedrawsItsCore(t *testing.T) {
	parent, other := recorded(t, 42), recorded(t, 43)
	f, err := vsrfile.Parse(parent.in.File)
	require.NoError(t, err)
	f.Set(vsrfile.Setting{Key: "core", Args: []string{"0", "1"}})
	f.Set(vsrfile.Setting{Key: "liveness", Args: []string{"keep-faults", "cut", "2->0", "isolate", "2"}})
	p := &entry{in: Input{Seed: parent.in.Seed, File: vsrfile.Format(f)}, shape: parent.shape}
	rng := prng.New(5, prng.StreamFuzz)
	redrawn, kept := 0, 0
	for i := 0; i < 200; i++ {
		child := mutate(rng, p, other)
		tree, err := vsrfile.Parse(child.File)
		require.NoError(t, err)
		_, hasCore := tree.Lookup("core")
		live, _ := tree.Lookup("liveness")
		if crashSchedule(tree) == crashSchedule(f) {
			assert.True(t, hasCore, "%s: same crashes, same core", child.Op)
			kept++
			continue
		}
		redrawn++
		assert.False(t, hasCore, "%s: other crashes, a recorded core", child.Op)
		require.NotNil(t, live, child.Op)
		assert.Equal(t, []string{"keep-faults"}, live.Args, child.Op)
	}
	assert.Positive(t, redrawn)
	assert.Positive(t, kept)
}
