package replica

import (
	"math"

	"vsrsim/marks"
	"vsrsim/vsr"
)

// The StartView side of a view change: a new primary's log handed to its
// backups, adopted by each, asked for by a replica that lost its view
// (RequestStartView), and probed for when a newer view shows itself.

// sendStartView sends this primary's view: head, commit and the headers from
// the head down to the commit point.
func (r *Replica) sendStartView(to int, nonce uint64) {
	r.fx.Send(to, r.startViewOf(nonce).Message())
}

// startViewOf is this replica's view as a StartView: its log's head, commit
// point and the headers between.
func (r *Replica) startViewOf(nonce uint64) vsr.StartView {
	return vsr.StartView{
		LogView: r.logView,
		Op:      r.wm.sequencer,
		Commit:  r.wm.commitMax,
		Suffix:  r.buildSuffix(r.wm.sequencer, r.wm.commitMax),
		Nonce:   nonce,
	}
}

func (r *Replica) onStartView(m *vsr.Envelope, p vsr.StartView) {
	vsr.Assert(r.id, m.View >= r.view, "start_view_gate_primary", vsr.DetailGate)
	vsr.Assert(r.id, r.id != vsr.PrimaryOf(m.View, r.n), "start_view_gate_primary", vsr.DetailGate)
	if m.From != vsr.PrimaryOf(m.View, r.n) {
		r.fx.Mark(marks.StartViewRelayAdopted)
	}
	r.adoptStartView(m.View, p)
	vsr.Assert(r.id, r.status == vsr.StatusNormal, "adopt_start_view_normal", vsr.DetailHolds)
	vsr.Assert(r.id, r.view == m.View, "adopt_start_view_normal", vsr.DetailHolds)
	vsr.Assert(r.id, r.logView == m.View, "adopt_start_view_normal", vsr.DetailHolds)
}

// endAmnesia bounds what a replica that lost its journal, or could not vouch
// for its head, holds unsure once it adopts a view with head op.
func (r *Replica) endAmnesia(op uint64) {
	if r.dur.store != nil {
		r.fx.Mark(marks.StorageHeadRecovered)
	}
	// Every op this replica could have acknowledged before it lost its
	// journal lies at or below its durable ack head (set at restart) and
	// at or below the head of the first view it adopts after (a
	// quorum-acked op survives every later view change, and the gate
	// refuses an old StartView of the view it acked in, below-ack): the
	// lower bound keeps ops prepared while it was down from being held
	// unsure.
	r.log.amnesiac = false
	r.log.recoveringHead = false
	if r.dur.sb.Amnesiac {
		// Its superblock was lost: no ack bound survived, and any op of
		// the adopted log may be one it acked before the loss. Held
		// unsure up to the view's head, so its votes nack none of them
		// (robust-atlas-off-merge-drops-committed-c0ffee.vsr: header-only
		// entries of such a replica counted as nacks and cut a committed
		// op).
		r.log.unsureTop = op
		// Durably so: a restart before its commit point passes op holds
		// them unsure again (D92; swarm seed 3520014390 from 0xd1ce0000,
		// whose restart voted the bodiless headers of ops it had acked as
		// primary of view 2, and the merge cut committed op 75).
		r.dur.sb.Rejoined = r.dur.store != nil
	}
	r.dur.sb.Amnesiac = false // the next superblock names a view adopted
	// The records it could not place served while it recovered; from here
	// on its journal and repair hold what it serves (D84).
	r.log.unplaced.Release()
	r.log.unsureTop = min(r.log.unsureTop, op)
	vsr.Assert(r.id, r.log.unsureTop <= op, "amnesia_ends_at_view_head", "unsure %d head %d", r.log.unsureTop, op)
}

// adoptStartView adopts the primary's log. The sequencer jumps to the announced
// head even when bodies are missing: the headers are kept and repair fetches
// the bodies.
func (r *Replica) adoptStartView(view uint64, m vsr.StartView) {
	if r.log.amnesiac {
		r.endAmnesia(m.Op)
	}
	r.fx.Mark(marks.StartViewInstalled)
	fork := r.ackedFork()
	r.view = view
	r.logView = view
	r.dur.sb.Merged = false // a log adopted from its primary, not merged here
	r.advanceCommitMax(m.Commit)
	r.clearAdopted()
	r.log.adoptedLogView = view
	for i := range m.Suffix {
		h := m.Suffix[i].Header
		if m.Suffix[i].Blank() || h.Op <= r.wm.commitMin {
			continue
		}
		if j, ok := r.log.journal.Get(h.Op); ok && j.Checksum != h.Checksum {
			fork.differs(j)
			r.journalRemove(h.Op)
		}
		if h.Parent != 0 {
			r.log.adopted.Put(h)
		}
	}
	r.truncateJournalAbove(m.Op)
	r.wm.sequencer = m.Op
	r.log.adoptedHead = m.Op
	r.verifyBelowSuffix(m.Suffix)
	switch {
	case len(m.Suffix) > 0 && !m.Suffix[0].Blank():
		r.wm.headSum = m.Suffix[0].Header.Checksum
	case m.Op == 0:
		// An empty log: a head left from before would refuse op 1's parent.
		r.wm.headSum = genesisChecksum
	case m.Op == r.wm.commitMin:
		r.wm.headSum = r.wm.commitSum
	}
	r.pipeline = r.pipeline[:0]
	r.requests = r.requests[:0]
	r.setStatus(vsr.StatusNormal)
	r.cutAcks(min(m.Op, fork.below()))
	r.writeSuperblock()
	r.startNormalTimeouts()
	for i := len(m.Suffix) - 1; i >= 0; i-- {
		h := m.Suffix[i].Header
		if h.Op > m.Commit && r.log.journal.Has(h.Op, h.Checksum) {
			r.ack(h)
		}
	}
	r.reclaim(r.wm.commitMax, true)
	r.armRepairOnAdopt()
	r.commitUpTo()
	r.repairKick()
}

func (r *Replica) onRequestStartView(m *vsr.Envelope, p vsr.RequestStartView) {
	r.learnIncarnation(m.From, p.Incarnation)
	vsr.Assert(r.id, r.peers.Incarnation(m.From) >= p.Incarnation, "probe_incarnation_known", vsr.DetailHolds)
	if m.View > r.view && r.status != vsr.StatusRecovering {
		// A recovering replica's durable view is ahead of ours: it cannot vote,
		// so the cluster must come to it.
		r.startViewChange(m.View)
		return
	}
	if r.status != vsr.StatusNormal || !r.isPrimary() {
		// A recovering replica probes every peer: one that follows the
		// view well relays it (relay.go).
		if !r.relayStartView(m, p.Nonce) {
			r.fx.Drop(m, 0, vsr.ReasonNotPrimary, 0)
		}
		return
	}
	r.sendStartView(m.From, p.Nonce)
}

// probeNewerView asks the primary of a newer view for its StartView, at most
// once per probe period.
func (r *Replica) probeNewerView(v uint64) {
	if r.timers.Probe.Running {
		return
	}
	r.vc.probeNonce++
	r.vc.probedView = v
	r.fx.Send(vsr.PrimaryOf(v, r.n), vsr.RequestStartView{Incarnation: r.dur.incarnation, Nonce: r.vc.probeNonce}.Message().InView(v))
	r.timers.Probe.Start(r.jitter)
}

func (r *Replica) onProbeTimeout() {
	if r.status != vsr.StatusRecovering {
		r.timers.Probe.Stop()
		r.leaveUnansweredView()
		return
	}
	if r.leaveUnledView() {
		return
	}
	r.vc.probeNonce++
	for i := 0; i < r.n; i++ {
		if i != r.id {
			r.fx.Send(i, vsr.RequestStartView{Incarnation: r.dur.incarnation, Nonce: r.vc.probeNonce}.Message())
		}
	}
	r.timers.Probe.Reset(r.jitter)
}

// leaveUnledView: a replica recovering its head cannot lead its own view, and
// no other replica will start it; as a backup, a probe round of its view went
// unanswered (its primary may be gone, and a peer in the view change needs
// this replica's wish to move on). On its probe timeout it wishes to leave
// the view, which moves it once a view-change quorum wished so (the others'
// requests to leave counted as they came; D53). It reports whether it left.
// Without the StartViewChange window (SVCQuorumOff) its timeout alone moves it.
func (r *Replica) leaveUnledView() bool {
	if !r.log.recoveringHead || (!r.isPrimary() && r.vc.probeNonce == 0) {
		return false
	}
	if !r.vc.quorumWindow {
		r.startViewChange(r.view + 1)
		return true
	}
	r.vc.leave |= 1 << uint(r.id)
	r.vc.leaveTo = max(r.vc.leaveTo, r.view+1)
	r.maybeLeave()
	return r.status != vsr.StatusRecovering
}

// leaveUnansweredView: the primary of a newer view this replica probed sent
// no StartView within a probe timeout, so this replica cannot reach it either
// (an old primary that never abdicates, or a replica that never saw the newer
// view start): it joins the wish to leave that view. One vote, as a backup's
// own timeout is; it moves no one unless a quorum asks.
func (r *Replica) leaveUnansweredView() {
	v := r.vc.probedView
	if v <= r.view || !r.vc.quorumWindow {
		return
	}
	r.vc.probedView = 0
	r.fx.Mark(marks.ProbeUnanswered)
	r.vc.leave |= 1 << uint(r.id)
	r.vc.leaveTo = max(r.vc.leaveTo, v+1)
	r.fx.SendAll(vsr.StartViewChange{Leave: true}.Message().InView(v))
	r.maybeLeave()
}

// cutAcks lowers the ack head to the head of a log installed in a view newer
// than every ack this replica gave, or below the first op where it differs
// from the log those acks were given in (D103). Its acks, all given in views
// up to its ack view, could have committed an op only in the view they were
// given in; every op committed by then lies in every later canonical log at
// the same op, so in this one, at or below its head. An op above that head
// in a later log was committed, if ever, by acks of newer views: none of
// them this replica's, which may vote it absent. A restart's ack bound
// (ackBound) then stops there, and a faulty slot above it is not held unsure
// (swarm seed 501875568 from 0x1dea0000: a backup with ack view 4 and ack
// head 7 had installed a view-6 log of head 4, then view 7's log of head 6
// with another op 5; a restart held op 5 unsure, and with its only copies at
// a voter whose disk lost it and a replica outside the core, no view
// completed). Made durable by the install's own superblock, before any
// vote that relies on it.
func (r *Replica) cutAcks(head uint64) {
	sb := &r.dur.sb
	if r.logView <= sb.AckView || head >= sb.AckHead {
		return
	}
	sb.AckHead = head
	sb.AckViewHead = min(sb.AckViewHead, head)
	r.dur.ackHead = min(r.dur.ackHead, head)
	// The cut keeps what noteAck keeps: every op acked in the ack view is an
	// op acked (forgetting to lower the ack view's head would break it).
	vsr.Assert(r.id, sb.AckViewHead <= sb.AckHead, "ack_view_head_le_ack_head", "view head %d ack head %d", sb.AckViewHead, sb.AckHead)
}

// ackFork finds where a log being installed leaves the chain this replica
// acked (D103). While its log_view is its ack view, the journal up to the
// ack view's head is the chain it acked there (a backup acks an op only
// holding every body below it, and nothing of another log replaces them in
// that log_view): the first op of it the new log replaces marks the fork,
// and the new log holds none of the ops acked from there up, since a log is
// a chain of checksums. Nor any op acked in an older view above it: one
// committed lies in the ack view's log and the new log alike, which would
// then agree below it (robust-d00d-3490591812.vsr: a replica that acked op
// 3 in view 0 merged view 3's log, whose op 3 another primary prepared in
// view 1; its restart held that op unsure, one nack short of cutting it).
type ackFork struct {
	within uint64 // the ack view's head while the journal is its log; 0: none
	at     uint64 // the lowest op replaced there; 0: none
}

func (r *Replica) ackedFork() ackFork {
	if r.logView != r.dur.sb.AckView {
		return ackFork{}
	}
	return ackFork{within: r.dur.sb.AckViewHead}
}

// differs notes that the journal's entry j gives way to another op.
func (f *ackFork) differs(j vsr.Header) {
	if j.Op <= f.within && (f.at == 0 || j.Op < f.at) {
		f.at = j.Op
	}
}

// below is the highest op the acks may still cover: below the fork, or any.
func (f *ackFork) below() uint64 {
	if f.at == 0 {
		return math.MaxUint64
	}
	return f.at - 1
}
