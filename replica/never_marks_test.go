package replica

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"vsrsim/marks"
	"vsrsim/vsr"
)

// drop-parent-mismatch is on the never list (no correct run reaches it), so
// this plants the defect that would: a primary whose next prepare names a
// parent other than its own head, sealed so that its checksum holds. The
// backup must refuse it by its parent and count the mark, so a sweep that
// reports the mark reached has found such a defect.
func TestForgedParentReachesNeverMark(t *testing.T) {
	require.NotEmpty(t, marks.DropParentMismatch.Never(), "the mark this test exists for is a never-mark")
	c := newTestCluster(t, 3, nil)
	c.commitRequests(0, 1, 3)
	require.Equal(t, uint64(3), c.info(1).Sequencer)
	require.False(t, c.out.Marks.Reached(marks.DropParentMismatch), "no correct run reaches it")

	c.request(0, 0, 4, put(4, 40))
	c.deliverOne() // the request: the primary prepares op 4
	held := c.take(func(m *vsr.Message) bool { return m.Command == vsr.CmdPrepare && m.To == 1 })
	require.Len(t, held, 1)
	forged := held[0]
	h := forged.Prepare().Header
	require.Equal(t, uint64(4), h.Op)
	h.Parent ^= 0x5a5a
	h.Seal()
	env := forged.Envelope
	forged = vsr.Prepare{Header: h}.Message()
	forged.Envelope = env
	c.inject(forged)
	c.deliverAll()

	assert.Len(t, c.drops(1, "parent-mismatch"), 1)
	assert.True(t, c.out.Marks.Reached(marks.DropParentMismatch))
	assert.Equal(t, uint64(3), c.info(1).Sequencer, "the backup journals nothing of the forged chain")
}

// merge-head-unknown is on the never list: a commit point a vote states was
// acked by a replication quorum, and every view-change quorum holds a voter
// whose head reaches it. This plants the votes no correct cluster sends: the
// primary-elect's own empty log and a vote whose commit point lies above its
// head. The merge must not install a head no vote describes: it waits, and
// counts the mark, so a sweep that reports it reached has found a defect.
func TestVotesAboveEveryHeadReachNeverMark(t *testing.T) {
	require.NotEmpty(t, marks.MergeHeadUnknown.Never(), "the mark this test exists for is a never-mark")
	r, out := electing(t, 1, 1, 3, 2)
	out.Reset()
	r.Step(committedVote(2, 1, 2, 5), out)
	assert.True(t, r.vc.dvcs[2].valid, "the vote is readable: a commit point above its head, no suffix")
	assert.True(t, out.Marks.Reached(marks.MergeHeadUnknown))
	assert.False(t, r.vc.merged, "the merge waits for a vote that describes op 5")
	assert.Equal(t, vsr.StatusViewChange, r.Info().Status)
}
