package replica

import (
	"vsrsim/marks"
	"vsrsim/vsr"
)

// Repair's pending bodies: committed-range bodies that arrived before anything
// could vouch for them, held until a verified op above lets its parent in.

// heldPending reports whether a body for op waits in repair.pending.
func (r *Replica) heldPending(op uint64) bool {
	for i := range r.repair.pending {
		if r.repair.pending[i].Op == op {
			return true
		}
	}
	return false
}

// holdPending keeps a committed-range body that nothing vouches for yet.
func (r *Replica) holdPending(h vsr.Header) {
	if h.Op > r.wm.commitMax {
		return
	}
	r.fx.Mark(marks.RepairHeldPending)
	p := r.repair.pending
	for i := range p {
		if p[i].Op == h.Op {
			p[i] = h
			return
		}
	}
	// As many as the journal holds: a hole wider than one request window,
	// under peers that applied nothing (a cluster whose every replica came
	// back below it, no checkpoint taken), is vouched for only from the op
	// above it, down, and a buffer of one window evicted the bottom of the
	// run while the window climbed to what vouches, for good (D82).
	if len(p) >= r.opts.JournalSlots {
		copy(p, p[1:])
		p = p[:len(p)-1]
	}
	r.repair.pending = append(p, h)
	vsr.Assert(r.id, len(r.repair.pending) <= r.opts.JournalSlots, "repair_pending_bounded", "%d", uint64(len(r.repair.pending)))
}

func (r *Replica) takePending(op uint64) (vsr.Header, bool) {
	p := r.repair.pending
	for i := range p {
		if p[i].Op == op {
			h := p[i]
			r.repair.pending = append(p[:i], p[i+1:]...)
			// holdPending replaces a body of the same op: one per op.
			vsr.Assert(r.id, !r.heldPending(op), "repair_pending_one_per_op", "op %d", op)
			return h, true
		}
	}
	return vsr.Header{}, false
}
