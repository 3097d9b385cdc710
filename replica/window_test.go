package replica

import (
	"testing"
	"vsrsim/vsr"
	"vsrsim/vsr/vsrtest"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The DoViewChange window: a suffix holds at most SuffixMax headers, so a vote
// whose head lies more than a window above its commit point leaves a gap; the
// merge infers commitment below the window from the pipeline bound.

// boundedChain is a hash chain of n prepares whose headers respect the
// pipeline bound: each carries a commit point PipelineMax below it.
func boundedChain(n int) []vsr.Header {
	hs := make([]vsr.Header, n+1)
	parent := uint64(genesisChecksum)
	for op := 1; op <= n; op++ {
		h := vsr.Header{Op: uint64(op), Parent: parent, Timestamp: uint64(op), Body: put(uint32(op), uint64(op))}
		if op > vsr.PipelineMax {
			h.Commit = uint64(op - vsr.PipelineMax)
		}
		h.Seal()
		hs[op] = h
		parent = h.Checksum
	}
	return hs
}

func TestSuffixGap(t *testing.T) {
	hs := boundedChain(300)
	for _, tc := range []struct {
		name   string
		commit uint64
		suffix []vsr.SuffixEntry
		lo, hi uint64
		gap    bool
	}{
		{"window reaches down to the commit point", 173, suffixOf(hs, 300, 173), 0, 0, false},
		{"window ends right above the commit point", 172, suffixOf(hs, 300, 173), 0, 0, false},
		{"a short suffix is never cut", 10, suffixOf(hs, 100, 11), 0, 0, false},
		{"a full window above a low commit", 100, suffixOf(hs, 300, 173), 101, 172, true},
		{"a one-op gap", 171, suffixOf(hs, 300, 173), 172, 172, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			lo, hi, ok := suffixGap(tc.commit, tc.suffix)
			assert.Equal(t, tc.gap, ok)
			assert.Equal(t, tc.lo, lo)
			assert.Equal(t, tc.hi, hi)
		})
	}
}

// TestUnreadableVoteGapReason: an unreadable vote whose full window also
// leaves a gap above its commit point is dropped with its own reason, naming
// the vote's commit (Commit) and the window's bottom (Aux); one without a gap
// stays plain unreadable.
func TestUnreadableVoteGapReason(t *testing.T) {
	hs := boundedChain(300)
	for _, tc := range []struct {
		name   string
		op     uint64
		commit uint64
		suffix []vsr.SuffixEntry
		reason string
		aux    uint64
	}{
		{"head rewound below its window", 100, 100, suffixOf(hs, 300, 173), "dvc-gap", 173},
		{"head rewound inside its window", 250, 250, suffixOf(hs, 300, 250), "dvc-unreadable", 250},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r, out := electing(t, 1, 1, 3, 2)
			out.Reset()
			r.Step(committedVote(2, 1, tc.op, tc.commit, tc.suffix...), out)
			drops := eventsIn(out, vsr.EvDrop)
			require.Len(t, drops, 1)
			assert.Equal(t, tc.reason, drops[0].Dropped().Reason.String())
			assert.Equal(t, tc.aux, drops[0].Dropped().Detail)
			if tc.reason == "dvc-gap" {
				assert.Equal(t, tc.commit, drops[0].Dropped().Commit)
			}
			assert.False(t, r.vc.dvcs[2].valid, "the vote does not count")
			assert.False(t, r.vc.merged)
		})
	}
}

// TestMergeInfersCommitBelowWindow: a readable vote whose window does not
// reach its commit point is merged; everything below the window counts as
// committed, because the head's header proves (pipeline bound) that at most
// PipelineMax ops below it were uncommitted. A head header that breaks the
// bound fails the replica's assertion instead of being clamped.
func TestMergeInfersCommitBelowWindow(t *testing.T) {
	hs := boundedChain(300)
	r, out := electing(t, 1, 1, 3, 2)
	out.Reset()
	r.Step(committedVote(2, 1, 300, 100, suffixOf(hs, 300, 173)...), out)
	assert.Empty(t, eventsIn(out, vsr.EvDrop), "a readable vote with a gap is not dropped")
	require.True(t, r.vc.merged)
	assert.Equal(t, uint64(173), r.Info().CommitMax, "committed up to the window's bottom")
	assert.Equal(t, uint64(300), r.Info().Sequencer)
	assert.Empty(t, eventsIn(out, vsr.EvMergeTruncate))

	broken := boundedChain(300)
	broken[300].Commit = 0
	broken[300].Seal()
	r, out = electing(t, 1, 1, 3, 2)
	m := committedVote(2, 1, 300, 100, suffixOf(broken, 300, 173)...)
	v := vsrtest.ViolationOf(func() { r.Step(m, out) })
	require.NotNil(t, v, "the merge asserts the pipeline bound")
	assert.Equal(t, "pipeline_bound", v.Invariant)
	assert.Equal(t, 1, v.Replica)
}
