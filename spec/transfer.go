package spec

import "slices"

// A state-transfer install (D77). A replica that installs a checkpoint at op
// k applies, in the same step, what its journal holds above it up to the
// commit point it knows: the ops it holds with the checksum some replica
// applied there (committed, so each names the one below as its parent, and
// op k+1 the checkpoint's op). Nothing else may come to walk them: a backup
// cut off from its primary learns no commit point it does not know already,
// so one that waits for a Prepare, a Commit or a higher commit point may
// wait for good (install-skips-commit-walk), and only a stall judged at the
// end of a run would show it.

// Installed records that replica i installed a state transfer at op, its
// commit point right after being commit (its report).
func (m *Model) Installed(i int, op, commit uint64) {
	r := &m.replicas[i]
	r.install = installed{op: op, commit: commit, done: true}
}

// ReadFailed records that a read of replica i's journal copy of op came back
// without that entry, where the replica gives up a body neither copy holds
// whole (its header copy is the last it reads): the body may have left its
// journal with no event, until it journals the op again. Only
// install_applies reads it, and only to judge less.
func (m *Model) ReadFailed(i int, op uint64) {
	r := &m.replicas[i]
	if !slices.Contains(r.unread, op) {
		r.unread = append(r.unread, op)
	}
}

// installed is the step's install, if any.
type installed struct {
	op, commit uint64
	done       bool
}

// checkInstallApplies judges, at the end of an install's step, that the
// replica applied the ops above the checkpoint it held committed.
func (m *Model) checkInstallApplies(i int, r *replicaState) {
	in := r.install
	r.install = installed{}
	if !in.done || m.failure != nil {
		return
	}
	top := in.op
	for o := in.op + 1; o <= in.commit && m.holdsCommitted(r, o); o++ {
		top = o
	}
	if r.settled < top {
		m.failOp(i, top, RuleInstallApplies, "installs a state transfer at op %d with commit point %d, holds ops %d..%d committed and applies only up to op %d",
			in.op, in.commit, in.op+1, top, r.settled)
	}
}

// holdsCommitted reports whether replica r's journal holds op o with the
// checksum some replica applied there, in its live ring: no later op of the
// same slot journaled (the journal applies from its live ring only, and a
// displacement into the evicted ring reports no event), and no read of it
// failed since it was journaled (a body a read gave up leaves the journal
// with no event: the oracle learns of it from the disk's record).
func (m *Model) holdsCommitted(r *replicaState, o uint64) bool {
	if o >= uint64(len(r.log)) || o >= uint64(len(m.applied)) || r.log[o] == 0 || r.log[o] != m.applied[o].sum ||
		slices.Contains(r.unread, o) {
		return false
	}
	s := uint64(m.cfg.JournalSlots)
	if s == 0 {
		return true
	}
	for later := o + s; later < uint64(len(r.log)); later += s {
		if r.log[later] != 0 {
			return false
		}
	}
	return true
}
