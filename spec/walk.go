package spec

import "slices"

// The commit walk. A replica that learns a commit point applies, in the same
// step, what its journal holds up to it: each op above the last it applied
// in this life that it holds with the checksum some replica applied there
// (committed, so each names the one below as its parent). It learns one from
// a state-transfer install (the commit point it reports right after; D77:
// a backup cut off from its primary learns no commit point it does not know
// already, so one that waits for a Prepare, a Commit or a higher commit
// point may wait for good), from a Commit heartbeat of its view's primary
// while Normal in that view, and from a StartView it adopts; and it walks on
// in every later step of its life while it stays Normal in that view (a
// Prepare or a repair that brings it the next op). A walk that stops short
// leaves the replica behind a commit point it knows, and only a stall
// judged at the end of a run, if any, would show it.

// walkState is what the commit walk rule keeps of a replica.
type walkState struct {
	// applied is the highest op the replica applied or installed in this
	// life; known says it is known (a restart resumes from a checkpoint
	// it reports no event for, so until its first apply or install the
	// rule does not judge it).
	applied uint64
	known   bool
	// learned is the commit point the step's install reported (0: none),
	// and refused says the replica dropped the message that opened the step.
	learned uint64
	refused bool
	// told is the highest commit point it learned while Normal in its
	// view toldIn, in this life: a step that later brings it an op up to
	// it (a Prepare, a repair) walks on from there.
	told, toldIn uint64
	// unread are the ops a read of which failed since they were journaled.
	unread []uint64
	// tops holds, by journal slot, the highest op journaled there in this
	// life: an op below it left the live ring, into the evicted ring, with
	// no event, and stays out though the op that pushed it is taken out
	// again. As long as the highest slot used, not the journal: a run
	// rarely fills a large one.
	tops []uint64
}

// Installed records that replica i installed a state transfer at op, its
// commit point right after being commit (its report).
func (m *Model) Installed(i int, op, commit uint64) {
	m.replicas[i].installed = true
	w := &m.replicas[i].walk
	w.applied, w.known = op, true
	w.learned = max(w.learned, commit)
}

// Refused records that replica i dropped the message that opened its step.
func (m *Model) Refused(i int) { m.replicas[i].walk.refused = true }

// ReadFailed records that a read of replica i's journal copy of op came back
// without that entry, where the replica gives up a body neither copy holds
// whole (its header copy is the last it reads): the body may have left its
// journal with no event, until it journals the op again. Only commit_walk
// reads it, and only to judge less.
func (m *Model) ReadFailed(i int, op uint64) {
	w := &m.replicas[i].walk
	if !slices.Contains(w.unread, op) {
		w.unread = append(w.unread, op)
	}
}

// walkApplied records that replica i applied op in this life.
func (w *walkState) walkApplied(op uint64) {
	if op > w.applied || !w.known {
		w.applied, w.known = op, true
	}
}

// walkJournaled notes op journaled in slots slots (0: unknown), and forgets
// a failed read of it.
func (w *walkState) walkJournaled(op uint64, slots int) {
	if slots > 0 {
		slot := op % uint64(slots)
		for uint64(len(w.tops)) <= slot {
			w.tops = append(w.tops, 0)
		}
		w.tops[slot] = max(w.tops[slot], op)
	}
	if len(w.unread) > 0 {
		w.unread = slices.DeleteFunc(w.unread, func(o uint64) bool { return o == op })
	}
}

// walkRestart starts a new life: nothing known applied
// (lostLog: its journal did not survive as it was, so what was displaced
// in the last life says nothing of the next; a restart from a disk reports
// what it took up).
func (w *walkState) walkRestart(lostLog bool) {
	w.applied, w.known, w.unread = 0, false, w.unread[:0]
	w.told, w.toldIn = 0, 0
	if lostLog {
		w.tops = w.tops[:0]
	}
}

// learnedCommit is the commit point replica r learned in its step, as the
// commit walk judges it: an install's report, a Commit of its view from that
// view's primary it took while Normal in the view, a StartView it adopted.
func (m *Model) learnedCommit(r *replicaState) uint64 {
	c := r.walk.learned
	msg := &r.cause.msg
	if !r.cause.delivered || r.walk.refused || r.status != StatusNormal || msg.View != r.view {
		return c
	}
	start := r.seen[0]
	switch {
	case msg.Command == CmdCommit && msg.From == m.primary(msg.View) &&
		start.status == StatusNormal && start.view == msg.View:
		c = max(c, msg.Commit)
	case msg.Command == CmdStartView && (start.status != StatusNormal || start.view != msg.View):
		c = max(c, msg.Commit)
	}
	return c
}

// checkCommitWalk judges, at the end of replica i's step, that it applied the
// ops it held committed up to the commit point it learned in the step.
func (m *Model) checkCommitWalk(i int, r *replicaState) {
	c := m.learnedCommit(r)
	w := &r.walk
	from := m.learnedFrom(r)
	w.learned, w.refused = 0, false
	if r.status == StatusNormal {
		if w.toldIn != r.view {
			w.told, w.toldIn = 0, r.view
		}
		if c >= w.told {
			w.told = c
		} else {
			c, from = w.told, "an earlier step of its view"
		}
	}
	if c == 0 || !w.known || m.failure != nil {
		return
	}
	if next := w.applied + 1; next <= c && m.holdsCommitted(r, next) {
		m.failOp(i, next, RuleCommitWalk, "learns commit point %d from %s, holds op %d committed (checksum %x) and applies only up to op %d",
			c, from, next, r.log[next], w.applied)
	}
}

// learnedFrom names what taught the step's commit point, for the evidence.
func (m *Model) learnedFrom(r *replicaState) string {
	if r.walk.learned != 0 {
		return "its state-transfer install"
	}
	return "the message it took"
}

// holdsCommitted reports whether replica r's journal holds op o with the
// checksum some replica applied there, in its live ring: no later op of the
// same slot journaled in this life (the journal applies from its live ring
// only, and a displacement into the evicted ring reports no event; a restart
// from a disk reports what it took up), and no read of it
// failed since it was journaled (a body a read gave up leaves the journal
// with no event: the oracle learns of it from the disk's record).
func (m *Model) holdsCommitted(r *replicaState, o uint64) bool {
	if o >= uint64(len(r.log)) || o >= uint64(len(m.applied)) || r.log[o] == 0 || r.log[o] != m.applied[o].sum ||
		slices.Contains(r.walk.unread, o) {
		return false
	}
	s := uint64(m.cfg.JournalSlots)
	if s == 0 || o%s >= uint64(len(r.walk.tops)) {
		return true
	}
	return r.walk.tops[o%s] <= o
}
