package replica

import "vsrsim/marks"

// The gate. Every message passes one prologue before any handler runs: the
// sender check, then its command's ignore predicate (TigerBeetle's
// ignore_<command>_message), a pure list of early refusals, each with its
// reason. A refused message is dropped with that reason and may draw a
// reaction (onIgnored: probing a newer view, noting an older primary's
// heartbeat); an accepted one goes to its handler, which asserts what the
// gate guaranteed instead of checking it again. Checks that can only follow
// a state change the message itself causes (a newer view's view change)
// stay in the handler.

// Step handles one message. out receives the messages and events it produces.
//
// out is let go at the end without a defer, which cost a few percent of a run:
// a step that panics ends the run, and with it the replica.
func (r *Replica) Step(m *Message, out *Output) {
	r.begin(out)
	r.noteHeard(m)
	r.hear(m)
	r.settle() // hearing a quorum again may let queued requests prepare
	if reason, detail := r.ignore(m); reason != ReasonNone {
		r.drop(&m.Envelope, m.dropOp(), reason, detail)
		r.onIgnored(m, reason)
	} else {
		r.dispatch(m)
	}
	r.settle()
	r.checkInvariants()
	if r.store != nil {
		r.flushStorage()
	}
	r.out = nil
}

// ignore returns why the replica refuses m, and the number the reason names,
// or ReasonNone. It changes nothing.
func (r *Replica) ignore(m *Message) (Reason, uint64) {
	if reason := r.ignoreSender(m); reason != ReasonNone {
		return reason, 0
	}
	switch m.Command {
	case CmdRequest:
		return r.ignoreRequest(&m.Envelope, m.Request())
	case CmdPrepare:
		return r.ignorePrepare(&m.Envelope, m.Prepare())
	case CmdPrepareOK, CmdCommitOK:
		return r.ignoreAck(m)
	case CmdCommit:
		return r.ignoreCommit(&m.Envelope)
	case CmdStartViewChange, CmdDoViewChange:
		return r.ignoreViewChange(m)
	case CmdStartView:
		return r.ignoreStartView(&m.Envelope, m.StartView())
	case CmdRequestStartView:
		return ReasonNone, 0
	case CmdRequestPrepares, CmdRepairPrepare, CmdRepairDone, CmdRangeEvicted:
		return r.ignoreRepair(m)
	case CmdRequestStateTransfer, CmdStateTransferOffer:
		return r.ignoreTransfer(m)
	case CmdRequestStateChunk, CmdStateChunk:
		return r.ignoreChunk(m)
	}
	panic("replica: a known command without an ignore predicate")
}

// ignoreSender refuses a command no replica handles and a replica command
// from anything but another replica.
func (r *Replica) ignoreSender(m *Message) Reason {
	if m.Command == 0 || m.Command == CmdReply || m.Command > CmdCommitOK {
		return ReasonUnknownCommand // replies go to clients
	}
	if m.Command != CmdRequest && (m.From < 0 || m.From >= r.n || m.From == r.id) {
		return ReasonBadSender // only clients send requests; a replica never messages itself
	}
	return ReasonNone
}

// onIgnored reacts to a refusal that still tells the replica something.
func (r *Replica) onIgnored(m *Message, reason Reason) {
	switch {
	case reason == ReasonStaleIncarnation:
		for i := range r.pipeline {
			if r.pipeline[i].header.Op == m.PrepareOk().Op {
				r.mark(marks.AckOldIncarnationInPipeline)
				break
			}
		}
	case reason == ReasonNewerView && (m.Command == CmdPrepare || m.Command == CmdCommit):
		r.probeNewerView(m.View)
	case reason == ReasonInView || reason == ReasonOldView:
		r.onIgnoredView(m, reason)
	}
}

// onIgnoredView reacts to a message of this replica's view, or an older one,
// that the gate refused.
func (r *Replica) onIgnoredView(m *Message, reason Reason) {
	switch {
	case reason == ReasonInView && m.Command == CmdStartView && m.From != PrimaryOf(m.View, r.n):
		r.learnRelayedCommit(m.StartView())
	case reason == ReasonOldView && m.Command == CmdStartViewChange:
		// A peer still in an older view, or changing into one, that
		// cannot reach this view's primary: hand it the view.
		r.relayStartView(&m.Envelope, 0)
	case reason == ReasonOldView && m.Command == CmdCommit:
		// An older view's primary is still alive and heartbeating: a replica in
		// view change may hold its view instead of escalating.
		if r.status == StatusViewChange && m.From == PrimaryOf(m.View, r.n) {
			r.vc.oldPrimaryHB = true
		}
	}
}

func (r *Replica) dispatch(m *Message) {
	e := &m.Envelope
	switch m.Command {
	case CmdRequest:
		r.onRequest(e, m.Request())
	case CmdPrepare:
		r.onPrepare(e, m.Prepare())
	case CmdPrepareOK:
		r.onPrepareOK(e, m.PrepareOk())
	case CmdCommitOK:
		r.onCommitOK(e, m.CommitOk())
	case CmdCommit:
		r.onCommit(e, m.Commit())
	case CmdStartViewChange:
		r.onStartViewChange(e, m.StartViewChange())
	case CmdDoViewChange:
		r.onDoViewChange(e, m.DoViewChange())
	case CmdStartView:
		r.onStartView(e, m.StartView())
	case CmdRequestStartView:
		r.onRequestStartView(e, m.RequestStartView())
	default:
		r.dispatchRecovery(m)
	}
}

// dispatchRecovery hands on the repair and state-transfer messages.
func (r *Replica) dispatchRecovery(m *Message) {
	e := &m.Envelope
	switch m.Command {
	case CmdRequestPrepares:
		r.onRequestPrepares(e, m.RequestPrepares())
	case CmdRepairPrepare:
		r.onRepairPrepare(e, m.RepairPrepare())
	case CmdRepairDone:
		r.onRepairDone(e)
	case CmdRangeEvicted:
		r.onRangeEvicted(e, m.RangeEvicted())
	case CmdRequestStateTransfer:
		r.onRequestStateTransfer(e)
	case CmdStateTransferOffer:
		r.onStateTransferOffer(e, m.StateTransferOffer())
	case CmdRequestStateChunk:
		r.onRequestStateChunk(e, m.RequestStateChunk())
	case CmdStateChunk:
		r.onStateChunk(e, m.StateChunk())
	}
}

// isForward: a backup hands a client's own request on to its primary.
func (r *Replica) isForward(m *Envelope) bool {
	return r.status == StatusNormal && !r.isPrimary() && m.From >= r.n
}

func (r *Replica) ignoreRequest(m *Envelope, p Request) (Reason, uint64) {
	if r.isForward(m) {
		return ReasonNone, 0
	}
	if r.status != StatusNormal || !r.isPrimary() || r.transfer.active {
		return ReasonNotPrimary, 0
	}
	idx := r.clientIndex(p.Client)
	if idx < 0 || idx >= ClientsMax {
		return ReasonBadClient, 0
	}
	if entry := r.sm.Clients[idx]; p.Request < entry.Request {
		return ReasonOldRequest, entry.Request
	}
	return ReasonNone, 0
}

func (r *Replica) ignorePrepare(m *Envelope, p Prepare) (Reason, uint64) {
	switch {
	case r.status == StatusRecovering:
		return ReasonRecovering, 0
	case m.View < r.view:
		return ReasonOldView, r.view
	case m.View > r.view:
		return ReasonNewerView, r.view
	case r.status != StatusNormal || r.isPrimary():
		return ReasonNotNormalBackup, 0
	case !p.Header.Valid():
		return ReasonBadChecksum, 0
	}
	return ReasonNone, 0
}

// ignoreAck: PrepareOk and CommitOk reach only the primary of their view.
func (r *Replica) ignoreAck(m *Message) (Reason, uint64) {
	if m.View != r.view || r.status != StatusNormal || !r.isPrimary() {
		return ReasonNotPrimaryOfView, 0
	}
	if m.Command == CmdPrepareOK && m.PrepareOk().Incarnation < r.peers.incarnation(m.From) {
		// The ack speaks for a journal that a restart has since wiped.
		return ReasonStaleIncarnation, r.peers.incarnation(m.From)
	}
	return ReasonNone, 0
}

func (r *Replica) ignoreCommit(m *Envelope) (Reason, uint64) {
	switch {
	case r.status == StatusRecovering:
		return ReasonRecovering, 0
	case m.View > r.view:
		return ReasonNewerView, r.view
	case m.View < r.view:
		return ReasonOldView, r.view
	case r.status != StatusNormal || r.isPrimary():
		return ReasonNotNormalBackup, 0
	}
	return ReasonNone, 0
}

// ignoreViewChange: a newer view's StartViewChange or DoViewChange moves the
// replica into that view in its handler; an older view's says nothing.
func (r *Replica) ignoreViewChange(m *Message) (Reason, uint64) {
	switch {
	case r.status == StatusRecovering:
		return ReasonRecovering, 0
	case m.View < r.view:
		return ReasonOldView, r.view
	}
	return ReasonNone, 0
}

func (r *Replica) ignoreStartView(m *Envelope, p StartView) (Reason, uint64) {
	switch {
	case m.View < r.view:
		return ReasonOldView, r.view
	case m.View == r.view && r.status == StatusNormal && r.logView == r.view:
		return ReasonInView, 0
	case m.From != PrimaryOf(m.View, r.n) && (r.id == PrimaryOf(m.View, r.n) || r.opts.Protocol.RelayStartViewOff):
		// A backup relays its view's StartView (relay.go); the view's
		// own primary never takes one: it would prepare over ops of
		// its view it may have lost.
		return ReasonNotPrimary, 0
	case !suffixReadable(p.Op, p.Commit, p.Suffix):
		return ReasonStartViewUnreadable, p.Op
	case p.Op < r.wm.commitMin:
		// A view's log holds every op committed before it began, so a
		// StartView whose head is below what this replica applied is an old
		// one of that view, delayed (a restart from a checkpoint makes that
		// visible): adopting it would rewind the head below the state.
		return ReasonBelowCommit, r.wm.commitMin
	case r.status == StatusRecovering && m.View == r.sb.AckView && p.Op < r.sb.AckViewHead:
		// An amnesiac replica acked ops of this view up to AckViewHead before
		// it lost them, and a view's head only grows: this StartView is an
		// old one, delayed. Adopted, it would set the replica's head below
		// ops it acked and its next vote would disown them: a view change of
		// it and a replica that lagged could not place committed op 104
		// (scenarios/testdata/late-start-view-below-ack.vsr).
		return ReasonBelowAck, r.sb.AckViewHead
	}
	return ReasonNone, 0
}

func (r *Replica) ignoreRepair(m *Message) (Reason, uint64) {
	switch m.Command {
	case CmdRequestPrepares:
		if r.status == StatusRecovering {
			return ReasonCannotServe, 0
		}
		if p := m.RequestPrepares(); p.From == 0 || p.To < p.From {
			return ReasonBadRange, 0
		}
	case CmdRepairPrepare:
		if r.status == StatusRecovering {
			return ReasonRecovering, 0
		}
		h := m.RepairPrepare().Header
		if !h.Valid() {
			return ReasonBadChecksum, 0
		}
		if h.Op <= r.wm.commitMin {
			return ReasonOldOp, r.wm.commitMin
		}
		if r.journal.has(h.Op, h.Checksum) {
			return ReasonHeld, 0
		}
	case CmdRangeEvicted:
		if r.status == StatusRecovering {
			return ReasonRecovering, 0
		}
		fallthrough
	case CmdRepairDone:
		if !r.repair.active || m.From != r.repair.peer {
			return ReasonUnsolicited, 0
		}
	}
	return ReasonNone, 0
}

func (r *Replica) ignoreTransfer(m *Message) (Reason, uint64) {
	t := &r.transfer
	switch m.Command {
	case CmdRequestStateTransfer:
		// Any caught-up replica offers its committed state to any peer: a
		// primary to its backups, a backup to a lagging primary or to a
		// peer that could not reach the primary (requestOffer).
		if r.status != StatusNormal || r.wm.commitMin != r.wm.commitMax {
			return ReasonCannotOffer, 0
		}
	case CmdStateTransferOffer:
		if !t.active || t.pinned || r.status != StatusNormal {
			return ReasonUnsolicited, 0
		}
		if m.StateTransferOffer().SnapshotOp <= r.wm.commitMin {
			return ReasonOfferNotNewer, r.wm.commitMin
		}
	}
	return ReasonNone, 0
}

func (r *Replica) ignoreChunk(m *Message) (Reason, uint64) {
	t := &r.transfer
	switch m.Command {
	case CmdRequestStateChunk:
		p := m.RequestStateChunk()
		if p.Chunk < 0 || p.Chunk >= SnapshotChunks {
			return ReasonBadChunk, 0
		}
		if r.offerAt(p.SnapshotOp) == nil {
			return ReasonOfferGone, p.SnapshotOp
		}
	case CmdStateChunk:
		p := m.StateChunk()
		if !t.active || !t.pinned || p.SnapshotOp != t.commitOp || p.Chunk != t.next || p.Snapshot == nil {
			return ReasonUnsolicited, 0
		}
		if p.Snapshot.Op != t.commitOp || p.Snapshot.State.Checksum() != p.Snapshot.StateChecksum {
			return ReasonChunkCorrupt, 0
		}
	}
	return ReasonNone, 0
}
