package replica

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"vsrsim/vsr"
)

// staleSlot: a slot's intact op is stale when the durable ack head says a
// newer op was acked there (above the checkpoint); an empty slot is stale by
// the same measure (op 0).
func TestStaleSlot(t *testing.T) {
	for _, c := range []struct {
		name       string
		op         uint64
		slot       int
		checkpoint uint64
		acked      uint64
		want       bool
	}{
		{"the op the ack head names there", 215, 23, 0, 215, false},
		{"an older op where 215 was acked", 151, 23, 0, 215, true},
		{"the slot's op of the last wrap below the ack head", 151, 23, 0, 214, false},
		{"acked op at or below the checkpoint", 151, 23, 215, 215, false},
		{"empty where an acked op stood", 0, 23, 100, 215, true},
		{"empty slot past the ack head's reach", 0, 23, 0, 10, false},
	} {
		assert.Equal(t, c.want, staleSlot(c.op, c.slot, 64, c.checkpoint, c.acked), c.name)
	}
}

// recoveringHead puts replica i of c in the state a restart from disk leaves
// when it cannot vouch for its head: Recovering, amnesiac, every op up to
// top unsure.
func recoveringHead(c *testCluster, i int, top uint64) *Replica {
	r := c.r(i)
	r.status = vsr.StatusRecovering
	r.log.amnesiac = true
	r.log.recoveringHead = true
	r.log.unsureTop = top
	return r
}

// A replica recovering its head joins a newer view's change and votes: its
// head at its unsure top, the ops it cannot show unsure, never a nack. One
// amnesiac without a readable disk (no recovering-head flag) refuses.
func TestRecoveringHeadVotes(t *testing.T) {
	c := newTestCluster(t, 3, nil)
	c.commitRequests(0, 1, 3)
	r := recoveringHead(c, 2, c.r(2).wm.sequencer+2)
	head := r.wm.sequencer
	svc := vsr.StartViewChange{}.Message().Routed(1, 2, r.view+1)
	reason, _ := r.ignore(&svc)
	require.Equal(t, vsr.ReasonNone, reason, "a newer view's change is admitted")
	old := vsr.StartViewChange{}.Message().Routed(1, 2, r.view)
	reason, _ = r.ignore(&old)
	assert.Equal(t, vsr.ReasonRecovering, reason, "its own view's is not")

	var out vsr.Output
	r.Step(&svc, &out)
	require.Equal(t, vsr.StatusViewChange, r.status)
	assert.False(t, r.timers.Probe.Running, "its probes end")
	var m vsr.DoViewChange
	for k := range out.Messages {
		if out.Messages[k].Command == vsr.CmdDoViewChange {
			m = out.Messages[k].DoViewChange()
		}
	}
	require.NotZero(t, m.Op, "it votes once a peer joined (f = 1)")
	assert.Equal(t, head+2, m.Op, "the vote's head is its unsure top")
	require.True(t, suffixReadable(m.Op, m.Commit, m.Suffix))
	for _, e := range m.Suffix[:2] {
		assert.True(t, e.Blank() && !e.Nack, "op %d: unsure, never a nack", e.Header.Op)
	}

	a := newTestCluster(t, 3, nil)
	a.commitRequests(0, 1, 3)
	amnesiac := recoveringHead(a, 2, 0)
	amnesiac.log.recoveringHead = false
	svc = vsr.StartViewChange{}.Message().Routed(1, 2, amnesiac.view+1)
	reason, _ = amnesiac.ignore(&svc)
	assert.Equal(t, vsr.ReasonRecovering, reason, "an amnesiac replica has no vote")
}

// As the primary of the view it votes in, a replica recovering its head
// leads it: its own vote counts among the quorum, held to the standard of
// its peers', and the merge ends its recovery (its head is the merged log's).
// Barred once (D53), it stalled a core whose only view that could hear both
// nacks its merge needed was its own (D113; robust-2e57-777516556.vsr).
func TestRecoveringHeadLeadsTheViewItMerges(t *testing.T) {
	c := newTestCluster(t, 3, nil)
	c.commitRequests(0, 1, 3)
	head := c.r(1).wm.sequencer
	r := recoveringHead(c, 1, head+1)
	v := r.view + 1
	for vsr.PrimaryOf(v, r.n) != r.id {
		v++
	}
	var out vsr.Output
	for _, from := range []int{0, 2} {
		p := c.r(from)
		vote := vsr.DoViewChange{LogView: p.logView, Op: p.wm.sequencer, Commit: p.wm.commitMax,
			Suffix: p.buildSuffix(p.wm.sequencer, p.wm.commitMax)}
		m := vote.Message().Routed(from, 1, v)
		r.Step(&m, &out)
		require.True(t, r.vc.dvcs[r.id].valid, "its own vote, once a peer joined")
	}
	require.True(t, r.vc.merged, "a quorum of votes, its own among them")
	assert.False(t, r.log.recoveringHead, "the merge ends its recovery")
	assert.False(t, r.log.amnesiac)
	assert.Equal(t, head, r.wm.sequencer, "op %d, unsure, cut by both peers' nacks", head+1)
	assert.Equal(t, vsr.StatusNormal, r.status, "it holds every body of the merged log")
}

// The primary of its own view, recovering its head, cannot lead it and no
// one else will start it: it counts a peer's request to leave, and its own
// probe timeout adds its wish, which moves both into the next view. A backup
// does the same once its probes of the view went unanswered.
func TestRecoveringHeadLeavesTheViewItCannotLead(t *testing.T) {
	c := newTestCluster(t, 3, nil)
	c.commitRequests(0, 1, 3)
	r := recoveringHead(c, 0, c.r(0).wm.sequencer)
	require.True(t, r.isPrimary())
	r.timers.Probe.Start(nil)
	view := r.view
	var out vsr.Output
	leave := vsr.StartViewChange{Leave: true}.Message().Routed(1, 0, view)
	reason, _ := r.ignore(&leave)
	require.Equal(t, vsr.ReasonNone, reason, "a request to leave the view it cannot lead is taken")
	r.Step(&leave, &out)
	assert.Equal(t, vsr.StatusRecovering, r.status, "one request is no quorum")
	for k := 0; k < 10000 && r.status == vsr.StatusRecovering; k++ {
		r.Tick(&out)
		out.Reset()
	}
	require.Equal(t, vsr.StatusViewChange, r.status, "its probe timeout adds its own wish")
	assert.Equal(t, view+1, r.view)

	// A backup of its view takes a peer's request to leave too, and adds
	// its own wish once a round of its probes went unanswered (its primary
	// may be gone, and the peer needs this vote to move on).
	b := newTestCluster(t, 3, nil)
	b.commitRequests(0, 1, 3)
	backup := recoveringHead(b, 1, b.r(1).wm.sequencer)
	require.False(t, backup.isPrimary())
	backup.timers.Probe.Start(nil)
	leave = vsr.StartViewChange{Leave: true}.Message().Routed(2, 1, backup.view)
	reason, _ = backup.ignore(&leave)
	require.Equal(t, vsr.ReasonNone, reason, "a request to leave its own view is taken")
	backup.Step(&leave, &out)
	assert.Equal(t, vsr.StatusRecovering, backup.status, "one request is no quorum")
	probes := 0
	for k := 0; k < 10000 && backup.status == vsr.StatusRecovering; k++ {
		backup.Tick(&out)
		for _, m := range out.Messages {
			if m.Command == vsr.CmdRequestStartView {
				probes++
			}
		}
		out.Reset()
	}
	require.Equal(t, vsr.StatusViewChange, backup.status, "an unanswered probe round adds its wish")
	assert.Positive(t, probes, "it asked its view first")
	assert.Equal(t, view+1, backup.view)
}

// A restart holds unsure only what it may have acked in the log its durable
// log_view holds (ackBound): acks of an older view above that log's head
// were cut by the view change that made it (swarm seed 81: a replica back in
// log_view 13 with head 1 held ops 2..8 it acked in view 11 unsure, and no
// view change completed).
func TestAckBoundIsTheDurableLogViewsAcks(t *testing.T) {
	for _, c := range []struct {
		name string
		sb   Superblock
		want uint64
	}{
		{"acks in the log_view past its head", Superblock{LogView: 5, AckView: 5, AckViewHead: 9, AckHead: 9, Head: 7}, 9},
		{"the head covers the acks below it", Superblock{LogView: 5, AckView: 5, AckViewHead: 3, AckHead: 9, Head: 7}, 7},
		// D108: in its ack view's log, acks of older views reach no further
		// than the ack head (swarm seed 4207824157 from 0xface0000: r1 acked
		// op 32 in view 8, its older acks cut at 31 by D103, its head 36; a
		// faulty slot of op 33 was held unsure under a bound of 36).
		{"the ack view's log above every ack", Superblock{LogView: 8, AckView: 8, AckViewHead: 32, AckHead: 32, Head: 36}, 32},
		{"acks of an older view above the head", Superblock{LogView: 13, AckView: 11, AckViewHead: 8, AckHead: 8, Head: 1}, 1},
		// D61: a log_view merged as primary-elect and never started holds
		// no ack of its own; its merged ops above the ack head were never
		// acked here (a restart held ops 80 and 81 of such a log unsure, and
		// with the only holder outside the core no view completed).
		{"a merged log_view's head above every ack", Superblock{LogView: 3, AckView: 2, AckViewHead: 79, AckHead: 79, Head: 81, Merged: true}, 79},
		{"a merged log_view's head below the ack head", Superblock{LogView: 3, AckView: 2, AckViewHead: 85, AckHead: 85, Head: 81, Merged: true}, 81},
		// D101: a log_view adopted from a StartView and never acked in
		// likewise (swarm seed 2124484763 from 0x7ea00000: r2, back in
		// log_view 7 with ack head 30, held ops 31..78 unsure and could
		// not nack op 78, which only the down primary held).
		{"an adopted log_view's head above every ack", Superblock{LogView: 7, AckView: 5, AckViewHead: 30, AckHead: 30, Head: 78}, 30},
		{"an adopted log_view's head below the ack head", Superblock{LogView: 7, AckView: 5, AckViewHead: 85, AckHead: 85, Head: 78}, 78},
	} {
		assert.Equal(t, c.want, ackBound(&c.sb), c.name)
	}

	faultyAt := func(sb Superblock) (*Replica, bool) {
		r, _ := walBackup(t)
		r.dur.sb = sb
		held := r.holdFaulty(diskRecovery{slots: 64, broken: []brokenSlot{{slot: 5, read: slotRead{class: slotFaulty}}}})
		return r, held
	}
	r, held := faultyAt(Superblock{LogView: 13, AckView: 11, AckViewHead: 8, AckHead: 8, Head: 0})
	assert.True(t, held, "an op acked in view 11 is not in log_view 13's log: the slot is empty")
	assert.Empty(t, r.log.unsureOps)
	_, held = faultyAt(Superblock{LogView: 13, AckView: 13, AckViewHead: 8, AckHead: 8, Head: 0})
	assert.False(t, held, "acked in log_view 13 above the head: the head is unknown")
}

// TestUnknownHeadStillSetsAsideTheCopiesBelow (D106): a restart whose head
// slot is faulty with no copy to vouch for comes back recovering its head,
// and the faulty slots below it still keep their intact header copies set
// aside: served to peers and taken by a merge this replica leads (swarm
// seed 2963757403 from 0xb0a70000: r0's restart stopped at its head slot
// and dropped the one intact copy of op 111 below it, which no other
// replica held, and no view completed).
func TestUnknownHeadStillSetsAsideTheCopiesBelow(t *testing.T) {
	hs := chainHeaders(6, 1)
	r, _ := walBackup(t)
	r.dur.sb = Superblock{LogView: 1, AckView: 1, AckViewHead: 6, AckHead: 6, Head: 6}
	r.wm.sequencer = 6
	held := r.holdFaulty(diskRecovery{slots: 64, broken: []brokenSlot{
		{slot: 5, read: slotRead{class: slotFaulty, header: hs[5], hasHeader: true}},
		{slot: 6, read: slotRead{class: slotFaulty}},
	}})
	require.False(t, held, "the head's slot says nothing of it: the head is unknown")
	a, aside := r.log.aside.Get(5)
	assert.True(t, aside, "op 5's intact copy below it is set aside all the same")
	assert.Equal(t, hs[5].Checksum, a.Checksum)
	assert.Empty(t, r.log.unsureOps, "nothing held: the restart recovers its head")
}

// TestFaultySlotAboveTheAckBoundStillVouched (D108): a faulty slot whose op
// lies above the ack bound held nothing this replica acked, so it is never
// held unsure; a header copy the log vouches for (the op above names it) is
// journaled all the same, as below the bound, and one nothing vouches for is
// set aside (swarm seed 3737920981: a narrower bound dropped such a copy of
// op 167 and its run ended unrecoverable).
func TestFaultySlotAboveTheAckBoundStillVouched(t *testing.T) {
	hs := chainHeaders(6, 1)
	for _, vouched := range []bool{true, false} {
		r, _ := walBackup(t)
		r.dur.sb = Superblock{LogView: 1, AckView: 1, AckViewHead: 3, AckHead: 3, Head: 6}
		r.wm.sequencer, r.wm.headSum = 6, hs[6].Checksum
		if vouched {
			require.True(t, r.journalPut(hs[6], true))
		}
		held := r.holdFaulty(diskRecovery{slots: 64, broken: []brokenSlot{
			{slot: 5, read: slotRead{class: slotFaulty, header: hs[5], hasHeader: true}},
		}})
		require.True(t, held, "op 5 lies above the ack bound 3: nothing to hold unsure")
		assert.Empty(t, r.log.unsureOps)
		_, journaled := r.log.journal.Get(5)
		_, aside := r.log.aside.Get(5)
		assert.Equal(t, vouched, journaled, "vouched=%v: op 6 above names it", vouched)
		assert.Equal(t, !vouched, aside, "vouched=%v: else kept aside", vouched)
	}
}
