package replica

import (
	"testing"
	"vsrsim/vsr"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Repair: protocol.md "Repair" (RequestPrepares / RepairPrepare / RepairDone,
// verification against canonical headers, commit catch-up).

// lagging returns a 3-replica star cluster in which r2 missed every prepare
// for ops 1..ops; the filter that starved it is already removed.
func lagging(t *testing.T, ops uint64) *testCluster {
	t.Helper()
	c := newTestCluster(t, 3, func(o *Options) { o.Topology = TopologyStar })
	starve := c.dropIf(func(m *vsr.Message) bool { return m.Command == vsr.CmdPrepare && m.To == 2 })
	c.commitRequests(0, 1, ops)
	require.Equal(t, ops, c.info(0).CommitMax)
	require.Equal(t, uint64(0), c.info(2).Sequencer)
	c.removeFilter(starve)
	return c
}

// TestRepairLaggingBackupCatchesUp: a backup that learns commit_max from a
// heartbeat fetches the ops it lacks from the primary and commits them.
func TestRepairLaggingBackupCatchesUp(t *testing.T) {
	c := lagging(t, 5)
	c.tickUntil(50, func() bool { return c.info(2).CommitMin == 5 }, "r2 catches up")

	reqs := c.eventsOf(2, vsr.EvRepairRequest)
	require.NotEmpty(t, reqs)
	assert.Equal(t, uint64(1), reqs[0].Op, "from commit_min+1")
	assert.Equal(t, uint64(5), reqs[0].RepairRequested().To, "to commit_max")
	assert.Equal(t, 0, reqs[0].RepairRequested().Peer, "the primary by default")

	repairs := c.sent(func(m *vsr.Message) bool { return m.Command == vsr.CmdRepairPrepare && m.To == 2 })
	require.Len(t, repairs, 5)
	for k, m := range repairs {
		assert.Equal(t, uint64(k+1), m.RepairPrepare().Header.Op)
		assert.Equal(t, 0, m.From)
	}
	done := c.sent(cmdTo(vsr.CmdRepairDone, 2))
	require.Len(t, done, 1)
	assert.Equal(t, uint64(5), done[0].RepairDone().Last, "RepairDone names the last op served")

	inf := c.info(2)
	assert.Equal(t, uint64(5), inf.Sequencer)
	assert.Equal(t, uint64(5), inf.CommitMax)
	for op := uint64(1); op <= 5; op++ {
		h0, _ := c.r(0).log.journal.Get(op)
		assert.True(t, c.r(2).log.journal.Has(op, h0.Checksum), "op %d repaired with the primary's checksum", op)
	}
	assert.Equal(t, c.r(0).sm, c.r(2).sm, "same state after catch-up")
	assert.Empty(t, c.eventsOf(2, vsr.EvAck), "committed ops fetched by repair are not acked")
}

// TestRepairWindowBounded: a lag wider than RepairWindowMax is fetched one
// window at a time.
func TestRepairWindowBounded(t *testing.T) {
	c := lagging(t, vsr.RepairWindowMax+8)
	c.tickUntil(100, func() bool { return c.info(2).CommitMin == vsr.RepairWindowMax+8 }, "r2 catches up")
	reqs := c.eventsOf(2, vsr.EvRepairRequest)
	require.GreaterOrEqual(t, len(reqs), 2)
	assert.Equal(t, uint64(1), reqs[0].Op)
	assert.Equal(t, uint64(vsr.RepairWindowMax), reqs[0].RepairRequested().To)
	assert.Equal(t, uint64(vsr.RepairWindowMax+1), reqs[1].Op)
	assert.Equal(t, uint64(vsr.RepairWindowMax+8), reqs[1].RepairRequested().To)
}

// TestRepairRotatesPeerOnStall: when the primary never answers, the repair
// timeout counts a stall and the next session asks another peer.
func TestRepairRotatesPeerOnStall(t *testing.T) {
	c := lagging(t, 3)
	c.dropIf(func(m *vsr.Message) bool { return m.Command == vsr.CmdRequestPrepares && m.To == 0 })
	c.tickUntil(100, func() bool { return c.info(2).CommitMin == 3 }, "r2 catches up from r1")
	reqs := c.eventsOf(2, vsr.EvRepairRequest)
	require.GreaterOrEqual(t, len(reqs), 2)
	assert.Equal(t, 0, reqs[0].RepairRequested().Peer)
	assert.Equal(t, 1, reqs[len(reqs)-1].RepairRequested().Peer, "rotated to r1 after the stall")
	served := c.sent(func(m *vsr.Message) bool { return m.Command == vsr.CmdRepairPrepare && m.To == 2 })
	for _, m := range served {
		assert.Equal(t, 1, m.From)
	}
}

// TestRepairGapClosedByRepair: a backup that missed op 1 drops op 2 at the
// gap check and later repairs both; its commit catches up.
func TestRepairGapClosedByRepair(t *testing.T) {
	c := newTestCluster(t, 3, func(o *Options) { o.Topology = TopologyStar })
	lose := c.dropIf(func(m *vsr.Message) bool {
		return m.Command == vsr.CmdPrepare && m.To == 2 && m.Prepare().Header.Op == 1
	})
	c.commitRequests(0, 1, 2)
	c.removeFilter(lose)
	require.Len(t, c.drops(2, "gap"), 1)
	c.tickUntil(50, func() bool { return c.info(2).CommitMin == 2 }, "r2 repairs the gap")
	assert.True(t, c.r(2).Journaled(1))
	assert.True(t, c.r(2).Journaled(2))
	assert.NotEmpty(t, c.eventsOf(2, vsr.EvRepairRequest))
}

// TestRepairVerification: a repaired body is journaled only if it matches the
// adopted header, or is committed and applied by its server, or links to the
// committed head; anything else is dropped.
func TestRepairVerification(t *testing.T) {
	hs := chainHeaders(3, 0)
	forged := hs[2]
	forged.Body = put(2, 666)
	forged.Seal()
	require.NotEqual(t, hs[2].Checksum, forged.Checksum)

	t.Run("header mismatch", func(t *testing.T) {
		r, err := New(DefaultOptions(2, 3), zeroJitter{})
		require.NoError(t, err)
		out := &vsr.Output{}
		// Adopt a view with op 1 committed and ops 2..3 uncommitted.
		r.Step(msg(vsr.StartView{LogView: 1, Op: 3, Commit: 1,
			Suffix: []vsr.SuffixEntry{present(hs[3]), present(hs[2]), present(hs[1])}}, 1, 2, 1), out)
		out.Reset()
		r.Step(msg(vsr.RepairPrepare{Header: forged, Commit: 1}, 1, 2, 1), out)
		drops := eventsIn(out, vsr.EvDrop)
		require.Len(t, drops, 1)
		assert.Equal(t, vsr.ReasonHeaderMismatch, drops[0].Dropped().Reason)
		assert.False(t, r.Journaled(2))

		out.Reset()
		r.Step(msg(vsr.RepairPrepare{Header: hs[2], Commit: 1}, 1, 2, 1), out)
		assert.True(t, r.log.journal.Has(2, hs[2].Checksum))
		acks := eventsIn(out, vsr.EvAck)
		require.Len(t, acks, 1, "an uncommitted op within the adopted head is acked once repaired")
		assert.Equal(t, uint64(2), acks[0].Op)
	})
	t.Run("unverified", func(t *testing.T) {
		r, err := New(DefaultOptions(2, 3), zeroJitter{})
		require.NoError(t, err)
		out := &vsr.Output{}
		// No adopted header, not committed: nothing vouches for it.
		r.Step(msg(vsr.RepairPrepare{Header: hs[1], Commit: 0}, 0, 2, 0), out)
		drops := eventsIn(out, vsr.EvDrop)
		require.Len(t, drops, 1)
		assert.Equal(t, vsr.ReasonUnverified, drops[0].Dropped().Reason)
		assert.False(t, r.Journaled(1))
	})
	t.Run("bad checksum", func(t *testing.T) {
		r, err := New(DefaultOptions(2, 3), zeroJitter{})
		require.NoError(t, err)
		out := &vsr.Output{}
		bad := hs[1]
		bad.Body.Value++
		r.Step(msg(vsr.RepairPrepare{Header: bad, Commit: 1}, 0, 2, 0), out)
		drops := eventsIn(out, vsr.EvDrop)
		require.Len(t, drops, 1)
		assert.Equal(t, vsr.ReasonBadChecksum, drops[0].Dropped().Reason)
	})
}

// TestRepairServerBounds: the server answers a range with RepairPrepares and
// one RepairDone, skipping ops it lacks; a recovering replica serves nothing.
func TestRepairServerBounds(t *testing.T) {
	c := newTestCluster(t, 3, nil)
	c.commitRequests(0, 1, 4)
	out := &vsr.Output{}
	c.r(0).Step(msg(vsr.RequestPrepares{From: 3, To: 9}, 1, 0, 0), out)
	var ops []uint64
	var done []vsr.RepairDone
	for _, m := range out.Messages {
		switch m.Command {
		case vsr.CmdRepairPrepare:
			p := m.RepairPrepare()
			ops = append(ops, p.Header.Op)
			assert.Equal(t, uint64(4), p.Commit, "carries the server's commit_min")
		case vsr.CmdRepairDone:
			done = append(done, m.RepairDone())
		}
	}
	assert.Equal(t, []uint64{3, 4}, ops)
	require.Len(t, done, 1)
	assert.Equal(t, uint64(4), done[0].Last)

	out.Reset()
	c.r(0).Step(msg(vsr.RequestPrepares{From: 5, To: 3}, 1, 0, 0), out)
	assert.Empty(t, out.Messages)
	drops := eventsIn(out, vsr.EvDrop)
	require.Len(t, drops, 1)
	assert.Equal(t, vsr.ReasonBadRange, drops[0].Dropped().Reason)
}

// TestRepairVerifiesDownTheChain: bodies between commit_min and commit_max
// from a server that has not applied them are accepted only when something
// canonical vouches for them: the commit anchor, then each verified op for
// its parent, even when they arrive bottom-up. A fork that merely links to
// commit_min (an abandoned view's op) is refused.
func TestRepairVerifiesDownTheChain(t *testing.T) {
	hs := chainHeaders(8, 0)
	fork := vsr.Header{Op: 6, Parent: hs[5].Checksum, Timestamp: 99, Body: put(6, 600)}
	fork.Seal()
	require.NotEqual(t, hs[6].Checksum, fork.Checksum)

	r, err := New(DefaultOptions(1, 3), zeroJitter{})
	require.NoError(t, err)
	out := &vsr.Output{}
	r.fx.Out = out
	for op := 1; op <= 5; op++ {
		r.journalPut(hs[op], true)
		r.apply(hs[op])
	}
	r.fx.Out = nil // as a step leaves it
	r.wm.commitMax = 8
	r.log.commitAnchor = vsr.Header{Op: 8, Checksum: hs[8].Checksum}
	repair := func(h vsr.Header) {
		r.Step(msg(vsr.RepairPrepare{Header: h, Commit: 0}, 2, 1, 0), out)
	}

	repair(fork)
	assert.False(t, r.log.journal.Has(6, fork.Checksum), "a fork linking to commit_min is not canonical")
	assert.Equal(t, uint64(5), r.wm.commitMin)

	for op := 6; op <= 8; op++ { // bottom-up: nothing vouches until op 8
		repair(hs[op])
	}
	assert.Equal(t, uint64(8), r.wm.commitMin, "op 8 vouched by the anchor lets 7 and 6 in")
	assert.Equal(t, hs[8].Checksum, r.wm.commitSum)
}
