package replica

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"vsrsim/marks"
	"vsrsim/vsr"
)

// laggingBackup is backup r1 of a 64-slot journal whose commit point (op 2)
// lies more than a journal below its head (82): the live ring holds ops
// 19..82, the evicted ring the ops 4..18 they displaced, and op 3 is held
// nowhere; it waits for a transfer no peer offers (robust-fab-4205863593.vsr's
// shape).
func laggingBackup(t *testing.T) (*Replica, []vsr.Header) {
	t.Helper()
	opts := DefaultOptions(1, 3)
	opts.JournalSlots = 64
	r, err := New(opts, zeroJitter{})
	require.NoError(t, err)
	r.begin(&vsr.Output{})
	hs := chainHeaders(82, 0)
	r.wm.commitMin, r.wm.commitSum, r.wm.commitMax = 2, hs[2].Checksum, 82
	for op := 4; op <= 82; op++ {
		require.True(t, r.journalPut(hs[op], true))
	}
	r.wm.sequencer, r.wm.headSum = 82, hs[82].Checksum
	r.transfer = transferState{active: true, unanswered: 4} // no peer offers
	_, live := r.log.journal.Get(4)
	_, evicted := r.log.journal.Evicted.Get(4)
	require.True(t, !live && evicted, "op 4 left the live ring for the evicted one")
	return r, hs
}

// TestLaggingReplicaAppliesBelowTheRing (D105): the committed op at the
// commit point, repaired with no slot free for it, is kept below the ring,
// and the chain of parents down from the live ring's lowest op vouches for
// it and every evicted op above it: the replica applies ops 3..82. A body
// the chain does not name is refused, a replica a peer may still offer a
// checkpoint keeps nothing below its ring, and a chain with a hole vouches
// for nothing below it.
func TestLaggingReplicaAppliesBelowTheRing(t *testing.T) {
	r, hs := laggingBackup(t)
	out := &vsr.Output{}
	r.Step(msg(vsr.RepairPrepare{Header: hs[3], Commit: 82}, 0, 1, 0), out)
	assert.Equal(t, uint64(82), r.wm.commitMin, "ops 3..18 applied from below the ring, 19..82 from it")
	assert.NotZero(t, out.Marks[marks.RepairBelowWindow])
	assert.NotZero(t, out.Marks[marks.CommitBelowWindow])

	r, hs = laggingBackup(t)
	forged := hs[3]
	forged.Body = put(3, 666)
	forged.Seal()
	r.Step(msg(vsr.RepairPrepare{Header: forged}, 0, 1, 0), out)
	assert.Equal(t, uint64(2), r.wm.commitMin, "a body the chain does not name is not applied")
	r.Step(msg(vsr.RepairPrepare{Header: hs[3]}, 0, 1, 0), out)
	assert.Equal(t, uint64(82), r.wm.commitMin, "the one it names is, with no server's commit point")

	r, hs = laggingBackup(t)
	r.transfer.unanswered = 0
	r.Step(msg(vsr.RepairPrepare{Header: hs[3], Commit: 82}, 0, 1, 0), out)
	assert.Equal(t, uint64(2), r.wm.commitMin, "a replica a peer may still offer a checkpoint keeps nothing below the ring")
	_, kept := r.log.aside.Get(3)
	assert.False(t, kept)

	r, hs = laggingBackup(t)
	r.log.journal.Evicted.Remove(7)
	r.Step(msg(vsr.RepairPrepare{Header: hs[3], Commit: 82}, 0, 1, 0), out)
	assert.Equal(t, uint64(2), r.wm.commitMin, "a hole at op 7 breaks the chain: nothing below it applies")
	_, kept = r.log.aside.Get(3)
	assert.True(t, kept, "the body its server applied waits below the ring")
}

// TestOfferlessTransferRepairsBelowTheRing (D105): a replica whose next op
// no longer fits its ring asks for a checkpoint; once more offer requests
// than it has peers went unanswered with none pinned, its repair window
// goes back to the op after its commit point.
func TestOfferlessTransferRepairsBelowTheRing(t *testing.T) {
	for _, c := range []struct {
		unanswered int
		pinned     bool
		below      bool
	}{
		{0, false, false},
		{4, false, true},
		{4, true, false},
	} {
		r, _ := laggingBackup(t)
		r.transfer = transferState{}
		_, _, ok := r.repairWindow()
		require.False(t, ok, "the ring holds ops 19..82: nothing to fetch there")
		require.True(t, r.transfer.active, "op 3 does not fit beside them: a transfer starts")
		r.transfer.unanswered, r.transfer.pinned = c.unanswered, c.pinned
		from, _, ok := r.repairWindow()
		assert.Equal(t, c.below, ok && from == 3, "unanswered %d pinned %v: from %d", c.unanswered, c.pinned, from)
	}
}

// TestAdoptedHeaderAboveVouchesForTheCommitPoint (D107): the op at the
// commit point a replica knows, set aside, is vouched for by its own log's
// adopted header above it, as any op below it is: the log is a chain of
// checksums (swarm seed 1592591306 from 0x5eed0000, once D105 moved its
// schedule: r1 set ops 285 and 286 aside at commit point 286, and nothing
// vouched for 286 until the only other copy was down, so it never applied).
func TestAdoptedHeaderAboveVouchesForTheCommitPoint(t *testing.T) {
	hs := chainHeaders(7, 1)
	r, _ := walBackup(t)
	r.view, r.logView, r.log.adoptedLogView = 1, 1, 1
	r.wm.commitMax = 5
	forged := hs[5]
	forged.Body = put(5, 666)
	forged.Seal()
	assert.Equal(t, repairUnverified, r.repairVerdict(hs[5], 0), "nothing above names op 5 yet")
	r.log.adopted.Put(hs[6])
	assert.Equal(t, repairVerified, r.repairVerdict(hs[5], 0), "the log's header of op 6 names op 5")
	assert.Equal(t, repairUnverified, r.repairVerdict(forged, 0), "and only that op 5")
	r.log.adoptedLogView = 0
	assert.Equal(t, repairUnverified, r.repairVerdict(hs[5], 0), "another log's header vouches for nothing here")
}
