package replica

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"vsrsim/replica/journal"
	"vsrsim/vsr"
)

// The restart's chain checks (restart_slots.go): what the disk read back is
// judged against the durable head's chain and against itself, so a stale
// entry a lost write left is never replayed or voted.

// chainOf journals ops 1..n of one log in view, each naming the one below as
// its parent, and returns them.
func chainOf(j *journal.Journal, n int, view uint64, key uint32) []vsr.Header {
	hs := make([]vsr.Header, n+1)
	parent := uint64(0x5eed)
	for o := 1; o <= n; o++ {
		h := vsr.Header{Op: uint64(o), View: view, Parent: parent, Client: 1, Request: uint64(o),
			Body: vsr.Operation{Kind: vsr.OpPut, Key: key, Value: uint64(o)}}
		h.Seal()
		j.Put(h, true)
		hs[o], parent = h, h.Checksum
	}
	return hs
}

// staleOf is another entry of h's op on the same parent, from view.
func staleOf(h vsr.Header, view uint64) vsr.Header {
	s := h
	s.View, s.Body.Value = view, h.Body.Value+1000
	s.Seal()
	return s
}

func recoveryAt(head vsr.Header) diskRecovery {
	return diskRecovery{slots: 64, sb: Superblock{Head: head.Op, HeadSum: head.Checksum},
		cp: checkpointOnDisk{snap: vsr.Snapshot{}}, highest: head.Op}
}

func TestBreakOffChainTakesTheStaleEntry(t *testing.T) {
	j := journal.NewJournal(64, nil)
	hs := chainOf(j, 5, 3, 1)
	rec := recoveryAt(hs[5])
	broke, vouched := breakOffChain(&rec, j, nil)
	assert.False(t, broke, "a whole chain breaks nothing")
	assert.Equal(t, uint64(1), vouched, "the chain vouches down to the checkpoint")

	// A lost rewrite left an older op 3 on the same parent.
	j.Put(staleOf(hs[3], 1), true)
	rec = recoveryAt(hs[5])
	broke, vouched = breakOffChain(&rec, j, nil)
	assert.True(t, broke)
	assert.Equal(t, uint64(4), vouched, "nothing vouches below the break")
	_, held := j.Get(3)
	assert.False(t, held, "the stale op 3 left the journal")
	b, ok := rec.brokenAt(3)
	require.True(t, ok, "its slot is faulty")
	assert.Equal(t, slotFaulty, b.class)
	// Below the break nothing vouches for ops 1 and 2, above the commit
	// point (0): a lost write may have left them as old (D74).
	assert.Equal(t, 3, rec.faulty)
	for _, o := range []uint64{1, 2} {
		_, held := j.Get(o)
		assert.False(t, held, "op %d left the journal", o)
		_, ok := rec.brokenAt(int(o))
		assert.True(t, ok, "op %d's slot is faulty", o)
	}
}

// TestBreakOffChainKeepsWhatTheCommitPointCovers (D74): below the break, an
// entry at or below the durable commit point stays (setAsideUnvouched
// decides it); one above it goes faulty. Found by a lost rewrite aimed at
// both copies of a slot (swarm seed 1295 with that aim): r3's restart kept an older
// op 14 below a break at op 15, above its commit point 11, voted it present
// in log_view 13, and the next view's StartView named op 15 above it.
func TestBreakOffChainKeepsWhatTheCommitPointCovers(t *testing.T) {
	j := journal.NewJournal(64, nil)
	hs := chainOf(j, 5, 3, 1)
	j.Put(staleOf(hs[4], 1), true)
	rec := recoveryAt(hs[5])
	rec.sb.CommitMax = 2
	broke, _ := breakOffChain(&rec, j, nil)
	require.True(t, broke)
	for o, want := range []bool{1: true, 2: true, 3: false, 4: false, 5: true} {
		_, held := j.Get(uint64(o))
		assert.Equal(t, want, held, "op %d", o)
	}
	assert.Equal(t, 2, rec.faulty, "ops 4 (stale) and 3 (above the commit point, unvouched)")
}

func TestBreakOffChainCrossesAVouchedFaultySlot(t *testing.T) {
	j := journal.NewJournal(64, nil)
	hs := chainOf(j, 5, 3, 1)
	j.Remove(4)
	j.Put(staleOf(hs[2], 1), true)
	rec := recoveryAt(hs[5])
	rec.broken = []brokenSlot{{slot: 4, read: slotRead{class: slotFaulty, header: hs[4], hasHeader: true}}}
	broke, vouched := breakOffChain(&rec, j, nil)
	assert.True(t, broke, "the walk crossed op 4 by its header copy and found op 2 stale")
	assert.Equal(t, uint64(3), vouched)

	// Without the header copy the walk stops at op 4 (a gap): below it,
	// in a log of view 3's ops, nothing is taken.
	j2 := journal.NewJournal(64, nil)
	hs2 := chainOf(j2, 5, 3, 1)
	j2.Remove(4)
	rec2 := recoveryAt(hs2[5])
	rec2.sb.LogView = 3
	broke, vouched = breakOffChain(&rec2, j2, nil)
	assert.False(t, broke)
	assert.Equal(t, uint64(5), vouched)
	assert.Zero(t, rec2.faulty)
}

// TestBreakOffChainTakesOlderViewsBelowAGap: below a gap in the durable
// head's chain, above the commit point, an entry of a view before the
// durable log_view may be one a lost or never-written removal left (D75:
// the open finding source-disk-suffix-unreadable-c0ffee.vsr, a stale op 1 of
// view 0 voted under log_view 1's ops); an entry of the log_view's own view
// stays where a neighbour chains with it, and what the commit point covers
// stays.
func TestBreakOffChainTakesOlderViewsBelowAGap(t *testing.T) {
	j := journal.NewJournal(64, nil)
	hs := chainOf(j, 7, 3, 1)
	j.Remove(6)
	j.Put(staleOf(hs[3], 1), true)
	rec := recoveryAt(hs[7])
	rec.sb.LogView, rec.sb.CommitMax = 3, 1
	broke, vouched := breakOffChain(&rec, j, nil)
	assert.True(t, broke, "op 3 of view 1 below the gap at op 6 is taken")
	assert.Equal(t, uint64(7), vouched)
	for o, want := range []bool{1: true, 2: true, 3: false, 4: true, 5: true, 7: true} {
		_, held := j.Get(uint64(o))
		assert.Equal(t, want, held, "op %d", o)
	}
	assert.Equal(t, 1, rec.faulty, "op 3 alone: ops 4 and 5 chain, op 2 names op 1, at the commit point")
	b, found := rec.brokenAt(3)
	require.True(t, found)
	assert.Equal(t, staleOf(hs[3], 1), b.aside, "the entry taken out is kept to be set aside (D78)")
	assert.False(t, b.hasHeader, "never a header copy the walk could vouch for")
}

// TestBreakOffChainTakesAnIslandBelowAGap (D124): below a gap, an entry of
// the durable log_view's own view that neither neighbour chains with is
// taken as faulty: a later view's message may have restamped an older log's
// entry (D67), whose removal and rewrite the disk then lost (swarm seed
// 4205913765: r1 took up log_view 5's op 8, a repair of view 6 had stamped
// it 6, between gaps at ops 7 and 9, under log_view 6, where view 6's
// Prepares stated another op 8). One a neighbour chains with stays, a
// faulty slot's header copy below included (D125).
func TestBreakOffChainTakesAnIslandBelowAGap(t *testing.T) {
	j := journal.NewJournal(64, nil)
	hs := chainOf(j, 10, 6, 1)
	j.Remove(9)
	j.Remove(7)
	j.Remove(8)
	stale := staleOf(hs[8], 6) // restamped: the view of the durable log
	j.Put(stale, true)
	rec := recoveryAt(hs[10])
	rec.sb.LogView, rec.sb.CommitMax = 6, 4
	broke, _ := breakOffChain(&rec, j, nil)
	assert.True(t, broke, "the island at op 8 is taken")
	for o, want := range map[uint64]bool{4: true, 5: true, 6: true, 7: false, 8: false, 9: false, 10: true} {
		_, held := j.Get(o)
		assert.Equal(t, want, held, "op %d", o)
	}
	b, found := rec.brokenAt(8)
	require.True(t, found)
	assert.Equal(t, stale, b.aside, "kept to be set aside (D78)")

	// Islands are judged below a gap only: a whole chain keeps its ops.
	j2 := journal.NewJournal(64, nil)
	hs2 := chainOf(j2, 10, 6, 1)
	rec2 := recoveryAt(hs2[10])
	rec2.sb.LogView = 6
	broke, _ = breakOffChain(&rec2, j2, nil)
	assert.False(t, broke)
	assert.Zero(t, rec2.faulty)

	// D125: a faulty slot's header copy is a neighbour. Op 8 between a gap
	// at 9 and a faulty op 7 whose header copy it names stays (swarm seed
	// 1010566139 from 0x3c3c0000: taken out, the restart forgot what vouched
	// for op 7's copy, and views climbed).
	j3 := journal.NewJournal(64, nil)
	hs3 := chainOf(j3, 10, 6, 1)
	j3.Remove(9)
	j3.Remove(7)
	rec3 := recoveryAt(hs3[10])
	rec3.sb.LogView, rec3.sb.CommitMax = 6, 4
	rec3.broken = []brokenSlot{{slot: 7, read: slotRead{class: slotFaulty, header: hs3[7], hasHeader: true}}}
	breakOffChain(&rec3, j3, nil)
	assert.True(t, j3.Has(8, hs3[8].Checksum), "op 8 chains with op 7's header copy: no island")
	_, taken := rec3.brokenAt(8)
	assert.False(t, taken)

	// The header copy above counts for nothing: a lost rewrite of both of
	// its copies leaves the older header naming the older op below (swarm
	// seed 4205913765's op 9 over its stale op 8).
	j4 := journal.NewJournal(64, nil)
	hs4 := chainOf(j4, 10, 6, 1)
	j4.Remove(9)
	j4.Remove(7)
	j4.Remove(8)
	stale4 := staleOf(hs4[8], 6)
	j4.Put(stale4, true)
	above := hs4[9]
	above.Parent = stale4.Checksum
	above.Seal()
	rec4 := recoveryAt(hs4[10])
	rec4.sb.LogView, rec4.sb.CommitMax = 6, 4
	rec4.broken = []brokenSlot{{slot: 9, read: slotRead{class: slotFaulty, header: above, hasHeader: true}}}
	breakOffChain(&rec4, j4, nil)
	assert.False(t, j4.Has(8, stale4.Checksum), "a header copy above vouches for no island")
}

// TestBreakOffChainGapVouchedByAdoptedHeader: below a gap, an older-stamped
// entry that the durable log_view's adopted header names is this log's op
// (prepared in an older view and kept by the log): it stays (a 100,000-seed
// sweep's robust stall, seed 3238051451: ops of view 0 in log_view 3 taken
// as faulty, no core replica left to serve them). An adopted ring of another
// log_view vouches for nothing.
func TestBreakOffChainGapVouchedByAdoptedHeader(t *testing.T) {
	for _, tc := range []struct {
		adoptedLogView uint64
		kept           bool
	}{{3, true}, {2, false}} {
		j := journal.NewJournal(64, nil)
		hs := chainOf(j, 6, 3, 1)
		j.Remove(5)
		old := staleOf(hs[3], 1)
		j.Put(old, true)
		v := &viewHeaders{adopted: journal.NewRing(64, nil), logView: tc.adoptedLogView}
		v.adopted.Put(old)
		rec := recoveryAt(hs[6])
		rec.sb.LogView, rec.sb.CommitMax = 3, 1
		breakOffChain(&rec, j, v)
		assert.Equal(t, tc.kept, j.Has(3, old.Checksum), "adopted in log_view %d: op 3 kept", tc.adoptedLogView)
		_, faulty := rec.brokenAt(3)
		assert.Equal(t, !tc.kept, faulty, "adopted in log_view %d: op 3's slot faulty", tc.adoptedLogView)
	}
}

func TestBreakStaleNeighboursTakesTheOlderView(t *testing.T) {
	j := journal.NewJournal(64, nil)
	hs := chainOf(j, 5, 3, 1)
	j.Put(staleOf(hs[2], 1), true) // older than op 3 above it
	old5 := staleOf(hs[5], 2)      // an older log's op 5, on its own op 4
	old5.Parent = 0xbad
	old5.Seal()
	j.Put(old5, true)
	rec := recoveryAt(hs[5])
	assert.True(t, breakStaleNeighbours(&rec, j))
	_, held2 := j.Get(2)
	_, held5 := j.Get(5)
	_, held4 := j.Get(4)
	assert.False(t, held2, "op 2 of view 1 under op 3 of view 3 goes")
	assert.False(t, held5, "op 5 of view 2 over op 4 of view 3 goes")
	assert.True(t, held4, "the newer log stays")
	assert.Equal(t, 2, rec.faulty)
}

func TestDropAboveHead(t *testing.T) {
	j := journal.NewJournal(64, nil)
	hs := chainOf(j, 5, 3, 1)
	rec := recoveryAt(hs[3])
	rec.highest = 5
	assert.True(t, dropAboveHead(&rec, j))
	_, held3 := j.Get(3)
	_, held4 := j.Get(4)
	assert.True(t, held3)
	assert.False(t, held4, "nothing promised an op above the durable head")
	assert.False(t, dropAboveHead(&rec, j), "nothing left to drop")
}

// A committed entry the chain does not reach is set aside, not replayed.
func TestSetAsideUnvouched(t *testing.T) {
	c := newTestCluster(t, 3, onDisk)
	c.commitRequests(0, 1, 4)
	r := c.r(2)
	h2, ok := r.log.journal.Get(2)
	require.True(t, ok)
	r.wm.commitMin, r.wm.commitSum = 1, h2.Parent
	r.wm.commitMax = 4
	r.setAsideUnvouched(3)
	_, journaled := r.log.journal.Get(2)
	_, aside := r.log.aside.Get(2)
	_, still3 := r.log.journal.Get(3)
	assert.False(t, journaled, "op 2 lies below what the chain vouched")
	assert.True(t, aside, "set aside, to be reclaimed once vouched for")
	assert.True(t, still3, "op 3 is vouched")
}

// Entries at or below the checkpoint are kept only to serve repairs: one the
// checkpoint's chain does not reach goes, and everything below it.
func TestDropOffCheckpointChain(t *testing.T) {
	j := journal.NewJournal(64, nil)
	hs := chainOf(j, 6, 3, 1)
	rec := recoveryAt(hs[6])
	rec.cp.snap = vsr.Snapshot{Op: 4, OpChecksum: hs[4].Checksum}
	assert.False(t, dropOffCheckpointChain(&rec, j), "a whole chain keeps every retained op")

	j.Put(staleOf(hs[3], 1), true) // a lost rewrite left an older op 3
	assert.True(t, dropOffCheckpointChain(&rec, j))
	for o, want := range map[uint64]bool{1: false, 2: false, 3: false, 4: true, 5: true} {
		_, held := j.Get(o)
		assert.Equal(t, want, held, "op %d", o)
	}
}

// An adopted header kept beside the disk carries the walk across a gap where
// its checksum is the one named.
func TestBreakOffChainCrossesAnAdoptedHeader(t *testing.T) {
	j := journal.NewJournal(64, nil)
	hs := chainOf(j, 5, 3, 1)
	j.Remove(4)
	j.Remove(5)
	j.Put(staleOf(hs[3], 1), true)
	v := &viewHeaders{adopted: journal.NewRing(64, nil)}
	v.adopted.Put(hs[5])
	v.adopted.Put(hs[4])
	rec := recoveryAt(hs[5])
	broke, vouched := breakOffChain(&rec, j, v)
	assert.True(t, broke, "the walk crossed ops 5 and 4 by their adopted headers and found op 3 stale")
	assert.Equal(t, uint64(4), vouched)
	rec = recoveryAt(hs[5])
	broke, _ = breakOffChain(&rec, j, nil)
	assert.False(t, broke, "without them the walk stops at op 5")
}

// A header copy a restart vouched for at o names its parent: an entry below
// it that is another, which chained from below where the lost rewrites of
// both its copies left it, is taken out, and held unsure where this replica
// may have acked the entry named (D102, swarm seed 4205913765 from
// 0xfab00000: a stale op 8 under the vouched op 9 broke restore_chains).
func TestVouchedHeaderTakesOutAStaleParent(t *testing.T) {
	main := genChain(10, 1, nil, 0)
	fork := genChain(10, 2, main, 8) // another op 8 and up, on main's op 7
	for _, c := range []struct {
		name       string
		below      vsr.Header
		acked      uint64
		commitMin  uint64
		want       []uint64
		keepsBelow bool
	}{
		{"a stale parent at or below the ack bound", fork[8], 9, 4, []uint64{8}, false},
		{"a stale parent above the ack bound", fork[8], 7, 4, nil, false},
		{"the parent it names", main[8], 9, 4, nil, true},
		{"an applied op is the checkpoint's", fork[8], 9, 8, nil, true},
	} {
		r, _ := walBackup(t)
		r.wm.commitMin = c.commitMin
		require.True(t, r.log.journal.Put(c.below, true), c.name)
		require.True(t, r.log.journal.Put(main[9], true), c.name)
		assert.Equal(t, c.want, r.dropStaleParent(9, c.acked), c.name)
		_, held := r.log.journal.Get(8)
		assert.Equal(t, c.keepsBelow, held, c.name)
		_, vouched := r.log.journal.Get(9)
		assert.True(t, vouched, c.name)
	}
}

// Applying an op lets go of another entry of it set aside in a past life: a
// committed op has one entry, and the aside keeps one per op, so a stale one
// kept would leave the committed entry's copy no place after the next restart
// rewinds the commit point (robust-2d1e-757023519.vsr: op 35's whole header
// copy dropped for view 8's entry set aside two lives before).
func TestApplyDropsAStaleAsideEntry(t *testing.T) {
	hs := genChain(6, 1, nil, 0)
	for _, c := range []struct {
		name  string
		aside vsr.Header
		kept  bool
	}{
		{"another entry of the op", staleOf(hs[5], 1), false},
		{"the applied entry itself", hs[5], true},
	} {
		r, _ := walBackup(t)
		for o := 1; o <= 6; o++ {
			require.True(t, r.log.journal.Put(hs[o], true), c.name)
		}
		r.log.aside.Put(c.aside)
		r.wm.commitMax = 6
		r.commitUpTo()
		require.Equal(t, uint64(6), r.wm.commitMin, c.name)
		got, held := r.log.aside.Get(5)
		assert.Equal(t, c.kept, held, c.name)
		if c.kept {
			assert.Equal(t, hs[5].Checksum, got.Checksum, c.name)
		}
	}
}
