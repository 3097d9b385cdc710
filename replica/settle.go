package replica

import "vsrsim/vsr"

// The driver. A handler never chains into the primary's commit walk or into
// preparing queued requests: it marks them due, and settle runs what is due
// in a fixed order until nothing is. Before, commit walk, apply and request
// draining called one another (prepare -> commitWalk -> drainRequests ->
// prepare), held apart only by a reentrancy flag.

// due is a set of follow-ups a step left for the driver.
type due uint8

const (
	// dueCommitWalk: the pipeline may hold a newly quorum-acked op (a
	// prepare, an ack, a view start).
	dueCommitWalk due = 1 << iota
	// dueDrain: a queued request may be preparable (a request arrived, an op
	// applied, the primary resumed).
	dueDrain
)

// settleRoundsMax bounds the driver: every round that prepares consumes a
// queued request, so the rounds are bounded by the queue.
const settleRoundsMax = 2*vsr.RequestQueueMax + 4

// settle runs the due follow-ups to a fixed point: first the commit walk
// (which applies what it commits and marks a drain due), then one queued
// request prepared (which marks a commit walk due). One request a round keeps
// a single-replica cluster applying each op before it prepares the next.
//
// Nothing is due on most ticks and steps: that check is inlined at each call.
func (r *Replica) settle() {
	if r.due != 0 {
		r.settleDue()
	}
	if len(r.dur.releasing) > 0 {
		r.releaseLanded()
	}
}

func (r *Replica) settleDue() {
	for round := 0; r.due != 0; round++ {
		vsr.Assert(r.id, round <= settleRoundsMax, "settle_bounded", "%d rounds, due %b", uint64(round), uint64(r.due))
		switch {
		case r.due&dueCommitWalk != 0:
			r.due &^= dueCommitWalk
			before := r.wm.commitMax
			r.commitWalk()
			vsr.Assert(r.id, r.wm.commitMax >= before, "commit_walk_monotonic", "commit_max %d -> %d", before, r.wm.commitMax)
		case r.due&dueDrain != 0:
			r.due &^= dueDrain
			queued := len(r.requests)
			if r.prepareNext() {
				r.due |= dueCommitWalk | dueDrain
				vsr.Assert(r.id, len(r.requests) < queued, "prepare_consumes_request", "queue %d -> %d",
					uint64(queued), uint64(len(r.requests)))
			}
		}
	}
}

// releaseLanded lets go of each set-aside copy waiting for the journal's
// write of its slot (leaveAside) once that write has landed. One the journal
// no longer holds (written over, taken out) stays set aside: it is the only
// copy.
func (r *Replica) releaseLanded() {
	s := r.dur.store
	kept := r.dur.releasing[:0]
	for _, h := range r.dur.releasing {
		slot := int(h.Op % uint64(r.opts.JournalSlots))
		a, aside := r.log.aside.Get(h.Op)
		switch {
		case !aside || a.Checksum != h.Checksum || !r.log.journal.Has(h.Op, h.Checksum):
		case s.dirty.Marked[slot] || s.slotFence[slot] > r.dur.fencesLanded:
			kept = append(kept, h)
		default:
			r.log.aside.Remove(h.Op)
			r.fx.Emit(vsr.JournalChange{Op: h.Op, Checksum: h.Checksum}.Event(vsr.EvJournalAsideRelease))
		}
	}
	r.dur.releasing = kept
	vsr.Assert(r.id, len(kept) <= r.opts.JournalSlots, "releasing_bounded", "%d waiting", uint64(len(kept)))
}
