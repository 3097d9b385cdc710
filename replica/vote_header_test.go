package replica

import (
	"testing"
	"vsrsim/vsr"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// voteHeader takes a header from a vote of a lower log_view only at or below
// that vote's own commit point: above it, the entry may be an op a later view
// replaced. A restarted primary-elect whose own vote (log_view 4, commit 17)
// held ops 16 and 17 unsure once anchored its commit point on the view-3
// vote's op 17, a view-3 op never committed, and repaired and applied the
// view-3 ops (agreement; vsrsim fuzz --seed 2, pinned as
// fuzz-lower-log-view-anchor.vsr).
func TestVoteHeaderTrustsALowerLogViewOnlyBelowItsCommit(t *testing.T) {
	stale := chainHeaders(23, 0)
	r, _ := walBackup(t)
	unsure := make([]vsr.SuffixEntry, 3) // ops 19..17: unsure, no header
	unsure[0] = present(stale[19])
	r.vc.vote(r.id, r.n, 1, dvcVote{valid: true, logView: 4, op: 19, commit: 17, suffix: unsure})
	r.vc.vote(r.id, r.n, 0, dvcVote{valid: true, logView: 3, op: 23, commit: 15, suffix: suffixOf(stale, 23, 15)})

	_, ok := r.voteHeader(17)
	assert.False(t, ok, "op 17 lies above the view-3 vote's commit point: its entry may be stale")
	_, ok = r.voteHeader(16)
	assert.False(t, ok)
	h, ok := r.voteHeader(15)
	require.True(t, ok, "at or below its own commit point a vote's entry is committed, canonical")
	assert.Equal(t, stale[15].Checksum, h.Checksum)
	h, ok = r.voteHeader(19)
	require.True(t, ok, "the canonical log_view's entries are canonical")
	assert.Equal(t, stale[19].Checksum, h.Checksum)
}

// TestVoteStatesOnlyItsOwnLogViewsAdoptedHeaders: a replica back in an older
// durable log_view (9) keeps the headers it adopted for log_view 10 under
// their own label (D65); its vote of log_view 9 names none of them: an op it
// holds unsure goes blank, never under log 10's header, which a merge would
// weigh as log 9's (D80; swarm seed 3238043820 of 100,000 from 0xc0ffee00).
// The commit anchor learned with that adoption outlives the crash beside the
// disk the same way and is voted the same way (D95; swarm seed 4027401838
// from 0xf00d0000: r4, primary of view 9, adopted view 10's StartView,
// crashed before the superblock naming it landed, and voted view 10's op 6
// under log_view 9, the protocol model's one_log_per_view). Under its own
// label each is voted as before.
func TestVoteStatesOnlyItsOwnLogViewsAdoptedHeaders(t *testing.T) {
	hs := chainHeaders(6, 10)
	for _, kind := range []string{"adopted header", "commit anchor"} {
		for _, label := range []uint64{10, 9} {
			r, _ := walBackup(t)
			r.logView, r.view = 9, 12
			if kind == "adopted header" {
				r.log.adopted.Put(hs[5])
			} else {
				r.log.commitAnchor = hs[5]
			}
			r.log.adoptedLogView = label
			r.log.setUnsure(r.id, []uint64{5})
			e := r.suffixEntry(5, 2)
			require.Equal(t, uint64(5), e.Header.Op)
			assert.False(t, e.Nack, "%s, label %d: an unsure op is never a nack", kind, label)
			if label == r.logView {
				assert.Equal(t, hs[5].Checksum, e.Header.Checksum, "%s: its own log's", kind)
				assert.True(t, e.Unsure)
				continue
			}
			assert.True(t, e.Blank(), "%s: log 10's is not log 9's", kind)
		}
	}
}

// TestRepairVouchesOnlyByItsOwnLogViewsAdoptedHeaders: a replica back in an
// older durable log_view (6) keeps the headers it adopted for log_view 7
// under their own label (D65); they vouch for no repaired body, whose entry
// would replace one of log 6's that this replica may have acked (D81; swarm
// seed 3737876461 from 0xdecade00). Under its own label the header vouches
// as before, for the op and, as parent, for the op below.
func TestRepairVouchesOnlyByItsOwnLogViewsAdoptedHeaders(t *testing.T) {
	hs := chainHeaders(6, 7)
	for _, label := range []uint64{7, 6} {
		r, _ := walBackup(t)
		r.logView, r.view = 6, 6
		r.wm.commitMax = 6
		r.log.adopted.Put(hs[5])
		r.log.adoptedLogView = label
		want := repairUnverified
		if label == r.logView {
			want = repairVerified
		}
		assert.Equal(t, want, r.repairVerdict(hs[5], 0), "label %d: op 5 by its adopted header", label)
		assert.Equal(t, want, r.repairVerdict(hs[4], 0), "label %d: op 4 by the adopted header above", label)
	}
}

// TestRepairAnchorVouchesOnlyUnderItsOwnLabel: the commit anchor outlives a
// crash beside the disk under the adopted headers' label (D95). A replica
// back in an older durable log_view (1) whose anchor names view 2's
// committed op 3 journaled that body on the anchor's word into its log_view-1
// journal, and its next vote named it under log_view 1, where log 1 stated
// another op 3 (the protocol model's one_log_per_view; swarm seed 1611474746
// from 0x600d0000). Under its own label the anchor vouches as before (D109).
func TestRepairAnchorVouchesOnlyUnderItsOwnLabel(t *testing.T) {
	hs := chainHeaders(4, 2)
	for _, label := range []uint64{2, 1} {
		r, _ := walBackup(t)
		r.logView, r.view = 1, 3
		r.log.commitAnchor = hs[3]
		r.log.adoptedLogView = label
		want := repairUnverified
		if label == r.logView {
			want = repairVerified
		}
		assert.Equal(t, want, r.repairVerdict(hs[3], 0), "label %d: op 3 by the anchor", label)
	}
}
