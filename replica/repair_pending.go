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

// Below the live ring (D105): a replica whose commit point fell more than a
// journal behind its head cannot journal the committed ops it must apply
// next (their slots hold newer ops), and a state transfer needs a peer with
// a newer checkpoint. Where no peer has one, the core may still hold every
// op between them: displaced into the evicted ring, set aside, or at a peer
// that can serve them (robust-fab-4205863593.vsr: two lagging core replicas,
// each waiting for an offer the other could not make, together held every
// op). The chain of checksums down from the lowest op the live ring holds
// canonically vouches for such a body, op by op, as the op above vouches for
// a repaired body in the ring (repairVerdict); a vouched body at the commit
// point applies without a slot.

// offerless reports whether this replica waits for a state transfer that
// no peer offers: more offer requests than it has peers went unanswered,
// none pinned. Only then does it fetch, keep and apply ops below its ring:
// any other replica takes the checkpoint that comes.
func (r *Replica) offerless() bool {
	return r.transfer.active && r.transfer.unanswered > r.n && !r.transfer.pinned
}

// chainWant is the checksum the chain down from the live ring names for op,
// below its reach, if every op between holds a body it vouched for.
func (r *Replica) chainWant(op uint64) (uint64, bool) {
	low := r.log.journal.LowestHoldable()
	if op >= low || low > r.wm.commitMax {
		return 0, false
	}
	top, ok := r.log.journal.Get(low)
	if a, adopted := r.log.adopted.Get(low); !ok || (adopted && a.Checksum != top.Checksum) {
		return 0, false
	}
	want := top.Parent
	vsr.Assert(r.id, top.Op == low, "chain_starts_at_the_ring", "op %d low %d", top.Op, low)
	for o := low - 1; o > op; o-- {
		b, held := r.heldBelow(o, want)
		if !held {
			return 0, false
		}
		want = b.Parent
	}
	return want, true
}

// vouchedNear: the commit anchor or the adopted header above of the
// replica's own log (own; the header above at the commit point too, D107), or
// below the commit point the chain above, vouches for a repaired body. The
// anchor is labelled as the adopted headers are (D95): back in an older
// durable log_view, it names a newer view's committed op, which journaled
// would be voted under the older log_view (D109).
func (r *Replica) vouchedNear(h vsr.Header, own bool) bool {
	o := h.Op
	if own && o == r.log.commitAnchor.Op && h.Checksum == r.log.commitAnchor.Checksum {
		return true
	}
	if a, ok := r.log.adopted.Get(o + 1); ok && own && a.Parent == h.Checksum && o <= r.wm.commitMax {
		return true
	}
	return o < r.wm.commitMax && r.namedAbove(o, h.Checksum)
}

// namedAbove reports whether the op above op names sum as its parent: the
// journal's, or, below the live ring, the chain's (D105).
func (r *Replica) namedAbove(op, sum uint64) bool {
	if j, ok := r.log.journal.Get(op + 1); ok && j.Parent == sum {
		return true
	}
	want, ok := r.chainWant(op)
	return ok && want == sum
}

// heldBelow is the body of op with checksum sum this replica holds outside
// the live ring: in the evicted ring, or set aside.
func (r *Replica) heldBelow(op, sum uint64) (vsr.Header, bool) {
	if h, ok := r.log.journal.Evicted.Get(op); ok && h.Checksum == sum {
		return h, true
	}
	if h, ok := r.log.aside.Get(op); ok && h.Checksum == sum {
		return h, true
	}
	return vsr.Header{}, false
}

// vouchedBelow is the body of op below the live ring that the chain vouches
// for, if this replica holds it; the commit walk applies it at the commit
// point (nextCommitted).
func (r *Replica) vouchedBelow(op uint64) (vsr.Header, bool) {
	want, ok := r.chainWant(op)
	if !ok {
		return vsr.Header{}, false
	}
	h, held := r.heldBelow(op, want)
	vsr.Assert(r.id, !held || (h.Op == op && h.Checksum == want), "vouched_below_is_the_chains", "op %d", op)
	if held && op == r.wm.commitMin+1 && h.Parent == r.wm.commitSum {
		r.fx.Mark(marks.CommitBelowWindow)
	}
	return h, held
}

// keepBelow keeps a verified repaired body that found no slot, below the
// live ring, where the chain and the commit point reach it: set aside, unless
// a newer op holds that slot of the set-aside ring too.
func (r *Replica) keepBelow(h vsr.Header) bool {
	if !r.offerless() || h.Op >= r.log.journal.LowestHoldable() || h.Op > r.wm.commitMax || !r.log.aside.Holds(h.Op) {
		return false
	}
	r.log.aside.Put(h)
	_, kept := r.log.aside.Get(h.Op)
	vsr.Assert(r.id, kept, "kept_below_the_ring", "op %d", h.Op)
	r.fx.Mark(marks.RepairBelowWindow)
	return true
}
