package replica

import (
	"vsrsim/marks"
	"vsrsim/vsr"
)

// Abdication (protocol.md "Abdication"): a primary that cannot commit, yet
// whose heartbeats keep every backup from timing out, must step aside. It
// watches two things over each heartbeat timeout. What it hears: if fewer than
// a replication quorum (itself included) reached it, it abdicates, and
// resumes when a quorum is heard again within a window. And what it commits:
// if a prepare was pending the whole window and no backup sent an ack it
// still lacked, replication has stalled whatever it hears (its acks are lost,
// or its prepares are), and it abdicates for good in this view. An abdicated
// primary prepares nothing, retransmits nothing, and marks its Commit
// heartbeats so backups answer them but let their own timeouts run, and a
// view change follows. With nothing pending there is nothing to stall: a
// sparse workload whose heartbeat answers are lost keeps its view.

// hear records that m reached this primary from a replica of its view.
func (r *Replica) hear(m *vsr.Message) {
	if r.status != vsr.StatusNormal || !r.isPrimary() || m.View != r.view ||
		m.From < 0 || m.From >= r.n || m.From == r.id {
		return
	}
	if m.Command == vsr.CmdStartViewChange && m.StartViewChange().Leave {
		return // a replica asking to leave the view is not following it
	}
	r.peers.HeardInWindow(m.From)
	if r.hearsQuorum() && r.abd.Resume() {
		r.vc.leave &^= 1 << uint(r.id)
		r.fx.Emit(vsr.ViewNoted{View: r.view}.Event(vsr.EvResume))
		r.due |= dueDrain
	}
}

func (r *Replica) hearsQuorum() bool {
	return r.peers.WindowQuorum(vsr.QuorumReplication(r.n))
}

func (r *Replica) onAbdicateTimeout() {
	if r.status != vsr.StatusNormal || !r.isPrimary() {
		r.timers.Abdicate.Stop()
		return
	}
	stalled := r.abd.CloseWindow(r.replicationStalled())
	unheard := !r.hearsQuorum() && (len(r.pipeline) > 0 || r.abd.ByHearing())
	if (stalled || unheard) && r.abd.StepAside(stalled) {
		if stalled {
			r.fx.Mark(marks.AbdicateStalled)
		} else {
			r.fx.Mark(marks.Abdicate)
		}
		r.fx.Emit(vsr.ViewNoted{View: r.view}.Event(vsr.EvAbdicate))
	}
	r.pushStartView()
	r.peers.NewWindow()
	r.watchReplication()
	r.timers.Abdicate.Reset(nil)
	if r.abd.Abdicated && r.vc.quorumWindow {
		r.askToLeave() // counted by backups that gave up on it too
	}
}

// replicationStalled reports whether the op first in the pipeline when this
// window began is still uncommitted and no backup acked, in the window, a
// prepare it still lacked: the primary hears acks for nothing it needs.
func (r *Replica) replicationStalled() bool {
	return r.abd.ReplicationStalled(r.firstInPipeline())
}

// watchReplication opens a new window of the stall watch.
func (r *Replica) watchReplication() { r.abd.Watch(r.firstInPipeline()) }

// firstInPipeline is the first op the pipeline holds, 0 if it is empty.
func (r *Replica) firstInPipeline() uint64 { return r.pipeline.First() }

// onCommitOK: a backup answered a heartbeat. Being heard is all it says, and
// its incarnation.
func (r *Replica) onCommitOK(m *vsr.Envelope, p vsr.CommitOk) {
	vsr.Assert(r.id, m.View == r.view, "commit_ok_gate_primary", vsr.DetailGate)
	vsr.Assert(r.id, r.status == vsr.StatusNormal, "commit_ok_gate_primary", vsr.DetailGate)
	vsr.Assert(r.id, r.isPrimary(), "commit_ok_gate_primary", vsr.DetailGate)
	r.learnIncarnation(m.From, p.Incarnation)
	vsr.Assert(r.id, r.peers.Incarnation(m.From) >= p.Incarnation, "commit_ok_incarnation_known", vsr.DetailHolds)
	r.learnCommitFromBackup(p)
	r.retransmitOnHeard(m.From)
}

// retransmitOnHeard: a backup answered a heartbeat while retransmits of
// prepares it has not acked are backing off, so its link from this primary
// works now; a link that flaps may be up for less than the backed-off wait.
// The prepares go to it at once and the retransmit timer starts afresh
// (mark backoff-reset).
func (r *Replica) retransmitOnHeard(from int) {
	if !r.peers.ResetsBackoff() || r.abd.Abdicated || r.timers.Prepare.Attempts == 0 || len(r.pipeline) == 0 {
		return
	}
	r.fx.Mark(marks.BackoffReset)
	r.retransmit(from)
	r.timers.Prepare.Start(r.jitter)
}

// learnCommitFromBackup: a backup applied up to p.Commit, so every op to there
// was committed by some primary on a quorum. When this primary's log holds the
// same op at that point (same checksum, so the same chain below it), those ops
// are committed here too, whatever the votes that elected it knew; without
// this, a primary elected by replicas that knew less waits forever for fresh
// acks of ops its only other live backup applied before it lost its journal.
func (r *Replica) learnCommitFromBackup(p vsr.CommitOk) {
	c := p.Commit
	if c <= r.wm.commitMax || c > r.wm.sequencer || !r.log.journal.Has(c, p.Checksum) {
		return
	}
	r.fx.Mark(marks.CommitFromBackup)
	r.wm.commitMax = c
	r.due |= dueCommitWalk
	vsr.Assert(r.id, r.wm.commitMax <= r.wm.sequencer, "commit_from_backup_within_log", vsr.DetailHolds)
}

// pushStartView sends the view's StartView, unasked, to each backup this
// primary heard nothing from in the window just ended. A backup that hears
// the primary but cannot reach it (a one-way cut, or a link as slow as a
// restart) never times out, yet its RequestStartView never arrives: without
// this it waits outside the view for good, and its wish to leave is one vote
// the working quorum never joins. A backup already Normal in the view refuses
// it at the gate (ReasonInView), so it costs that backup nothing; one in a
// lower view or recovering adopts it, as it would the answer to its probe.
func (r *Replica) pushStartView() {
	if !r.abd.PushesStartView() || r.abd.Abdicated {
		return
	}
	for i := 0; i < r.n; i++ {
		if i != r.id && !r.peers.InWindow(i) {
			r.fx.Mark(marks.StartViewPushed)
			r.sendStartView(i, 0)
		}
	}
}
