package replica

import (
	"testing"
	"vsrsim/vsr"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Restarts: protocol.md "View change" (restarted replicas come up Recovering,
// probe with RequestStartView, vote in no election) and "Fault model: amnesia
// and what is recoverable" (memory journals, incarnations).

func memoryJournal(o *Options) { o.Durability = DurabilityMemory }

func starMemory(o *Options) {
	o.Topology = TopologyStar
	o.Durability = DurabilityMemory
}

// TestRestartMemoryJournalCatchesUp: Recovering -> RequestStartView ->
// StartView -> repair -> commit, for a replica whose journal reads empty.
func TestRestartMemoryJournalCatchesUp(t *testing.T) {
	c := newTestCluster(t, 3, memoryJournal)
	c.commitRequests(0, 1, 3)
	c.tick(int(smallTimeouts().CommitTicks))
	require.Equal(t, uint64(3), c.info(2).CommitMin)

	c.crash(2)
	c.restart(2)
	inf := c.info(2)
	assert.Equal(t, vsr.StatusRecovering, inf.Status)
	assert.Equal(t, uint64(1), inf.Incarnation)
	assert.Equal(t, uint64(0), inf.Sequencer, "amnesia: the journal reads empty")
	assert.Equal(t, uint64(0), inf.CommitMin, "back to the checkpoint (genesis)")
	assert.False(t, c.r(2).Journaled(1))
	mark := len(c.events)

	c.tickUntil(50, func() bool { return c.info(2).CommitMin == 3 }, "r2 catches up")
	probes := c.sent(cmdFrom(vsr.CmdRequestStartView, 2))
	require.NotEmpty(t, probes)
	assert.Equal(t, uint64(1), probes[0].RequestStartView().Incarnation, "the probe carries the incarnation")
	views := c.sent(cmdTo(vsr.CmdStartView, 2))
	require.NotEmpty(t, views)
	assert.Equal(t, 0, views[0].From, "the primary answers the probe")
	assert.Equal(t, probes[0].RequestStartView().Nonce, views[0].StartView().Nonce, "with the probe's nonce")
	assert.Equal(t, uint64(3), views[0].StartView().Op)

	var order []vsr.EventKind
	for _, e := range c.events[mark:] {
		if e.Replica == 2 && (e.Kind == vsr.EvStatus || e.Kind == vsr.EvRepairRequest || e.Kind == vsr.EvCommit) {
			if len(order) == 0 || order[len(order)-1] != e.Kind {
				order = append(order, e.Kind)
			}
		}
	}
	assert.Equal(t, []vsr.EventKind{vsr.EvStatus, vsr.EvRepairRequest, vsr.EvCommit}, order,
		"adopt the view, then repair, then commit")
	st := c.eventsOf(2, vsr.EvStatus)
	require.NotEmpty(t, st)
	assert.Equal(t, vsr.StatusNormal, st[0].StatusChanged().Status)
	reqs := c.eventsOf(2, vsr.EvRepairRequest)
	assert.Equal(t, uint64(1), reqs[0].Op)
	assert.Equal(t, uint64(3), reqs[0].RepairRequested().To)
	assert.Equal(t, c.r(0).sm, c.r(2).sm)

	// The incarnation is durable: the next restart bumps it again.
	c.crash(2)
	c.restart(2)
	assert.Equal(t, uint64(2), c.info(2).Incarnation)
}

// TestRestartWALJournalSurvives: with a write-ahead journal the restarted
// replica keeps its log; after adopting the view it commits without repair.
func TestRestartWALJournalSurvives(t *testing.T) {
	c := newTestCluster(t, 3, nil)
	c.commitRequests(0, 1, 3)
	c.tick(int(smallTimeouts().CommitTicks))
	c.crash(2)
	c.restart(2)
	inf := c.info(2)
	assert.Equal(t, vsr.StatusNormal, inf.Status, "a backup resumes its settled view")
	assert.Equal(t, uint64(3), inf.Sequencer, "the head walks up the surviving journal")
	assert.Equal(t, uint64(0), inf.CommitMin)
	c.tickUntil(50, func() bool { return c.info(2).CommitMin == 3 }, "r2 commits from its own journal")
	assert.Empty(t, c.eventsOf(2, vsr.EvRepairRequest), "nothing to fetch")
}

// TestRestartRecoveringVotesInNoElection: the last primary crashes while the
// only other live replica is Recovering after amnesia. The recovering replica
// sends no StartViewChange or DoViewChange, so no view change completes: a
// legitimate stall. (With relays on, the live backup hands it the view
// before its own heartbeat timeout runs out: TestRestartRecoveringTakesRelayedView.)
func TestRestartRecoveringVotesInNoElection(t *testing.T) {
	c := newTestCluster(t, 3, func(o *Options) {
		memoryJournal(o)
		o.Protocol.RelayStartViewOff = true
	})
	c.commitRequests(0, 1, 2)
	c.crash(2)
	c.restart(2)
	c.crash(0)
	since := c.mark()
	c.tick(300)
	assert.Equal(t, vsr.StatusRecovering, c.info(2).Status)
	assert.Equal(t, uint64(0), c.info(1).View, "alone, r1 cannot leave view 0")
	asks := c.sentSince(since, func(m *vsr.Message) bool {
		return m.Command == vsr.CmdStartViewChange && m.From == 1 && m.StartViewChange().Leave
	})
	assert.NotEmpty(t, asks, "r1 asks to leave")
	for _, m := range c.sentSince(since, func(m *vsr.Message) bool { return m.From == 2 }) {
		assert.NotEqual(t, vsr.CmdStartViewChange, m.Command, "a recovering replica joined a view change")
		assert.NotEqual(t, vsr.CmdDoViewChange, m.Command, "a recovering replica voted")
		assert.NotEqual(t, vsr.CmdPrepareOK, m.Command, "a recovering replica acked")
	}
	assert.NotEmpty(t, c.sent(cmdFrom(vsr.CmdRequestStartView, 2)), "it keeps probing")
	assert.Empty(t, c.eventsOf(1, vsr.EvMergeTruncate))
}

// TestRestartRecoveringTakesRelayedView: as above, but the live backup,
// still following view 0 when the recovering replica's probe reaches it,
// relays the view; the recovering replica adopts it, and the two elect view 1
// with every committed op.
func TestRestartRecoveringTakesRelayedView(t *testing.T) {
	c := newTestCluster(t, 3, memoryJournal)
	c.commitRequests(0, 1, 2)
	c.crash(2)
	c.restart(2)
	c.crash(0)
	c.tickUntil(600, func() bool {
		return c.info(1).View == 1 && c.info(1).Status == vsr.StatusNormal && c.info(2).Status == vsr.StatusNormal
	},
		"r1 and r2 elect view 1")
	assert.NotEmpty(t, c.sent(func(m *vsr.Message) bool {
		return m.Command == vsr.CmdStartView && m.From == 1 && m.To == 2 && m.View == 0
	}), "r1 relayed view 0")
	assert.Equal(t, uint64(2), c.info(1).CommitMax, "nothing committed is lost")
	assert.Empty(t, c.eventsOf(1, vsr.EvMergeTruncate))
}

// TestRestartRecoveringAcksNothing: a Recovering replica drops prepares.
func TestRestartRecoveringAcksNothing(t *testing.T) {
	c := newTestCluster(t, 3, starMemory)
	c.crash(2)
	c.restart(2)
	c.dropIf(cmdTo(vsr.CmdRequestStartView, 0)) // keep r2 Recovering
	c.commitRequests(0, 1, 2)
	assert.Len(t, c.drops(2, "recovering"), 2)
	assert.Empty(t, c.eventsOf(2, vsr.EvAck))
	assert.Equal(t, vsr.StatusRecovering, c.info(2).Status)
	assert.Equal(t, uint64(2), c.info(0).CommitMax, "r0 and r1 commit without it")
}

// TestRestartStaleIncarnationAckIgnored: a PrepareOk that was in flight across
// a crash speaks for a journal that no longer exists. Once the primary learned
// the new incarnation from a probe, it ignores the old ack; the op commits only
// on the restarted replica's fresh ack after it repaired the body.
func TestRestartStaleIncarnationAckIgnored(t *testing.T) {
	c := newTestCluster(t, 3, starMemory)
	c.dropIf(cmdTo(vsr.CmdPrepare, 1)) // r1 never sees op 1: r2's ack decides
	c.request(0, 0, 1, put(1, 10))
	for c.deliverOne() {
		if len(c.queue) > 0 && c.queue[0].Command == vsr.CmdPrepareOK {
			break
		}
	}
	held := c.take(cmdFrom(vsr.CmdPrepareOK, 2))
	require.Len(t, held, 1)
	require.Equal(t, uint64(0), held[0].PrepareOk().Incarnation)
	c.deliverAll()

	c.crash(2)
	c.restart(2)
	// r0 learns incarnation 1 from the probe, but r2 does not get the answer yet.
	noView := c.dropIf(cmdTo(vsr.CmdStartView, 2))
	c.tickUntil(50, func() bool { return len(c.sent(cmdTo(vsr.CmdStartView, 2))) > 0 }, "r0 answers a probe")
	require.Equal(t, uint64(1), c.r(0).peers.Incarnations[2])

	c.inject(held[0])
	c.deliverAll()
	stale := c.drops(0, "stale-incarnation")
	require.Len(t, stale, 1)
	assert.Equal(t, uint64(1), stale[0].Dropped().Detail)
	assert.Equal(t, uint64(0), c.info(0).CommitMax, "the old incarnation's ack does not count")
	assert.Empty(t, c.repliesTo(0))

	// r2 adopts the view header-only: sequencer jumps to op 1, the body is
	// missing. Its repair requests never reach r0, but the primary's
	// retransmitted prepare of op 1 is the body the adopted header names:
	// taken as a repair (onPrepare), never dropped by the gap check, and
	// the fresh ack commits it.
	noRepair := c.dropIf(cmdFrom(vsr.CmdRequestPrepares, 2))
	c.removeFilter(noView)
	c.tickUntil(50, func() bool { return c.info(2).Status == vsr.StatusNormal }, "r2 adopts the view")
	assert.Equal(t, uint64(1), c.info(2).Sequencer)
	assert.False(t, c.r(2).Journaled(1))
	assert.Equal(t, uint64(0), c.info(0).CommitMax)
	c.tickUntil(100, func() bool { return c.info(0).CommitMax == 1 }, "op 1 commits on the fresh ack")
	assert.True(t, c.r(2).Journaled(1), "the retransmitted prepare repaired op 1")
	assert.Empty(t, c.drops(2, "gap"), "a prepare whose header r2 holds passes the gap check")
	c.removeFilter(noRepair)
	fresh := c.sent(func(m *vsr.Message) bool {
		return m.Command == vsr.CmdPrepareOK && m.From == 2 && m.PrepareOk().Incarnation == 1
	})
	require.NotEmpty(t, fresh)
	pc := c.eventsOf(0, vsr.EvPrimaryCommit)
	require.Len(t, pc, 1)
	assert.Equal(t, uint64(2), pc[0].PrimaryCommitted().Acks)
	assert.Len(t, c.repliesTo(0), 1)
}

// TestRestartMemoryBelowCheckpointRangeEvicted: after amnesia a replica can
// serve nothing below its checkpoint: a repair request there is answered with
// RangeEvicted naming its first retained op.
func TestRestartMemoryBelowCheckpointRangeEvicted(t *testing.T) {
	c := newTestCluster(t, 3, func(o *Options) {
		o.Durability = DurabilityMemory
		o.CheckpointInterval = 4
	})
	c.commitRequests(0, 1, 5)
	c.tick(int(smallTimeouts().CommitTicks))
	require.Equal(t, uint64(5), c.info(1).CommitMin)
	c.crash(1)
	c.restart(1)
	assert.Equal(t, uint64(4), c.info(1).Checkpoint)
	assert.Equal(t, uint64(4), c.info(1).CommitMin, "restarts from its checkpoint")
	c.tickUntil(50, func() bool { return c.info(1).CommitMin == 5 }, "r1 repairs op 5")
	out := &vsr.Output{}
	c.r(1).Step(msg(vsr.RequestPrepares{From: 2, To: 5}, 2, 1, 0), out)
	require.Len(t, out.Messages, 1)
	assert.Equal(t, vsr.CmdRangeEvicted, out.Messages[0].Command)
	assert.Equal(t, uint64(5), out.Messages[0].RangeEvicted().First, "first op above the checkpoint")
}

// TestRelayNeedsALogUpToCommit: a backup whose head lags its commit point
// (it learned the commit from heartbeats and has not repaired the ops) does
// not relay its view: its StartView would name a head below the commit point
// with no header to chain a prepare to, and the recovering replica that took
// it dropped the next prepare as not linking (swarm seed 2998).
func TestRelayNeedsALogUpToCommit(t *testing.T) {
	c := newTestCluster(t, 3, memoryJournal)
	c.dropIf(cmdTo(vsr.CmdPrepare, 1))
	c.dropIf(cmdFrom(vsr.CmdRequestPrepares, 1))
	c.commitRequests(0, 1, 2)
	c.tickUntil(100, func() bool { return c.info(1).CommitMax == 2 }, "r1 learns the commit point")
	require.Equal(t, uint64(0), c.info(1).Sequencer, "r1 holds none of it")
	c.crash(2)
	c.restart(2)
	since := c.mark()
	c.tickUntil(200, func() bool { return c.info(2).Status == vsr.StatusNormal }, "r2 takes the view from the primary")
	assert.Empty(t, c.sentSince(since, func(m *vsr.Message) bool { return m.Command == vsr.CmdStartView && m.From == 1 }),
		"r1 relays nothing while its log stops below its commit point")
	assert.Equal(t, uint64(2), c.info(2).Sequencer)
}

// TestOneReplicaRestartCountsItsOwnVote: a one-replica cluster restarted from
// its write-ahead journal comes back in a view change (it led the view it
// crashed in) and is its own view-change quorum: f = 0, so it votes and
// starts the next view on its first step, not a status timeout later
// (issue 35 point 9: it sat in view change for the whole 500 ticks).
func TestOneReplicaRestartCountsItsOwnVote(t *testing.T) {
	c := newTestCluster(t, 1, nil)
	c.commitRequests(0, 1, 3)
	c.crash(0)
	c.restart(0)
	require.Equal(t, vsr.StatusViewChange, c.info(0).Status, "the primary of the view it crashed in comes back changing view")
	c.tick(1)
	inf := c.info(0)
	assert.Equal(t, vsr.StatusNormal, inf.Status, "its own vote is a view-change quorum of one")
	assert.Equal(t, uint64(1), inf.View, "the view after the one it crashed in, with no escalation")
	assert.Equal(t, uint64(1), inf.LogView)
	assert.Equal(t, uint64(3), inf.Sequencer, "the journal survived")
	c.tickUntil(10, func() bool { return c.info(0).CommitMin == 3 }, "r0 commits from its own journal")
	assert.Empty(t, c.eventsOf(0, vsr.EvViewEscalate), "no status timeout was needed")
}
