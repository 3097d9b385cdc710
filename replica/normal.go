package replica

import (
	"math/bits"
	"vsrsim/marks"
	"vsrsim/vsr"
)

// Normal operation (VRR section 4.1; protocol.md "Normal operation").

// isForward: a backup hands a client's own request on to its primary.
func (r *Replica) isForward(m *vsr.Envelope) bool {
	return r.status == vsr.StatusNormal && !r.isPrimary() && m.From >= r.n
}

func (r *Replica) onRequest(m *vsr.Envelope, p vsr.Request) {
	if r.isForward(m) {
		// A backup hands a client's request on to the primary it knows, as
		// TigerBeetle's do, so a client that lost a reply and moved on is
		// not left hunting for the primary a timeout at a time. Only a
		// client's own send is forwarded: a forwarded copy never loops.
		if r.answerFromTable(p) {
			return
		}
		r.fx.Mark(marks.RequestForwarded)
		r.fx.Send(r.primary(), p.Message().InView(m.View))
		r.awaitForwarded()
		return
	}
	vsr.Assert(r.id, r.status == vsr.StatusNormal, "request_gate_primary", vsr.DetailGate)
	vsr.Assert(r.id, r.isPrimary(), "request_gate_primary", vsr.DetailGate)
	vsr.Assert(r.id, !r.transfer.active, "request_gate_primary", vsr.DetailGate)
	entry := r.sm.Clients[r.clientIndex(p.Client)]
	vsr.Assert(r.id, p.Request >= entry.Request, "request_gate_not_old", vsr.DetailGate)
	if p.Request == entry.Request && entry.Request != 0 {
		// Exactly once: answer from the client table, never re-execute.
		r.fx.Mark(marks.ReplyFromClientTable)
		r.replyFromTable(p, entry)
		return
	}
	for i := range r.pipeline {
		if r.pipeline[i].Header.Client == p.Client && r.pipeline[i].Header.Request == p.Request {
			r.fx.Drop(m, 0, vsr.ReasonInFlight, r.pipeline[i].Header.Op)
			return
		}
	}
	for i := range r.requests {
		if r.requests[i].Client == p.Client && r.requests[i].Request == p.Request {
			r.fx.Drop(m, 0, vsr.ReasonInFlight, 0)
			return
		}
	}
	if len(r.requests) >= r.opts.requestQueue() {
		r.fx.Drop(m, 0, vsr.ReasonRequestQueueFull, 0)
		return
	}
	// Requests wait in order behind the pipeline and behind commit lag: a
	// primary prepares only on top of a log it has applied.
	r.requests = append(r.requests, p)
	r.due |= dueDrain
}

// prepare assigns the next op to a request and replicates it.
func (r *Replica) prepare(m *vsr.Request) {
	vsr.Assert(r.id, len(r.pipeline) < vsr.PipelineMax, "prepare_pipeline_not_full", vsr.DetailHolds)
	vsr.Assert(r.id, r.status == vsr.StatusNormal, "prepare_on_applied_log", vsr.DetailHolds)
	vsr.Assert(r.id, r.isPrimary(), "prepare_on_applied_log", vsr.DetailHolds)
	vsr.Assert(r.id, r.wm.commitMin == r.wm.commitMax, "prepare_on_applied_log", vsr.DetailHolds)
	h := vsr.Header{
		Op:        r.wm.sequencer + 1,
		View:      r.view,
		Parent:    r.wm.headSum,
		Commit:    r.wm.commitMax,
		Client:    m.Client,
		Request:   m.Request,
		Timestamp: r.wm.sequencer + 1,
		Body:      m.Body,
	}
	h.Seal()
	r.journalPut(h, true)
	r.wm.sequencer = h.Op
	r.wm.headSum = h.Checksum
	r.pipeline.Push(r.id, h, r.ownFence())
	vsr.Assert(r.id, r.log.journal.Has(h.Op, h.Checksum), "prepare_journaled", vsr.DetailHolds)
	r.noteAck(&h)
	r.replicate(h)
	if !r.timers.Prepare.Running {
		r.timers.Prepare.Start(r.jitter)
	}
	r.due |= dueCommitWalk // alone, the primary's own ack may be a quorum
}

// replicate sends a prepare on: to the next replica in the chain, or to every
// backup in a star.
func (r *Replica) replicate(h vsr.Header) {
	h.View = r.view
	msg := vsr.Prepare{Header: h}.Message()
	if r.opts.Topology == TopologyStar {
		if r.isPrimary() {
			r.fx.SendAll(msg)
		}
		return
	}
	next := (r.id + 1) % r.n
	if next != r.primary() {
		r.fx.Send(next, msg)
	}
}

func (r *Replica) onPrepare(m *vsr.Envelope, p vsr.Prepare) {
	vsr.Assert(r.id, m.View == r.view, "prepare_gate_backup", vsr.DetailGate)
	vsr.Assert(r.id, r.status == vsr.StatusNormal, "prepare_gate_backup", vsr.DetailGate)
	vsr.Assert(r.id, !r.isPrimary(), "prepare_gate_backup", vsr.DetailGate)
	h := p.Header
	vsr.Assert(r.id, h.Valid(), "prepare_gate_valid", vsr.DetailGate)
	r.fwd.Waiting = false
	r.heardFromPrimary()
	r.advanceCommitMax(h.Commit)
	switch {
	case h.Op <= r.wm.commitMin && r.log.journal.Has(h.Op, h.Checksum):
		// Applied here already, so canonical: a primary that asks again
		// (it lost this replica's ack to a restart) gets it.
		r.ack(h)
	case h.Op <= r.wm.commitMin:
		r.fx.Drop(m, h.Op, vsr.ReasonOldOp, r.wm.commitMin)
		r.tellCommitToPrimary()
	case r.log.journal.Has(h.Op, h.Checksum) && h.Op <= r.wm.sequencer:
		// Held within the log: ack again. A held op above the head is acked
		// only once the log reaches it: an ack promises the op to every later
		// vote, which stops at its head (vote_keeps_acks; swarm seed 313).
		r.replicate(h)
		r.ack(h)
	case r.transfer.active:
		r.fx.Drop(m, h.Op, vsr.ReasonTransferring, 0)
	case h.Op > r.wm.commitMin+uint64(r.opts.JournalSlots):
		// Too far ahead: its slot is an op's this replica has yet to apply (D120).
		r.fx.Drop(m, h.Op, vsr.ReasonNoSlot, r.wm.commitMin)
	case h.Op <= r.wm.sequencer && !r.log.gapCheckOnly && r.repairVerdict(h, 0) == repairVerified:
		// A body it holds the header of but lacks: the repair it asks for,
		// verified as one (a backup cut off from sending to its primary asked
		// in vain while the Prepares came; seed 3737883794 from 0xdecade00).
		r.repairPut(h, m)
	case h.Op != r.wm.sequencer+1:
		// The gap check compares against the sequencer, not the journal: the
		// repair driver is left to close real gaps.
		r.fx.Drop(m, h.Op, vsr.ReasonGap, r.wm.sequencer)
	case h.Parent != r.wm.headSum:
		r.fx.Drop(m, h.Op, vsr.ReasonParentMismatch, r.wm.sequencer)
	default:
		r.journalPut(h, true)
		r.log.adopted.Remove(h.Op)
		r.wm.sequencer = h.Op
		r.wm.headSum = h.Checksum
		r.replicate(h)
		r.ack(h)
	}
	r.commitUpTo()
}

// ack sends a PrepareOk for h to the primary.
func (r *Replica) ack(h vsr.Header) {
	if r.status != vsr.StatusNormal || r.transfer.active || r.isPrimary() {
		return
	}
	vsr.Assert(r.id, h.Op > 0, "ack_journaled", vsr.DetailHolds)
	vsr.Assert(r.id, r.log.journal.Has(h.Op, h.Checksum), "ack_journaled", vsr.DetailHolds)
	if r.headerOnlyBelow(h.Op) {
		return
	}
	if h.Op > r.dur.ackHead {
		r.dur.ackHead = h.Op
	}
	vsr.Assert(r.id, r.dur.ackHead >= h.Op, "ack_head_covers_ack", vsr.DetailHolds)
	r.noteAck(&h)
	r.fx.Send(r.primary(), vsr.PrepareOk{Op: h.Op, Checksum: h.Checksum, Parent: h.Parent, Incarnation: r.dur.incarnation}.Message())
}

func (r *Replica) onPrepareOK(m *vsr.Envelope, p vsr.PrepareOk) {
	vsr.Assert(r.id, m.View == r.view, "prepare_ok_gate_primary", vsr.DetailGate)
	vsr.Assert(r.id, r.status == vsr.StatusNormal, "prepare_ok_gate_primary", vsr.DetailGate)
	vsr.Assert(r.id, r.isPrimary(), "prepare_ok_gate_primary", vsr.DetailGate)
	vsr.Assert(r.id, p.Incarnation >= r.peers.Incarnation(m.From), "prepare_ok_gate_incarnation", vsr.DetailGate)
	r.learnIncarnation(m.From, p.Incarnation)
	if e := r.pipeline.Find(p.Op, p.Checksum); e != nil {
		bit := uint16(1) << uint(m.From)
		if e.Acks&bit == 0 && r.quorumAcks(e) < vsr.QuorumReplication(r.n) {
			r.abd.Progressed()
		}
		e.Acks |= bit
	}
	r.commitWalk()
}

// learnIncarnation records replica i's incarnation. A higher one means it
// restarted: the acks it gave before speak for a journal that may be gone, so
// its bits leave the pipeline and only its fresh acks count.
func (r *Replica) learnIncarnation(i int, inc uint64) {
	if !r.peers.LearnIncarnation(i, inc) {
		return
	}
	r.pipeline.Forget(r.id, i)
}

// commitWalk advances commit_max over consecutive pipeline ops that hold a
// replication quorum; the first op without one stops it, even if later ops have
// one.
func (r *Replica) commitWalk() {
	q := vsr.QuorumReplication(r.n)
	before := r.wm.commitMax
	r.pipeline.Check(r.id)
	for len(r.pipeline) > 0 && r.pipeline[0].Header.Op <= r.wm.commitMax {
		// Committed by other means (a state transfer): nothing left to count.
		r.pipeline.PopFront()
	}
	r.dur.ownAckWaits = false
	for len(r.pipeline) > 0 {
		e := r.pipeline[0]
		if e.Header.Op != r.wm.commitMax+1 {
			break
		}
		if r.quorumAcks(&e) < q {
			r.dur.ownAckWaits = bits.OnesCount16(e.Acks) >= q
			break
		}
		r.wm.commitMax = e.Header.Op
		h := &e.Header
		r.fx.Emit(vsr.PrimaryCommitted{CommittedOp: r.committedOp(h), Acks: uint64(bits.OnesCount16(e.Acks))}.Event())
		r.pipeline.PopFront()
	}
	vsr.Assert(r.id, r.wm.commitMax >= before, "commit_walk_monotonic", vsr.DetailHolds)
	vsr.Assert(r.id, len(r.pipeline) == 0 || r.pipeline[0].Header.Op > r.wm.commitMax, "commit_walk_stops_at_first_unacked", vsr.DetailHolds)
	if len(r.pipeline) == 0 {
		r.timers.Prepare.Stop()
	} else if r.wm.commitMax > before {
		r.timers.Prepare.Start(r.jitter) // progress: retransmit promptly again
	}
	r.commitUpTo()
	r.due |= dueDrain
}

// prepareNext prepares the first queued request that is still new, if the
// primary may prepare now, and reports whether it did. Requests wait in
// order behind the pipeline and behind commit lag.
func (r *Replica) prepareNext() bool {
	for len(r.requests) > 0 && len(r.pipeline) < vsr.PipelineMax && r.wm.commitMin == r.wm.commitMax &&
		r.status == vsr.StatusNormal && r.isPrimary() && !r.abd.Abdicated {
		m := r.requests[0]
		copy(r.requests, r.requests[1:])
		r.requests = r.requests[:len(r.requests)-1]
		idx := r.clientIndex(m.Client)
		if m.Request <= r.sm.Clients[idx].Request {
			continue
		}
		r.prepare(&m)
		return true
	}
	return false
}

func (r *Replica) advanceCommitMax(commit uint64) {
	before := r.wm.commitMax
	if commit > r.wm.commitMax {
		r.wm.commitMax = commit
	}
	vsr.Assert(r.id, r.wm.commitMax >= before, "commit_max_advances", vsr.DetailHolds)
	vsr.Assert(r.id, r.wm.commitMax >= commit, "commit_max_advances", vsr.DetailHolds)
}

// commitUpTo applies ops in order up to commit_max, as far as the journal holds
// them with an unbroken parent chain.
func (r *Replica) commitUpTo() {
	vsr.Assert(r.id, r.wm.commitMin <= r.wm.commitMax, "commit_up_to_min_le_max", vsr.DetailHolds)
	for r.wm.commitMin < r.wm.commitMax {
		h, ok := r.nextCommitted()
		if !ok || h.Parent != r.wm.commitSum {
			return
		}
		r.apply(h)
	}
	if r.wm.commitMin == r.wm.commitMax && len(r.requests) > 0 {
		r.due |= dueDrain
	}
	vsr.Assert(r.id, r.wm.commitMin <= r.wm.commitMax, "commit_up_to_min_le_max", vsr.DetailHolds)
}

func (r *Replica) apply(h vsr.Header) {
	// Commit advances by exactly one op, onto the chain it extends.
	vsr.Assert(r.id, h.Op == r.wm.commitMin+1, "apply_next_op", vsr.DetailHolds)
	vsr.Assert(r.id, h.Parent == r.wm.commitSum, "apply_chains", vsr.DetailHolds)
	result := r.sm.Apply(h.Body)
	if idx := r.clientIndex(h.Client); h.Client != 0 && idx >= 0 && idx < vsr.ClientsMax {
		r.sm.Clients[idx] = vsr.ClientEntry{Request: h.Request, Op: h.Op, Result: result}
	}
	r.wm.commitMin = h.Op
	r.wm.commitSum = h.Checksum
	r.dropStaleAside(&h)
	if r.wm.sequencer < h.Op {
		// A committed op is canonical: the head moves up with it.
		r.wm.sequencer = h.Op
		r.wm.headSum = h.Checksum
	}
	if r.wm.commitMin > r.wm.commitMax {
		r.wm.commitMax = r.wm.commitMin
	}
	vsr.Assert(r.id, r.wm.sequencer >= r.wm.commitMin, "apply_head_ge_commit", vsr.DetailHolds)
	vsr.Assert(r.id, r.wm.commitMax >= r.wm.commitMin, "apply_head_ge_commit", vsr.DetailHolds)
	r.fx.Emit(vsr.Applied{CommittedOp: r.committedOp(&h), Result: result}.Event())
	if h.Client != 0 && r.repliesTo(&h) {
		if !r.isPrimary() {
			r.fx.Mark(marks.ReplyFromBackup)
		}
		r.fx.Send(int(h.Client), vsr.Reply{Client: h.Client, Request: h.Request, Op: h.Op, Result: result}.Message())
	}
	if h.Op%CheckpointEvery(r.opts.CheckpointInterval, r.opts.JournalSlots) == 0 {
		r.checkpoint()
	}
}

func (r *Replica) checkpoint() {
	s := vsr.Snapshot{Op: r.wm.commitMin, OpChecksum: r.wm.commitSum, State: r.sm}
	s.StateChecksum = s.State.Checksum()
	vsr.Assert(r.id, s.Op > 0, "checkpoint_of_an_applied_op", vsr.DetailHolds)
	vsr.Assert(r.id, s.OpChecksum != 0, "checkpoint_of_an_applied_op", vsr.DetailHolds)
	r.dur.sb.Checkpoint = s
	r.writeSuperblock()
	vsr.Assert(r.id, r.dur.sb.Checkpoint.Op == r.wm.commitMin, "checkpoint_at_commit_min", vsr.DetailHolds)
	r.fx.Mark(marks.Checkpoint)
	r.fx.Emit(vsr.Checkpointed{Op: s.Op, StateChecksum: s.StateChecksum}.Event())
}

func (r *Replica) onCommit(m *vsr.Envelope, p vsr.Commit) {
	vsr.Assert(r.id, m.View == r.view, "commit_gate_backup", vsr.DetailGate)
	vsr.Assert(r.id, r.status == vsr.StatusNormal, "commit_gate_backup", vsr.DetailGate)
	vsr.Assert(r.id, !r.isPrimary(), "commit_gate_backup", vsr.DetailGate)
	r.fwd.PrimaryCommitted(p.Commit)
	if !p.Abdicated && !r.fwd.Waiting {
		r.heardFromPrimary()
	}
	applied := r.wm.commitMin
	r.advanceCommitMax(p.Commit)
	r.commitUpTo()
	if r.wm.commitMin > applied {
		r.fx.Mark(marks.CommitCatchUp)
	}
	vsr.Assert(r.id, r.wm.commitMax >= p.Commit, "commit_learns_commit_point", vsr.DetailHolds)
	vsr.Assert(r.id, r.wm.commitMin <= r.wm.commitMax, "commit_learns_commit_point", vsr.DetailHolds)
	if r.abd.On() {
		// The commit point's checksum lets a primary that lacks it (it was
		// elected by votes that knew less) recognise it in its own log.
		r.fx.Send(r.primary(), vsr.CommitOk{Commit: r.wm.commitMin, Checksum: r.wm.commitSum, Incarnation: r.dur.incarnation}.Message())
	}
}

func (r *Replica) heardFromPrimary() {
	r.vc.leave &^= 1 << uint(r.id)
	r.timers.Heartbeat.Reset(r.jitter)
}

// awaitForwarded: a backup handed a client's request to its primary. Until
// the primary shows it can still act (a new Prepare, or a commit point past
// where it stood), its bare heartbeats no longer count as being heard: a
// primary that no replica and no client can reach (every link into it cut)
// has nothing pending to abdicate over, keeps heartbeating, and would
// otherwise hold its backups for good. Their heartbeat timeouts then ask to
// leave, and a quorum of them moves the view.
func (r *Replica) awaitForwarded() {
	if !r.abd.WatchesForwarded() {
		return
	}
	r.fwd.Forwarded(r.wm.commitMax)
}

func (r *Replica) onPrepareTimeout() {
	if r.status != vsr.StatusNormal || !r.isPrimary() || len(r.pipeline) == 0 {
		r.timers.Prepare.Stop()
		return
	}
	if r.abd.Abdicated {
		// A retransmit would hold the backups' heartbeat timeouts.
		r.timers.Prepare.BackoffNext(r.jitter)
		return
	}
	r.retransmit(-1)
	r.timers.Prepare.BackoffNext(r.jitter)
}

// retransmit re-sends each pipeline entry short of a quorum to each backup
// that has not acked it (only to backup only, if it is not -1).
func (r *Replica) retransmit(only int) {
	for i := range r.pipeline {
		e := r.pipeline[i]
		if bits.OnesCount16(e.Acks) >= vsr.QuorumReplication(r.n) {
			continue
		}
		h := e.Header
		h.View = r.view
		for to := 0; to < r.n; to++ {
			if to != r.id && e.Acks&(1<<uint(to)) == 0 && (only < 0 || to == only) {
				r.fx.Send(to, vsr.Prepare{Header: h}.Message())
			}
		}
	}
}

func (r *Replica) onCommitTimeout() {
	if r.status != vsr.StatusNormal || !r.isPrimary() {
		r.timers.Commit.Stop()
		return
	}
	r.heartbeat++
	r.fx.SendAll(vsr.Commit{Commit: r.wm.commitMax, Heartbeat: r.heartbeat, Abdicated: r.abd.Abdicated}.Message())
	r.timers.Commit.Reset(nil)
}

func (r *Replica) onHeartbeatTimeout() {
	if r.status != vsr.StatusNormal || r.isPrimary() {
		r.timers.Heartbeat.Stop()
		return
	}
	if r.fwd.Waiting {
		r.fx.Mark(marks.ForwardUnanswered)
	}
	if r.vc.quorumWindow {
		r.timers.Heartbeat.Start(r.jitter)
		r.askToLeave()
		return
	}
	r.startViewChange(r.view + 1)
}

// headerOnlyBelow reports whether an op above the commit point and below op
// lacks its body here. An ack vouches for the chain below the op it names, so
// a backup acks nothing above such an op: a merge reads a header without a
// body above the voter's commit point as proof that the voter acked nothing
// there (a derived nack), and an ack over the gap made a quorum-acked op's
// parent look refuted (swarm seed 3303). The primary's retransmission draws
// the ack once repair has filled the gap.
func (r *Replica) headerOnlyBelow(op uint64) bool {
	for o := r.wm.commitMax + 1; o < op; o++ {
		if _, ok := r.log.journal.Get(o); !ok {
			return true
		}
	}
	return false
}

// committedOp names h, committed or applied in the replica's view.
func (r *Replica) committedOp(h *vsr.Header) vsr.CommittedOp {
	return vsr.CommittedOp{View: r.view, Op: h.Op, Checksum: h.Checksum, Parent: h.Parent, Client: h.Client, Request: h.Request}
}
