package replica

import (
	"testing"
	"vsrsim/vsr/vsrtest"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// onDisk runs a cluster's replicas with a write-ahead journal on a disk. The
// test cluster lands no write: only Landed says one did.
func onDisk(o *Options) {
	o.Durability = DurabilityWAL
	o.Storage = true
}

// A cluster of one commits on its own ack only once the harness says the
// op's write landed (D44); with own-ack-before-write-lands, at once.
func TestOwnAckWaitsForItsWrite(t *testing.T) {
	c := newTestCluster(t, 1, onDisk)
	c.request(0, 0, 1, put(1, 10))
	c.deliverAll()
	c.tick(5)
	r := c.r(0)
	require.Equal(t, uint64(1), c.info(0).Sequencer, "the op is prepared")
	require.Positive(t, r.dur.fencesAsked, "its write was asked for")
	assert.Zero(t, c.info(0).CommitMax, "nothing commits on an ack its disk does not hold")
	assert.True(t, r.dur.ownAckWaits)

	r.Landed(r.dur.fencesAsked - 1)
	c.tick(1)
	assert.Zero(t, c.info(0).CommitMax, "one of the step's writes is still in flight")
	r.Landed(r.dur.fencesAsked)
	c.tick(1)
	assert.Equal(t, uint64(1), c.info(0).CommitMax, "the write landed: the own ack counts")

	bug := newTestCluster(t, 1, func(o *Options) { onDisk(o); o.Bugs.OwnAckBeforeWriteLands = true })
	bug.request(0, 0, 1, put(1, 10))
	bug.deliverAll()
	bug.tick(5)
	assert.Equal(t, uint64(1), bug.info(0).CommitMax, "the defect commits before any write lands")
}

// The harness can say no more writes landed than the replica asked for, and
// the fence an own ack stands on is one the replica asked for.
func TestOwnAckFenceInvariants(t *testing.T) {
	c := newTestCluster(t, 1, onDisk)
	r := c.r(0)
	v := vsrtest.ViolationOf(func() { r.Landed(r.dur.fencesAsked + 1) })
	require.NotNil(t, v)
	assert.Equal(t, "landed_were_asked", v.Invariant)

	c = newTestCluster(t, 1, onDisk)
	c.request(0, 0, 1, put(1, 10))
	c.deliverAll()
	c.tick(5)
	r = c.r(0)
	require.Len(t, r.pipeline, 1)
	r.pipeline[0].Fence = r.dur.fencesAsked + 1 // planted: a fence never asked for
	r.due |= dueCommitWalk                      // a busy tick flushes
	v = vsrtest.ViolationOf(func() { c.tick(1) })
	require.NotNil(t, v)
	assert.Equal(t, "own_ack_fence_asked", v.Invariant)
}

// The commit point rides on a superblock written for another reason and
// never asks for one itself (D58): a backup that learns op 1 committed
// writes nothing for it; its next ack's superblock carries it.
func TestCommitPointRidesOnTheNextSuperblock(t *testing.T) {
	c := newTestCluster(t, 3, onDisk)
	c.request(0, 0, 1, put(1, 10))
	c.deliverAll()
	b := c.r(1)
	require.Equal(t, uint64(1), b.dur.sb.AckHead, "the backup acked op 1")
	seq := b.dur.store.seq
	c.tickUntil(100, func() bool { return c.info(1).CommitMax == 1 }, "the backup learns op 1 committed")
	assert.Equal(t, seq, b.dur.store.seq, "a commit point alone asks for no superblock")
	assert.Zero(t, b.dur.sb.CommitMax, "nor is it durable yet")

	c.request(0, 1, 1, put(2, 20))
	c.deliverAll()
	require.Equal(t, uint64(2), b.dur.sb.AckHead, "the backup acked op 2")
	assert.Greater(t, b.dur.store.seq, seq, "the ack asked for a superblock")
	assert.Equal(t, uint64(1), b.dur.store.written.commitMax, "which carries the commit point")
}
