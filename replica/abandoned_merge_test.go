package replica

import (
	"testing"

	"vsrsim/vsr"
	"vsrsim/vsr/vsrtest"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestAbandonedMergeVotesItsLogView (n=3, swarm seeds 420 and 1753): a
// primary-elect merges a log, lacks a body, and moves on to a later view
// before it can start its own. Its journal now holds the merged log of its
// view, so its next vote must say so (D61). Stating its old log_view passes
// the merged op off as the old view's, where it can outrank the old view's
// real op and splice two views' logs into a canonical log that does not chain
// (seed 420: op 4 from log_view 5 under ops 5..7 of log_view 4); and it
// passes an op the merge cut off as one it went back on (seed 1753: op 58
// acked in view 13, cut by view 14's merge, voted absent under log_view 13,
// the protocol model's vote_keeps_acks). Stating the votes' log_view, as
// before D61, mends the first and not the second.
func TestAbandonedMergeVotesItsLogView(t *testing.T) {
	hs := chainHeaders(1, 2)
	r, out := electing(t, 4, 1, 3, 2)
	require.Equal(t, uint64(0), r.Info().LogView)

	r.Step(voteIn(4, 2, 2, 1, 1, present(hs[1])), out)
	require.True(t, r.vc.merged, "op 1 is canonical: r2 holds it")
	require.Equal(t, vsr.StatusViewChange, r.Info().Status, "still repairing op 1")
	require.Equal(t, uint64(1), r.Info().Sequencer)

	out.Reset()
	svc := vsr.StartViewChange{}.Message().Routed(2, 1, 5)
	r.Step(&svc, out)
	var dvcs []vsr.DoViewChange
	for _, m := range out.Messages {
		if m.Command == vsr.CmdDoViewChange {
			dvcs = append(dvcs, m.DoViewChange())
		}
	}
	require.Len(t, dvcs, 1, "the vote for view 5 goes to r2")
	assert.Equal(t, uint64(1), dvcs[0].Op)
	assert.Equal(t, uint64(4), dvcs[0].LogView, "the vote states the view whose merged log it holds")
	assert.Equal(t, uint64(4), r.Info().LogView)
}

// A primary-elect that merged and could not start marks its superblock so
// (Superblock.Merged), written before any later vote, and the copy reads
// back with the mark: a restart bounds its unsure ops by its acks alone.
func TestAbandonedMergeSuperblockSaysMerged(t *testing.T) {
	hs := chainHeaders(1, 2)
	r, out := electing(t, 4, 1, 3, 2)
	r.Step(voteIn(4, 2, 2, 1, 1, present(hs[1])), out)
	require.True(t, r.vc.merged)
	require.Equal(t, vsr.StatusViewChange, r.Info().Status, "still repairing op 1")
	assert.True(t, r.dur.sb.Merged, "the merged log_view is marked")
	assert.Equal(t, uint64(4), r.dur.sb.LogView)
	assert.Less(t, r.dur.sb.AckView, r.dur.sb.LogView, "nothing acked in the merged view")

	var w recWords
	superblockWords(&w, 7, &r.dur.sb)
	full := superblockCopy(w, recordChecksum(w.w[:w.n]), 2)
	buf := make([]byte, vsr.SuperblockRecordBytes)
	full.put(buf)
	back, seq, ok := decodeSuperblock(2, buf, false)
	require.True(t, ok)
	assert.Equal(t, uint64(7), seq)
	assert.True(t, back.Merged, "the mark survives the disk")
	assert.False(t, back.Amnesiac)
	assert.Equal(t, uint64(0), ackBound(&back), "it acked nothing: no op of the merged log is held unsure")
}

// The merged log_view's invariants fire when their state is planted wrong:
// a merged log_view the superblock says was acked in, and a merge by a
// replica whose superblock is still amnesiac (it cannot vote, so it cannot
// lead a merge).
func TestMergedLogViewInvariantsFire(t *testing.T) {
	for _, c := range []struct {
		name  string
		plant func(t *testing.T) func()
	}{
		{"merged_log_view_unacked", func(t *testing.T) func() {
			sb := Superblock{LogView: 4, AckView: 4, AckViewHead: 2, AckHead: 2, Head: 3, Merged: true}
			return func() { ackBound(&sb) }
		}},
		{"merge_not_amnesiac", func(t *testing.T) func() {
			hs := chainHeaders(1, 2)
			r, out := electing(t, 4, 1, 3, 2)
			r.dur.sb.Amnesiac = true
			return func() { r.Step(voteIn(4, 2, 2, 1, 1, present(hs[1])), out) }
		}},
	} {
		t.Run(c.name, func(t *testing.T) {
			v := vsrtest.ViolationOf(c.plant(t))
			require.NotNil(t, v)
			assert.Equal(t, c.name, v.Invariant)
		})
	}
}
