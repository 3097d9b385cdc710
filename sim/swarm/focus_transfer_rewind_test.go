package swarm

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"vsrsim/replica"
	"vsrsim/sim"
)

// inTransferRewindFocus reports whether a seed falls in one of the slices
// focusTransferRewind owns, and which of its three.
func inTransferRewindFocus(seed uint64) (uint64, bool) {
	f, k := SeedFocus(seed)
	return k, f == "transfer-rewind"
}

// TestFocusTransferRewindDraw: every seed of the focus is a valid cluster of
// the shape's conditions (three replicas on memory journals, a 64-slot ring,
// crashes aimed at the primary and nothing else crashing), the robust
// protocol in two of its slices and the source protocol with a bare core in
// the third.
func TestFocusTransferRewindDraw(t *testing.T) {
	seen := map[uint64]int{}
	for seed := uint64(1); seed <= 2000; seed++ {
		slice, ok := inTransferRewindFocus(seed)
		if !ok {
			continue
		}
		seen[slice]++
		c := Config(seed)
		require.NoError(t, c.Validate(), "seed %d", seed)
		assert.Equal(t, 3, c.Replicas, "seed %d", seed)
		assert.Equal(t, replica.DurabilityMemory, c.Durability, "seed %d", seed)
		assert.Equal(t, 64, c.JournalSlots, "seed %d", seed)
		assert.True(t, c.CrashChance.Zero(), "seed %d", seed)
		assert.False(t, c.Aimed.CrashChance.Zero(), "seed %d", seed)
		assert.True(t, c.Aimed.CrashPeers, "seed %d", seed)
		assert.Empty(t, c.ExtraDelays, "seed %d", seed)
		source := slice == 2
		assert.Equal(t, source, c.Protocol.SVCQuorumOff, "seed %d", seed)
		assert.Equal(t, source, c.Protocol.PrepareRepairOff, "seed %d: the source's gap check with it", seed)
		assert.Equal(t, source, c.BareCore, "seed %d", seed)
	}
	for slice := uint64(0); slice < 3; slice++ {
		assert.Greater(t, seen[slice], 10, "seeds in slice %d", slice)
	}
}

// TestFocusTransferRewindFinds: seeds of the focus, one per slice, fail
// with transfer-rewinds-sequencer as the shape does (votes dropped as
// unreadable, the core stuck in view change) and pass without it. The
// protocol model (docs/spec.md) catches the defect earlier, at whichever of
// its steps the schedule reaches first: the rewinding install that leaves
// committed ops unapplied (commit_walk) or the rewound vote (suffix_readable,
// vote_keeps_acks); the shape is judged with the model off. (51, 124 and 43
// until D114's one-round-trip transfers moved their schedules: the model
// still catches them, the outcome checks no longer; 656 for slice 0 until
// D120's prepare bound moved it: the outcome checks judge it a view climb.)
func TestFocusTransferRewindFinds(t *testing.T) {
	for _, seed := range []uint64{73, 5, 1170} {
		_, ok := inTransferRewindFocus(seed)
		require.True(t, ok, "seed %d is outside the focus", seed)
		c := Config(seed)
		res, err := sim.Run(c, sim.Attach{})
		require.NoError(t, err, "seed %d", seed)
		assert.Equal(t, sim.VerdictPass, res.Verdict, "seed %d without the switch: %s", seed, res.Evidence)

		bugs, err := replica.ParseBugs([]string{"transfer-rewinds-sequencer"})
		require.NoError(t, err)
		c.Bugs = bugs
		res, err = sim.Run(c, sim.Attach{})
		require.NoError(t, err, "seed %d", seed)
		assert.Equal(t, sim.VerdictSafety, res.Verdict, "seed %d with the switch, the model on", seed)
		assert.Contains(t, []string{"spec/commit_walk", "spec/suffix_readable", "spec/vote_keeps_acks"}, res.Invariant,
			"seed %d: %s", seed, res.Evidence)
		c.SpecOff = true
		res, err = sim.Run(c, sim.Attach{})
		require.NoError(t, err, "seed %d", seed)
		assert.Equal(t, sim.VerdictLiveness, res.Verdict, "seed %d with the switch", seed)
		assert.Contains(t, res.Evidence, "DoViewChange votes dropped as unreadable", "seed %d", seed)
	}
}
