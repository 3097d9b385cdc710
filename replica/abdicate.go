package replica

import "vsrsim/marks"

// Abdication (protocol.md "Abdication"): a primary that cannot hear a
// replication quorum cannot commit, yet its heartbeats keep every backup from
// timing out. So it watches what it hears: after a heartbeat timeout in which
// fewer than a replication quorum (itself included) reached it, it abdicates:
// it prepares nothing, retransmits nothing, and marks its Commit heartbeats so
// backups answer them but let their own timeouts run, and a view change
// follows. When a quorum is heard again within a window it resumes.

// hear records that m reached this primary from a replica of its view.
func (r *Replica) hear(m *Message) {
	if r.status != StatusNormal || !r.isPrimary() || m.View != r.view ||
		m.From < 0 || m.From >= r.n || m.From == r.id {
		return
	}
	if m.Command == CmdStartViewChange && m.StartViewChange().Leave {
		return // a replica asking to leave the view is not following it
	}
	r.heard |= 1 << uint(m.From)
	if r.abdicated && r.hearsQuorum() {
		r.abdicated = false
		r.leave &^= 1 << uint(r.id)
		r.emit(ViewNoted{View: r.view}.Event(EvResume))
		r.due |= dueDrain
	}
}

func (r *Replica) hearsQuorum() bool {
	return popcount16(r.heard|1<<uint(r.id)) >= QuorumReplication(r.n)
}

func (r *Replica) onAbdicateTimeout() {
	if r.status != StatusNormal || !r.isPrimary() {
		r.tAbdicate.stop()
		return
	}
	if !r.abdicated && !r.hearsQuorum() {
		r.abdicated = true
		r.mark(marks.Abdicate)
		r.emit(ViewNoted{View: r.view}.Event(EvAbdicate))
	}
	r.pushStartView()
	r.heard = 0
	r.tAbdicate.reset(nil)
	if r.abdicated && !r.opts.Protocol.SVCQuorumOff {
		r.askToLeave() // counted by backups that gave up on it too
	}
}

// onCommitOK: a backup answered a heartbeat. Being heard is all it says, and
// its incarnation.
func (r *Replica) onCommitOK(m *Envelope, p CommitOk) {
	invariant(r.id, m.View == r.view, "commit_ok_gate_primary", detailGate)
	invariant(r.id, r.status == StatusNormal, "commit_ok_gate_primary", detailGate)
	invariant(r.id, r.isPrimary(), "commit_ok_gate_primary", detailGate)
	if p.Incarnation > r.incarnations[m.From] {
		r.learnIncarnation(m.From, p.Incarnation)
	}
	invariant(r.id, r.incarnations[m.From] >= p.Incarnation, "commit_ok_incarnation_known", detailHolds)
	r.learnCommitFromBackup(p)
}

// learnCommitFromBackup: a backup applied up to p.Commit, so every op to there
// was committed by some primary on a quorum. When this primary's log holds the
// same op at that point (same checksum, so the same chain below it), those ops
// are committed here too, whatever the votes that elected it knew; without
// this, a primary elected by replicas that knew less waits forever for fresh
// acks of ops its only other live backup applied before it lost its journal.
func (r *Replica) learnCommitFromBackup(p CommitOk) {
	c := p.Commit
	if c <= r.wm.commitMax || c > r.wm.sequencer || !r.journal.has(c, p.Checksum) {
		return
	}
	r.mark(marks.CommitFromBackup)
	r.wm.commitMax = c
	r.due |= dueCommitWalk
	invariant(r.id, r.wm.commitMax <= r.wm.sequencer, "commit_from_backup_within_log", detailHolds)
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
	if r.opts.Protocol.PushStartViewOff || r.abdicated {
		return
	}
	for i := 0; i < r.n; i++ {
		if i != r.id && r.heard&(1<<uint(i)) == 0 {
			r.mark(marks.StartViewPushed)
			r.sendStartView(i, 0)
		}
	}
}
