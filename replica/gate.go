package replica

import (
	"vsrsim/marks"
	"vsrsim/vsr"
)

// The gate. Every message passes one prologue before any handler runs: the
// sender check, then its command's ignore predicate (TigerBeetle's
// ignore_<command>_message), a pure list of early refusals, each with its
// reason. A refused message is dropped with that reason and changes nothing.
// A message that carries one fact worth taking (a relayed view's commit
// point, a newer view to probe, an older view's peer to hand this view, an
// older primary still heartbeating) is admitted for that fact alone under a
// reason of its own (Reason.Takes), traced like a drop, and take handles it;
// an accepted one goes to its handler, which asserts what the
// gate guaranteed instead of checking it again. Checks that can only follow
// a state change the message itself causes (a newer view's view change)
// stay in the handler.

// Step handles one message. out receives the messages and events it produces.
//
// out is let go at the end without a defer, which cost a few percent of a run:
// a step that panics ends the run, and with it the replica.
func (r *Replica) Step(m *vsr.Message, out *vsr.Output) {
	r.begin(out)
	r.noteHeard(m)
	r.hear(m)
	r.settle() // hearing a quorum again may let queued requests prepare
	r.pass(m)
	r.settle()
	r.checkInvariants()
	if r.dur.store != nil {
		r.flushStorage()
	}
	r.fx.Out = nil
}

// ReadDone hands the replica a read it asked for: it serves the copy if it
// is the entry its journal names, reads the other copy, or gives the body up
// to read repair. out receives what it sends.
func (r *Replica) ReadDone(rd *vsr.ReadDone, out *vsr.Output) {
	r.begin(out)
	vsr.Assert(r.id, r.dur.store != nil, "read_done_on_a_disk", vsr.DetailStorage)
	if p, ok := r.dur.store.reads.Take(rd.Tag); ok {
		vsr.Assert(r.id, p.Op == rd.Op && p.Zone == rd.Zone, "read_done_is_the_read_asked", "op %d read %d", p.Op, rd.Op)
		if p.Scrub {
			r.scrubCompleted(p, rd)
		} else {
			r.readCompleted(p, rd)
		}
	}
	r.settle()
	r.checkInvariants()
	r.flushStorage()
	r.fx.Out = nil
}

// pass takes m through the gate: to its handler, to the one fact a partial
// admission takes, or dropped with its reason and nothing else.
func (r *Replica) pass(m *vsr.Message) {
	switch reason, detail := r.ignore(m); {
	case reason == vsr.ReasonNone:
		r.dispatch(m)
	case reason.Takes():
		r.fx.Drop(&m.Envelope, m.DropOp(), reason, detail)
		r.take(m, reason)
	default:
		r.fx.Drop(&m.Envelope, m.DropOp(), reason, detail)
		r.markRefused(m, reason)
	}
}

// ignore returns why the replica refuses m, and the number the reason names,
// or ReasonNone. It changes nothing.
func (r *Replica) ignore(m *vsr.Message) (vsr.Reason, uint64) {
	if reason := r.ignoreSender(m); reason != vsr.ReasonNone {
		return reason, 0
	}
	switch m.Command {
	case vsr.CmdRequest:
		return r.ignoreRequest(&m.Envelope, m.Request())
	case vsr.CmdPrepare:
		return r.ignorePrepare(&m.Envelope, m.Prepare())
	case vsr.CmdPrepareOK, vsr.CmdCommitOK:
		return r.ignoreAck(m)
	case vsr.CmdCommit:
		return r.ignoreCommit(&m.Envelope)
	case vsr.CmdStartViewChange, vsr.CmdDoViewChange:
		return r.ignoreViewChange(m)
	case vsr.CmdStartView:
		return r.ignoreStartView(&m.Envelope, m.StartView())
	case vsr.CmdRequestStartView:
		return vsr.ReasonNone, 0
	case vsr.CmdRequestPrepares, vsr.CmdRepairPrepare, vsr.CmdRepairDone, vsr.CmdRangeEvicted:
		return r.ignoreRepair(m)
	case vsr.CmdRequestStateTransfer, vsr.CmdStateTransferOffer:
		return r.ignoreTransfer(m)
	case vsr.CmdRequestStateChunk, vsr.CmdStateChunk:
		return r.ignoreChunk(m)
	}
	panic("replica: a known command without an ignore predicate")
}

// ignoreSender refuses a command no replica handles and a replica command
// from anything but another replica.
func (r *Replica) ignoreSender(m *vsr.Message) vsr.Reason {
	if m.Command == 0 || m.Command == vsr.CmdReply || m.Command > vsr.CmdCommitOK {
		return vsr.ReasonUnknownCommand // replies go to clients
	}
	if m.Command != vsr.CmdRequest && (m.From < 0 || m.From >= r.n || m.From == r.id) {
		return vsr.ReasonBadSender // only clients send requests; a replica never messages itself
	}
	return vsr.ReasonNone
}

// markRefused counts a refusal worth a mark beyond its reason's: a refusal
// changes nothing of the replica (a message that carries a fact worth taking
// is admitted for that fact under its own reason instead, see take).
func (r *Replica) markRefused(m *vsr.Message, reason vsr.Reason) {
	if reason != vsr.ReasonStaleIncarnation {
		return
	}
	// Only ignoreAck refuses for an old incarnation, and only a PrepareOk
	// that reached the primary of its view.
	vsr.Assert(r.id, m.Command == vsr.CmdPrepareOK, "stale_incarnation_refuses_prepare_ok", "command %d", uint64(m.Command))
	vsr.Assert(r.id, r.isPrimary(), "stale_incarnation_at_primary", "view %d", r.view)
	for i := range r.pipeline {
		if r.pipeline[i].Header.Op == m.PrepareOk().Op {
			r.fx.Mark(marks.AckOldIncarnationInPipeline)
			return
		}
	}
}

// take handles a partial admission: the one fact of m its reason names.
func (r *Replica) take(m *vsr.Message, reason vsr.Reason) {
	// Every predicate refuses a recovering replica first, or admits one
	// only in Normal or a view change: it takes no fact before it adopts a
	// view.
	vsr.Assert(r.id, r.status != vsr.StatusRecovering, "recovering_takes_no_fact", "reason %d", uint64(reason))
	switch reason {
	case vsr.ReasonCommitOnly:
		vsr.Assert(r.id, m.Command == vsr.CmdStartView, "commit_only_from_start_view", "command %d", uint64(m.Command))
		r.learnRelayedCommit(m.StartView())
	case vsr.ReasonProbeNewerView:
		vsr.Assert(r.id, m.View > r.view, "probe_newer_view_is_newer", "view %d own %d", m.View, r.view)
		r.probeNewerView(m.View)
	case vsr.ReasonRelayView:
		vsr.Assert(r.id, m.View < r.view, "relay_view_to_older_view", "view %d own %d", m.View, r.view)
		// A peer still in an older view, or changing into one, that
		// cannot reach this view's primary: hand it the view.
		r.relayStartView(&m.Envelope, 0)
	case vsr.ReasonOldPrimaryAlive:
		// An older view's primary is still alive and heartbeating: a
		// replica in view change may hold its view instead of escalating.
		vsr.Assert(r.id, r.status == vsr.StatusViewChange, "old_primary_alive_in_view_change", vsr.DetailGate)
		vsr.Assert(r.id, m.View < r.view, "old_primary_of_older_view", "view %d own %d", m.View, r.view)
		r.vc.oldPrimaryHB = true
	default:
		panic("replica: a partial admission without a taker")
	}
}

func (r *Replica) dispatch(m *vsr.Message) {
	e := &m.Envelope
	switch m.Command {
	case vsr.CmdRequest:
		r.onRequest(e, m.Request())
	case vsr.CmdPrepare:
		r.onPrepare(e, m.Prepare())
	case vsr.CmdPrepareOK:
		r.onPrepareOK(e, m.PrepareOk())
	case vsr.CmdCommitOK:
		r.onCommitOK(e, m.CommitOk())
	case vsr.CmdCommit:
		r.onCommit(e, m.Commit())
	case vsr.CmdStartViewChange:
		r.onStartViewChange(e, m.StartViewChange())
	case vsr.CmdDoViewChange:
		r.onDoViewChange(e, m.DoViewChange())
	case vsr.CmdStartView:
		r.onStartView(e, m.StartView())
	case vsr.CmdRequestStartView:
		r.onRequestStartView(e, m.RequestStartView())
	default:
		r.dispatchRecovery(m)
	}
}

// dispatchRecovery hands on the repair and state-transfer messages.
func (r *Replica) dispatchRecovery(m *vsr.Message) {
	e := &m.Envelope
	switch m.Command {
	case vsr.CmdRequestPrepares:
		r.onRequestPrepares(e, m.RequestPrepares())
	case vsr.CmdRepairPrepare:
		r.onRepairPrepare(e, m.RepairPrepare())
	case vsr.CmdRepairDone:
		r.onRepairDone(e)
	case vsr.CmdRangeEvicted:
		r.onRangeEvicted(e, m.RangeEvicted())
	case vsr.CmdRequestStateTransfer:
		r.onRequestStateTransfer(e)
	case vsr.CmdStateTransferOffer:
		r.onStateTransferOffer(e, m.StateTransferOffer())
	case vsr.CmdRequestStateChunk:
		r.onRequestStateChunk(e, m.RequestStateChunk())
	case vsr.CmdStateChunk:
		r.onStateChunk(e, m.StateChunk())
	}
}

func (r *Replica) ignoreRequest(m *vsr.Envelope, p vsr.Request) (vsr.Reason, uint64) {
	if r.isForward(m) {
		return vsr.ReasonNone, 0
	}
	if r.status != vsr.StatusNormal || !r.isPrimary() || r.transfer.active {
		return vsr.ReasonNotPrimary, 0
	}
	idx := r.clientIndex(p.Client)
	if idx < 0 || idx >= vsr.ClientsMax {
		return vsr.ReasonBadClient, 0
	}
	if entry := r.sm.Clients[idx]; p.Request < entry.Request {
		return vsr.ReasonOldRequest, entry.Request
	}
	return vsr.ReasonNone, 0
}

func (r *Replica) ignorePrepare(m *vsr.Envelope, p vsr.Prepare) (vsr.Reason, uint64) {
	switch {
	case r.status == vsr.StatusRecovering:
		return vsr.ReasonRecovering, 0
	case m.View < r.view:
		return vsr.ReasonOldView, r.view
	case m.View > r.view:
		return vsr.ReasonProbeNewerView, r.view
	case r.status != vsr.StatusNormal || r.isPrimary():
		return vsr.ReasonNotNormalBackup, 0
	case !p.Header.Valid():
		return vsr.ReasonBadChecksum, 0
	}
	return vsr.ReasonNone, 0
}

// ignoreAck: PrepareOk and CommitOk reach only the primary of their view.
func (r *Replica) ignoreAck(m *vsr.Message) (vsr.Reason, uint64) {
	if m.View != r.view || r.status != vsr.StatusNormal || !r.isPrimary() {
		return vsr.ReasonNotPrimaryOfView, 0
	}
	if m.Command == vsr.CmdPrepareOK && m.PrepareOk().Incarnation < r.peers.Incarnation(m.From) {
		// The ack speaks for a journal that a restart has since wiped.
		return vsr.ReasonStaleIncarnation, r.peers.Incarnation(m.From)
	}
	return vsr.ReasonNone, 0
}

func (r *Replica) ignoreCommit(m *vsr.Envelope) (vsr.Reason, uint64) {
	switch {
	case r.status == vsr.StatusRecovering:
		return vsr.ReasonRecovering, 0
	case m.View > r.view:
		return vsr.ReasonProbeNewerView, r.view
	case m.View < r.view && r.status == vsr.StatusViewChange && m.From == vsr.PrimaryOf(m.View, r.n):
		return vsr.ReasonOldPrimaryAlive, r.view
	case m.View < r.view:
		return vsr.ReasonOldView, r.view
	case r.status != vsr.StatusNormal || r.isPrimary():
		return vsr.ReasonNotNormalBackup, 0
	}
	return vsr.ReasonNone, 0
}

// ignoreViewChange: a newer view's StartViewChange or DoViewChange moves the
// replica into that view in its handler; an older view's says nothing.
func (r *Replica) ignoreViewChange(m *vsr.Message) (vsr.Reason, uint64) {
	switch {
	case r.status == vsr.StatusRecovering && !r.recoveringHeadJoins(m):
		// A replica recovering its head joins a newer view's change, with
		// a vote of what it can vouch for; an amnesiac one has no vote.
		return vsr.ReasonRecovering, 0
	case m.View < r.view && m.Command == vsr.CmdStartViewChange:
		return vsr.ReasonRelayView, r.view
	case m.View < r.view:
		return vsr.ReasonOldView, r.view
	}
	return vsr.ReasonNone, 0
}

// recoveringHeadJoins reports whether a replica recovering its head takes m:
// a newer view's StartViewChange or DoViewChange, and a request to leave its
// own view (which it cannot lead, or whose primary may be gone: its wish
// joins on its probe timeout, leaveUnledView).
func (r *Replica) recoveringHeadJoins(m *vsr.Message) bool {
	vsr.Assert(r.id, r.status == vsr.StatusRecovering, "recovering_head_joins_from_recovering", vsr.DetailHolds)
	if !r.log.recoveringHead {
		return false
	}
	if m.View > r.view {
		return true
	}
	return m.View == r.view && m.Command == vsr.CmdStartViewChange && m.StartViewChange().Leave
}

func (r *Replica) ignoreStartView(m *vsr.Envelope, p vsr.StartView) (vsr.Reason, uint64) {
	switch {
	case m.View < r.view:
		return vsr.ReasonOldView, r.view
	case m.View == r.view && r.status == vsr.StatusNormal && r.logView == r.view:
		return r.ignoreStartViewInView(m)
	case m.From != vsr.PrimaryOf(m.View, r.n) && (r.id == vsr.PrimaryOf(m.View, r.n) || !r.peers.Relays() || r.dur.sb.Amnesiac):
		// A backup relays its view's StartView (relay.go); the view's
		// own primary never takes one: it would prepare over ops of
		// its view it may have lost. Nor does a replica that lost its
		// superblock: a backup relays its own log, which may stop below
		// ops of the view the replica acked and cannot name (no ack bound
		// survived, so the below-ack gate cannot refuse it); adopted, its
		// votes disowned them, and a view it led cut committed ops 1..7
		// (swarm seed 1592593278 from 0x5eed0000). The view's primary's
		// log holds every op a quorum acked.
		return vsr.ReasonNotPrimary, 0
	case !suffixReadable(p.Op, p.Commit, p.Suffix):
		return vsr.ReasonStartViewUnreadable, p.Op
	case p.Op < r.wm.commitMin:
		// A view's log holds every op committed before it began, so a
		// StartView whose head is below what this replica applied is an old
		// one of that view, delayed (a restart from a checkpoint makes that
		// visible): adopting it would rewind the head below the state.
		return vsr.ReasonBelowCommit, r.wm.commitMin
	case r.status == vsr.StatusRecovering && m.View == r.dur.sb.AckView && p.Op < r.dur.sb.AckViewHead:
		// An amnesiac replica acked ops of this view up to AckViewHead before
		// it lost them, and a view's head only grows: this StartView is an
		// old one, delayed. Adopted, it would set the replica's head below
		// ops it acked and its next vote would disown them: a view change of
		// it and a replica that lagged could not place committed op 104
		// (scenarios/testdata/late-start-view-below-ack.vsr). What the gate
		// protects, the recovering replica holds unsure besides.
		vsr.Assert(r.id, r.log.unsureTop >= r.dur.sb.AckViewHead, "below_ack_held_unsure", "unsure %d acked %d",
			r.log.unsureTop, r.dur.sb.AckViewHead)
		return vsr.ReasonBelowAck, r.dur.sb.AckViewHead
	}
	return vsr.ReasonNone, 0
}

// ignoreStartViewInView: a StartView of the view this replica already
// follows says nothing new of the log, but one a backup relayed is admitted
// for its commit point (a backup that missed its primary's commits learns
// them from a peer).
func (r *Replica) ignoreStartViewInView(m *vsr.Envelope) (vsr.Reason, uint64) {
	if m.From != vsr.PrimaryOf(m.View, r.n) {
		return vsr.ReasonCommitOnly, 0
	}
	return vsr.ReasonInView, 0
}

func (r *Replica) ignoreRepair(m *vsr.Message) (vsr.Reason, uint64) {
	switch m.Command {
	case vsr.CmdRequestPrepares:
		return r.ignoreRequestPrepares(m.RequestPrepares())
	case vsr.CmdRepairPrepare:
		if r.status == vsr.StatusRecovering {
			return vsr.ReasonRecovering, 0
		}
		h := m.RepairPrepare().Header
		if !h.Valid() {
			return vsr.ReasonBadChecksum, 0
		}
		if h.Op <= r.wm.commitMin {
			return vsr.ReasonOldOp, r.wm.commitMin
		}
		if r.log.journal.Has(h.Op, h.Checksum) {
			vsr.Assert(r.id, h.Op <= r.log.journal.Head, "repair_held_within_journal_head", "op %d head %d", h.Op, r.log.journal.Head)
			return vsr.ReasonHeld, 0
		}
	case vsr.CmdRangeEvicted:
		if r.status == vsr.StatusRecovering {
			return vsr.ReasonRecovering, 0
		}
		fallthrough
	case vsr.CmdRepairDone:
		if !r.repair.active || m.From != r.repair.peer {
			return vsr.ReasonUnsolicited, 0
		}
		// A session is opened only on a range (repairSend).
		vsr.Assert(r.id, r.repair.from <= r.repair.to, "repair_session_range_ordered", "from %d to %d", r.repair.from, r.repair.to)
	}
	return vsr.ReasonNone, 0
}

func (r *Replica) ignoreTransfer(m *vsr.Message) (vsr.Reason, uint64) {
	t := &r.transfer
	switch m.Command {
	case vsr.CmdRequestStateTransfer:
		// Any caught-up replica offers its committed state to any peer: a
		// primary to its backups, a backup to a lagging primary or to a
		// peer that could not reach the primary (requestOffer).
		if r.status != vsr.StatusNormal || r.wm.commitMin != r.wm.commitMax {
			return vsr.ReasonCannotOffer, 0
		}
	case vsr.CmdStateTransferOffer:
		if !t.active || t.pinned || r.status != vsr.StatusNormal {
			return vsr.ReasonUnsolicited, 0
		}
		// Chunks come only while an offer is pinned; unpinning lets them go.
		vsr.Assert(r.id, t.snapshot == nil, "unpinned_transfer_holds_no_chunks", "offer %d", t.commitOp)
		if m.StateTransferOffer().SnapshotOp <= r.wm.commitMin {
			return vsr.ReasonOfferNotNewer, r.wm.commitMin
		}
	}
	return vsr.ReasonNone, 0
}

// chunkWanted reports whether the pinned pull lacks chunk c: the source's
// pull takes its chunks in order, the robust one any it lacks, since a peer
// sends them all at once (D114).
func (r *Replica) chunkWanted(c int) bool {
	t := &r.transfer
	if c < t.next || c >= vsr.SnapshotChunks || t.got&(1<<uint(c)) != 0 {
		return false
	}
	return !r.log.sourceInstall || c == t.next
}

func (r *Replica) ignoreChunk(m *vsr.Message) (vsr.Reason, uint64) {
	t := &r.transfer
	switch m.Command {
	case vsr.CmdRequestStateChunk:
		p := m.RequestStateChunk()
		if p.Chunk < 0 || p.Chunk >= vsr.SnapshotChunks {
			return vsr.ReasonBadChunk, 0
		}
		s := r.offerAt(p.SnapshotOp)
		if s == nil {
			return vsr.ReasonOfferGone, p.SnapshotOp
		}
		vsr.Assert(r.id, s.Op == p.SnapshotOp, "offer_at_its_op", "offer %d asked %d", s.Op, p.SnapshotOp)
	case vsr.CmdStateChunk:
		p := m.StateChunk()
		if !t.active || !t.pinned || p.SnapshotOp != t.commitOp || !r.chunkWanted(p.Chunk) || p.Snapshot == nil {
			return vsr.ReasonUnsolicited, 0
		}
		// A pinned pull installs at its last chunk and unpins.
		vsr.Assert(r.id, t.next < vsr.SnapshotChunks, "state_chunk_next_in_range", "chunk %d", uint64(t.next))
		if p.Snapshot.Op != t.commitOp || p.Snapshot.State.Checksum() != p.Snapshot.StateChecksum {
			return vsr.ReasonChunkCorrupt, 0
		}
	}
	return vsr.ReasonNone, 0
}
