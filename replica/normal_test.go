package replica

import (
	"testing"
	"vsrsim/vsr"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Normal operation: VRR Revisited §4.1; protocol.md "Normal operation".

// TestNormalRequestToReply follows one request through a chain: request ->
// prepare r0->r1->r2 -> prepare ok -> commit -> reply, then the heartbeat that
// lets the backups commit.
func TestNormalRequestToReply(t *testing.T) {
	c := newTestCluster(t, 3, nil)
	c.request(0, 0, 1, put(7, 70))
	c.deliverAll()

	prepares := c.sent(cmd(vsr.CmdPrepare))
	require.Len(t, prepares, 2, "chain: r0->r1 and r1->r2, stopping before the primary")
	assert.Equal(t, [2]int{0, 1}, [2]int{prepares[0].From, prepares[0].To})
	assert.Equal(t, [2]int{1, 2}, [2]int{prepares[1].From, prepares[1].To})
	first := prepares[0].Prepare().Header
	assert.Equal(t, uint64(1), first.Op)
	assert.True(t, first.Valid())
	assert.Equal(t, uint64(genesisChecksum), first.Parent, "op 1 chains to genesis")

	oks := c.sent(cmd(vsr.CmdPrepareOK))
	require.Len(t, oks, 2)
	for _, m := range oks {
		assert.Equal(t, 0, m.To, "PrepareOk goes to the primary")
		assert.Equal(t, first.Checksum, m.PrepareOk().Checksum)
	}

	replies := c.repliesTo(0)
	require.Len(t, replies, 1, "exactly one reply")
	assert.Equal(t, uint64(1), replies[0].Request)
	assert.Equal(t, uint64(1), replies[0].Op)
	assert.Equal(t, uint64(0), replies[0].Result, "put returns the previous value")
	assert.Equal(t, uint64(1), c.info(0).CommitMax)
	assert.Equal(t, uint64(1), c.info(0).CommitMin)

	// The primary committed on its own ack plus r1's: two of three.
	pc := c.eventsOf(0, vsr.EvPrimaryCommit)
	require.Len(t, pc, 1)
	assert.Equal(t, uint64(2), pc[0].PrimaryCommitted().Acks, "quorum of 2 acks")

	// Backups journal the op but commit only when they hear commit_max.
	for _, i := range []int{1, 2} {
		assert.Equal(t, uint64(1), c.info(i).Sequencer)
		assert.Equal(t, uint64(0), c.info(i).CommitMin, "r%d commits only after the heartbeat", i)
	}
	c.tick(int(smallTimeouts().CommitTicks))
	for i := 0; i < 3; i++ {
		assert.Equal(t, uint64(1), c.info(i).CommitMin, "r%d", i)
		assert.Equal(t, uint64(70), c.r(i).sm.KV[7], "r%d applied the put", i)
	}
	commits := c.eventsOf(-1, vsr.EvCommit)
	require.Len(t, commits, 3)
	for _, e := range commits {
		assert.Equal(t, first.Checksum, e.Checksum)
	}
}

// TestNormalExactlyOnceReply retries a committed request: the primary answers
// from the client table and prepares nothing new. Backup replies are off:
// this is the primary's table (reply_test.go has the backups').
func TestNormalExactlyOnceReply(t *testing.T) {
	c := newTestCluster(t, 3, func(o *Options) { o.Protocol.BackupRepliesOff = true })
	c.request(0, 0, 1, put(3, 30))
	c.deliverAll()
	c.request(0, 0, 2, put(3, 31))
	c.deliverAll()
	require.Len(t, c.repliesTo(0), 2)
	first := c.repliesTo(0)[1]
	require.Equal(t, uint64(2), first.Op)
	require.Equal(t, uint64(30), first.Result)

	appends := len(c.eventsOf(0, vsr.EvJournalAppend))
	c.request(0, 0, 2, put(3, 31)) // the client timed out and retried
	c.deliverAll()
	replies := c.repliesTo(0)
	require.Len(t, replies, 3)
	retry := replies[2]
	assert.Equal(t, first.Request, retry.Request)
	assert.Equal(t, first.Op, retry.Op, "the retry is answered with the original op")
	assert.Equal(t, first.Result, retry.Result, "and its original result, not a re-execution (which would give 31)")
	assert.Equal(t, appends, len(c.eventsOf(0, vsr.EvJournalAppend)), "no new prepare for a retried request")
	assert.Equal(t, uint64(2), c.info(0).Sequencer)

	// An older request than the table's is dropped outright.
	c.request(0, 0, 1, put(3, 30))
	c.deliverAll()
	assert.Len(t, c.repliesTo(0), 3)
	old := c.drops(0, "old-request")
	require.Len(t, old, 1)
	assert.Equal(t, uint64(2), old[0].Dropped().Detail, "the table's request number")
}

// TestNormalDuplicateInFlight sends the same request twice before it commits:
// one prepare, one reply.
func TestNormalDuplicateInFlight(t *testing.T) {
	c := newTestCluster(t, 3, nil)
	c.request(0, 0, 1, put(1, 1))
	c.request(0, 0, 1, put(1, 1))
	c.deliverAll()
	assert.Len(t, c.eventsOf(0, vsr.EvJournalAppend), 1)
	assert.Len(t, c.repliesTo(0), 1)
}

// TestNormalRequestToBackupForwarded: only the primary of the view executes a
// request; a backup forwards a client's to it.
func TestNormalRequestToBackupForwarded(t *testing.T) {
	c := newTestCluster(t, 3, nil)
	c.request(1, 0, 1, put(1, 1))
	c.deliverAll()
	assert.Empty(t, c.drops(1, "not-primary"), "a Normal backup hands a client's request on")
	assert.Len(t, c.repliesTo(0), 1, "the primary executed it and answered the client")
	assert.Equal(t, uint64(1), c.info(0).CommitMax)
}

// TestNormalStarTopology: the primary sends each prepare to every backup and
// backups forward nothing.
func TestNormalStarTopology(t *testing.T) {
	c := newTestCluster(t, 3, func(o *Options) { o.Topology = TopologyStar })
	c.request(0, 0, 1, put(1, 1))
	c.deliverAll()
	prepares := c.sent(cmd(vsr.CmdPrepare))
	require.Len(t, prepares, 2)
	for _, m := range prepares {
		assert.Equal(t, 0, m.From, "only the primary sends prepares in a star")
	}
	assert.ElementsMatch(t, []int{1, 2}, []int{prepares[0].To, prepares[1].To})
	assert.Len(t, c.repliesTo(0), 1)
}

// TestNormalChainFiveReplicas: in a chain of five the prepare walks r0..r4 and
// every backup acks the primary directly.
func TestNormalChainFiveReplicas(t *testing.T) {
	c := newTestCluster(t, 5, nil)
	c.request(0, 0, 1, put(1, 1))
	c.deliverAll()
	prepares := c.sent(cmd(vsr.CmdPrepare))
	require.Len(t, prepares, 4)
	for k, m := range prepares {
		assert.Equal(t, k, m.From)
		assert.Equal(t, k+1, m.To)
	}
	for _, m := range c.sent(cmd(vsr.CmdPrepareOK)) {
		assert.Equal(t, 0, m.To)
	}
	pc := c.eventsOf(0, vsr.EvPrimaryCommit)
	require.Len(t, pc, 1)
	assert.Equal(t, uint64(3), pc[0].PrimaryCommitted().Acks, "n=5 commits on 3 acks")
}

// TestNormalGapCheck: a backup accepts only op == sequencer+1; a prepare above
// a hole is dropped as a gap (after the header's commit has advanced the
// backup's commit_max), and the backup neither journals nor acks it.
func TestNormalGapCheck(t *testing.T) {
	c := newTestCluster(t, 3, func(o *Options) { o.Topology = TopologyStar })
	lose := c.dropIf(func(m *vsr.Message) bool {
		return m.Command == vsr.CmdPrepare && m.To == 1 && m.Prepare().Header.Op == 1
	})
	c.commitRequests(0, 1, 1) // committed by r0 and r2
	require.Equal(t, uint64(1), c.info(0).CommitMax)
	c.removeFilter(lose)

	c.commitRequests(0, 2, 2)
	gaps := c.drops(1, "gap")
	require.Len(t, gaps, 1)
	assert.Equal(t, uint64(2), gaps[0].Op)
	assert.Equal(t, uint64(0), gaps[0].Dropped().Detail, "the gap check compares against the sequencer")
	assert.False(t, c.r(1).Journaled(2))
	for _, e := range c.eventsOf(1, vsr.EvAck) {
		assert.NotEqual(t, uint64(2), e.Op, "r1 acked op 2 above its hole")
	}
	inf := c.info(1)
	assert.Equal(t, uint64(0), inf.Sequencer)
	assert.Equal(t, uint64(1), inf.CommitMax, "commit_max advances from the header before the gap check")
	assert.Equal(t, uint64(0), inf.CommitMin)

	// The op that fills the hole is accepted: op == sequencer+1.
	c.tick(int(smallTimeouts().RepairTicks))
	assert.True(t, c.r(1).Journaled(1))
}

// TestNormalCommitWalkStopsAtFirstUnquorate: op 2 holds a replication quorum
// but op 1 does not; the commit walk starts at commit_max+1 and stops at op 1,
// then commits both in order once op 1's ack arrives.
func TestNormalCommitWalkStopsAtFirstUnquorate(t *testing.T) {
	c := newTestCluster(t, 3, func(o *Options) { o.Topology = TopologyStar })
	lose := c.dropIf(func(m *vsr.Message) bool { return m.Command == vsr.CmdPrepareOK && m.PrepareOk().Op == 1 })
	c.request(0, 0, 1, put(1, 1))
	c.request(0, 1, 1, put(2, 2))
	c.deliverAll()

	inf := c.info(0)
	assert.Equal(t, uint64(2), inf.Sequencer)
	assert.Equal(t, uint64(0), inf.CommitMax, "op 2's quorum does not commit it over op 1")
	assert.Equal(t, uint64(1), inf.PipelineHead)
	assert.Equal(t, 1, inf.PipelineHeadAcks)
	assert.True(t, inf.PipelineLaterQuorum)
	assert.Equal(t, uint64(2), inf.PipelineLaterQuorumOp)
	assert.Empty(t, c.toClients, "no reply before commit")

	// The prepare timeout retransmits op 1 (only: op 2 has its quorum) to the
	// backups that have not acked it.
	c.removeFilter(lose)
	mark := len(c.delivered)
	c.tick(int(smallTimeouts().PrepareTicks))
	var resent []uint64
	for _, m := range c.delivered[mark:] {
		if m.Command == vsr.CmdPrepare {
			resent = append(resent, m.Prepare().Header.Op)
		}
	}
	assert.Equal(t, []uint64{1, 1}, resent)
	pc := c.eventsOf(0, vsr.EvPrimaryCommit)
	require.Len(t, pc, 2)
	assert.Equal(t, uint64(1), pc[0].Op)
	assert.Equal(t, uint64(2), pc[1].Op)
	assert.Equal(t, uint64(2), c.info(0).CommitMax)
	assert.Len(t, c.toClients, 2)
}

// TestNormalPrepareRetransmitUntilQuorum: prepares lost on the way are resent
// on the prepare timeout, with backoff, until a quorum acks.
func TestNormalPrepareRetransmitUntilQuorum(t *testing.T) {
	// Without the re-send on a heartbeat's answer (TestRetransmitOnHeard).
	c := newTestCluster(t, 3, func(o *Options) { o.Protocol.BackoffResetOff = true })
	lose := c.dropIf(cmd(vsr.CmdPrepare))
	c.request(0, 0, 1, put(1, 1))
	c.deliverAll()
	c.tick(int(smallTimeouts().PrepareTicks))
	resent := c.sent(cmd(vsr.CmdPrepare))
	// The first send (chain) went to r1; the retransmit goes to every backup
	// that has not acked.
	require.Len(t, resent, 3)
	assert.ElementsMatch(t, []int{1, 1, 2}, []int{resent[0].To, resent[1].To, resent[2].To})
	assert.Equal(t, uint64(0), c.info(0).CommitMax)

	// The next retransmit waits twice as long (backoff).
	c.tick(int(smallTimeouts().PrepareTicks))
	assert.Len(t, c.sent(cmd(vsr.CmdPrepare)), 3, "backoff: no retransmit one period later")
	c.removeFilter(lose)
	c.tick(int(smallTimeouts().PrepareTicks))
	assert.Equal(t, uint64(1), c.info(0).CommitMax)
	assert.Len(t, c.repliesTo(0), 1)
}

// TestNormalBackupCommitsOnlyWhatItHolds: commit_max from a heartbeat lets a
// backup apply in order only the ops its journal holds with an unbroken chain.
func TestNormalBackupCommitsOnlyWhatItHolds(t *testing.T) {
	c := newTestCluster(t, 3, func(o *Options) { o.Topology = TopologyStar })
	lose := c.dropIf(func(m *vsr.Message) bool { return m.To == 2 && m.Command == vsr.CmdPrepare })
	c.commitRequests(0, 1, 3)
	c.dropIf(func(m *vsr.Message) bool { return m.From == 2 && m.Command == vsr.CmdRequestPrepares })
	c.removeFilter(lose)
	c.tick(int(smallTimeouts().CommitTicks))
	inf := c.info(2)
	assert.Equal(t, uint64(3), inf.CommitMax)
	assert.Equal(t, uint64(0), inf.CommitMin, "nothing journaled, nothing applied")
	assert.Empty(t, c.eventsOf(2, vsr.EvCommit))
}
