package replica

import (
	"slices"

	"vsrsim/marks"
	"vsrsim/vsr"
)

// Repair (protocol.md "Repair"): a replica fetches the prepares it lacks by
// request, one session at a time, from the primary by default, rotating peers
// when a session stalls.

// missingSuffix reports whether adopted headers above commit_max lack bodies.
func (r *Replica) missingSuffix() bool {
	for op := r.wm.commitMax + 1; op <= r.knownHead(); op++ {
		if h, ok := r.log.adopted.Get(op); ok && !r.log.journal.Has(op, h.Checksum) {
			return true
		}
	}
	return false
}

// fetchToOp is the top of the repair window. Under commit lag the fixed rule
// still fetches through the adopted head when adopted headers lack bodies;
// the narrow rule stops at commit_max and leaves the head hollow.
func (r *Replica) fetchToOp() uint64 {
	lag := r.wm.commitMin < r.wm.commitMax
	if lag && (r.opts.Bugs.NarrowRepairUnderCommitLag || !r.missingSuffix()) {
		return r.wm.commitMax
	}
	if r.knownHead() > r.wm.commitMax {
		return r.knownHead()
	}
	return r.wm.commitMax
}

// armRepairOnAdopt sets the repair window when a view is adopted: this is when
// adopted headers without bodies appear.
func (r *Replica) armRepairOnAdopt() {
	if to := r.fetchToOp(); to > r.log.repairArmedTo {
		r.log.repairArmedTo = to
	}
}

// repairWindow is the window the next request covers: the armed window, widened
// to the current fetch window while commit lags.
func (r *Replica) repairWindow() (from, to uint64, ok bool) {
	to = r.log.repairArmedTo
	if r.wm.commitMin < r.wm.commitMax {
		if w := r.fetchToOp(); w > to {
			to = w
		}
	}
	from = r.repairFrom(to)
	if low := r.log.journal.LowestHoldable(); from < low && from <= to && !r.holdsCanonical(from) {
		// The next op to commit no longer fits beside the ops journaled
		// above it: only a checkpoint gets past it, or where no peer offers
		// one the ops themselves, kept below the ring (D105).
		r.log.repairFloor = low
		r.startTransfer()
		from = low
	}
	if r.offerless() {
		from = r.wm.commitMin + 1
	}
	low := from
	for ; from <= to; from++ {
		// A body that came and waits for the op above it to vouch for
		// it is not asked for again: the window moves up toward what can
		// vouch (seeds/recorded/race-101.vsr: a window that stopped
		// short of the commit point's anchor asked for the same
		// unvouched ops for good).
		if !r.holdsCanonical(from) && !r.heldPending(from) {
			break
		}
	}
	if from > to {
		if from = r.firstUnheld(low, to); from > to {
			r.log.repairArmedTo = 0
			return 0, 0, false
		}
		// Only waiting bodies are left: nothing above them came to
		// vouch, so ask for them again, as before.
	}
	if to-from+1 > vsr.RepairWindowMax {
		to = from + vsr.RepairWindowMax - 1
	}
	return from, to, true
}

// repairFrom is the bottom of a window whose top is to: the op after the
// commit point, or while a transfer is pending what the journal can hold
// together with the top (nothing at or above the floor can commit until it
// installs; wider, the repaired ops would evict one another and be fetched
// again without end).
func (r *Replica) repairFrom(to uint64) uint64 {
	from := r.wm.commitMin + 1
	if r.log.repairFloor <= from {
		return from
	}
	from = r.log.repairFloor
	if size := uint64(r.opts.JournalSlots); to >= size && to-size+1 > from {
		from = to - size + 1
	}
	return max(from, r.log.journal.LowestHoldable())
}

// firstUnheld is the first op of from..to the journal does not hold, or
// to+1.
func (r *Replica) firstUnheld(from, to uint64) uint64 {
	for ; from <= to && r.holdsCanonical(from); from++ {
	}
	return from
}

// holdsCanonical reports whether the journal holds op and it agrees with any
// adopted header there.
func (r *Replica) holdsCanonical(op uint64) bool {
	j, ok := r.log.journal.Get(op)
	if !ok {
		return false
	}
	if a, ok := r.log.adopted.Get(op); ok && a.Checksum != j.Checksum {
		return false
	}
	return true
}

// repairRounds counts the full rotations through the peers that stalled in a
// row: the repair timeout doubles per rotation, not per peer, so one peer that
// is down does not delay asking the next.
func (r *Replica) repairRounds() uint64 {
	return uint64(r.repair.stalls / max(r.n-1, 1))
}

func (r *Replica) repairPeer() int {
	p := r.primary()
	step := r.repair.stalls
	if p == r.id {
		step++
	}
	for k := 0; k < r.n; k++ {
		c := (p + step + k) % r.n
		if c == r.id {
			continue
		}
		return r.nextPeer(c, r.anyPeer)
	}
	return r.id
}

func (r *Replica) anyPeer(int) bool { return true }

// repairKick starts a repair session when one is due and none is running.
func (r *Replica) repairKick() {
	if r.status != vsr.StatusNormal || r.repair.active || r.n == 1 {
		return
	}
	from, to, ok := r.repairWindow()
	if !ok {
		return
	}
	r.repairSend(r.repairPeer(), from, to)
}

func (r *Replica) repairSend(peer int, from, to uint64) {
	vsr.Assert(r.id, peer != r.id, "repair_asks_a_peer", vsr.DetailHolds)
	vsr.Assert(r.id, peer >= 0, "repair_asks_a_peer", vsr.DetailHolds)
	vsr.Assert(r.id, peer < r.n, "repair_asks_a_peer", vsr.DetailHolds)
	vsr.Assert(r.id, from > 0, "repair_range_nonempty", vsr.DetailHolds)
	vsr.Assert(r.id, from <= to, "repair_range_nonempty", vsr.DetailHolds)
	r.repair.active = true
	r.repair.peer = peer
	r.repair.from = from
	r.repair.to = to
	r.repair.progress = false
	r.fx.Mark(marks.RepairRequested)
	r.fx.Emit(vsr.RepairRequested{From: from, To: to, Peer: peer}.Event())
	r.fx.Send(peer, vsr.RequestPrepares{From: from, To: to}.Message())
	r.timers.Repair.Retry(r.jitter, r.repairRounds())
}

// repairForView fetches a body the primary-elect lacks from a voter that holds it.
func (r *Replica) repairForView(op uint64) {
	if r.repair.active {
		return
	}
	i := op - r.wm.commitMax - 1
	if i >= uint64(len(r.vc.mergeSources)) {
		return
	}
	sources := r.vc.mergeSources[i]
	peer := -1
	for k := 0; k < r.n; k++ {
		c := (r.id + 1 + r.repair.stalls + k) % r.n
		if c != r.id && sources&(1<<uint(c)) != 0 {
			peer = c
			break
		}
	}
	if peer < 0 {
		return
	}
	to := op
	for to+1 <= r.wm.sequencer && to-op+1 < vsr.RepairWindowMax {
		h, _ := r.log.adopted.Get(to + 1)
		if r.log.journal.Has(to+1, h.Checksum) {
			break
		}
		to++
	}
	r.repairSend(peer, op, to)
}

func (r *Replica) onRepairTimeout() {
	if r.status == vsr.StatusRecovering {
		r.timers.Repair.Stop()
		return
	}
	if r.repair.active {
		if !r.repair.progress {
			r.repair.stalls++ // silence may be loss: the peer is not written off
		}
		r.repair.active = false
	}
	if r.status == vsr.StatusViewChange {
		r.tryStartView()
	} else {
		r.repairKick()
	}
	if !r.repair.active {
		r.timers.Repair.Retry(r.jitter, r.repairRounds())
	}
}

func (r *Replica) onRepairPrepare(m *vsr.Envelope, rp vsr.RepairPrepare) {
	h := rp.Header
	o := h.Op
	vsr.Assert(r.id, r.status != vsr.StatusRecovering, "repair_prepare_gate_valid", vsr.DetailGate)
	vsr.Assert(r.id, h.Valid(), "repair_prepare_gate_valid", vsr.DetailGate)
	vsr.Assert(r.id, o > r.wm.commitMin, "repair_prepare_gate_new", vsr.DetailGate)
	vsr.Assert(r.id, !r.log.journal.Has(o, h.Checksum), "repair_prepare_gate_new", vsr.DetailGate)
	switch r.repairVerdict(h, rp.Commit) {
	case repairMismatch:
		r.fx.Mark(marks.RepairBodyMismatch)
		a, _ := r.log.adopted.Get(o)
		r.fx.Drop(m, o, vsr.ReasonHeaderMismatch, a.Checksum&0xffff)
		return
	case repairUnverified:
		r.holdPending(h)
		r.fx.Drop(m, o, vsr.ReasonUnverified, 0)
		return
	}
	if !r.repairPut(h, m) {
		return
	}
	// Each verified op may vouch for the parent that arrived before it.
	for next := o - 1; next > r.wm.commitMin; next-- {
		p, ok := r.takePending(next)
		if !ok || r.repairVerdict(p, 0) != repairVerified || !r.repairPut(p, nil) {
			break
		}
	}
}

type repairCheck int

const (
	repairUnverified repairCheck = iota
	repairVerified
	repairMismatch
)

// repairVerdict decides whether a repaired body is the canonical op at its
// slot. serverCommit is the server's commit_min. A body that merely links to
// our commit point proves nothing: an op of an abandoned view links to the
// same parent. What vouches for it: the server applied it (committed, so
// canonical by agreement), an adopted header, the commit anchor, or the
// canonical op above it naming it as parent.
func (r *Replica) repairVerdict(h vsr.Header, serverCommit uint64) repairCheck {
	o := h.Op
	if r.awaitedBody(&h) {
		return repairVerified // the merge's canonical header vouches for it
	}
	if o <= r.wm.commitMax && o <= serverCommit {
		return repairVerified
	}
	// Adopted headers vouch only for the log they were adopted for: back in
	// an older durable log_view (D65) they are another log's, and a body
	// they vouched for replaced an entry this replica had acked in its own
	// (D81; swarm seed 3737876461 from 0xdecade00).
	own := r.log.adoptedLogView == r.logView
	if a, ok := r.log.adopted.Get(o); ok && own {
		if a.Checksum != h.Checksum {
			return repairMismatch
		}
		return repairVerified
	}
	if r.vouchedNear(h, own) {
		return repairVerified
	}
	return repairUnverified
}

// nextCommitted is the op after the commit point, journaled or vouched below the ring (D105).
func (r *Replica) nextCommitted() (vsr.Header, bool) {
	if h, ok := r.log.journal.Get(r.wm.commitMin + 1); ok || !r.offerless() {
		return h, ok
	}
	return r.vouchedBelow(r.wm.commitMin + 1)
}

// repairPut journals a verified repaired body and lets it move the head, the
// acks and the commit point. m is the message it came in (nil for a body
// taken from pending).
func (r *Replica) repairPut(h vsr.Header, m *vsr.Envelope) bool {
	o := h.Op
	if j, ok := r.log.journal.Get(o); ok && j.Checksum != h.Checksum {
		r.journalRemove(o)
	}
	// Never displace a newer op: this replica may have acked it, and a vote
	// that later shows it header-only would count as a nack.
	if !r.journalPut(h, false) {
		if r.keepBelow(h) {
			r.repair.progress = true
			r.commitUpTo()
			return true
		}
		if m != nil {
			r.fx.Drop(m, o, vsr.ReasonNoSlot, 0)
		}
		return false
	}
	if a, ok := r.log.adopted.Get(o); ok && a.Checksum != h.Checksum {
		r.log.adopted.Put(h) // a stale header from an older view
	}
	r.noteReadRepaired(o)
	r.repair.progress = true
	r.repair.stalls = 0
	r.repair.unhelpful = 0
	r.reclaim(o-1, false)
	// Catch-up below the commit point extends the head; repair never rewinds it.
	for r.wm.sequencer < r.wm.commitMax {
		next, ok := r.log.journal.Get(r.wm.sequencer + 1)
		if !ok || next.Parent != r.wm.headSum {
			break
		}
		r.wm.sequencer = next.Op
		r.wm.headSum = next.Checksum
	}
	if o > r.wm.commitMax && o <= r.wm.sequencer {
		r.ack(h)
	}
	r.commitUpTo()
	if r.status == vsr.StatusViewChange {
		if r.awaitedBody(&h) {
			r.revote()
		}
		r.tryStartView()
	}
	return true
}

func (r *Replica) onRepairDone(m *vsr.Envelope) {
	vsr.Assert(r.id, r.repair.active, "repair_done_gate_peer", vsr.DetailGate)
	vsr.Assert(r.id, m.From == r.repair.peer, "repair_done_gate_peer", vsr.DetailGate)
	r.repair.active = false
	vsr.Assert(r.id, r.repair.peer == m.From, "repair_done_by_the_session_peer", vsr.DetailHolds)
	if !r.repair.progress {
		r.repair.stalls++ // this peer could not help: rotate
		r.repair.unhelpful |= 1 << uint(m.From)
	}
	if r.status == vsr.StatusViewChange {
		r.tryStartView()
	} else {
		r.repairKick()
	}
}

// onRangeEvicted: the peer no longer retains what we need. Once the primary
// said so, or a peer said so twice with nothing gained in between, or every
// peer either said so or had nothing to give, arm a state transfer and keep
// repairing from what is still retained; until then ask the next peer, which
// may hold it still (a backup that installed a checkpoint retains nothing
// below it).
func (r *Replica) onRangeEvicted(m *vsr.Envelope, p vsr.RangeEvicted) {
	vsr.Assert(r.id, r.status != vsr.StatusRecovering, "range_evicted_gate_peer", vsr.DetailGate)
	vsr.Assert(r.id, r.repair.active, "range_evicted_gate_peer", vsr.DetailGate)
	vsr.Assert(r.id, m.From == r.repair.peer, "range_evicted_gate_peer", vsr.DetailGate)
	r.repair.active = false
	r.fx.Mark(marks.RepairRangeEvicted)
	vsr.Assert(r.id, r.repair.peer == m.From, "range_evicted_by_the_session_peer", vsr.DetailHolds)
	again := r.repair.unhelpful&(1<<uint(m.From)) != 0
	r.repair.unhelpful |= 1 << uint(m.From)
	if m.From != r.primary() && !again {
		if c := r.nextHelpfulPeer(m.From); c >= 0 {
			if from, to, ok := r.repairWindow(); ok && r.status == vsr.StatusNormal {
				r.repairSend(c, from, to)
			}
			return
		}
	}
	if p.First > r.wm.commitMin+1 {
		if p.First > r.log.repairFloor {
			r.log.repairFloor = p.First
		}
		r.startTransfer()
	}
	if !r.offerless() { // below the ring, the next try waits for the repair timer (D105)
		r.repairKick()
	}
}

// nextHelpfulPeer is the peer after from to ask next for a range from has
// evicted: one that has not said it cannot help, heard recently if any such
// is (recency.go); -1 if every peer said it cannot help.
func (r *Replica) nextHelpfulPeer(from int) int {
	helpful := func(c int) bool { return r.repair.unhelpful&(1<<uint(c)) == 0 }
	if !r.peers.ResetsBackoff() {
		for k := 1; k < r.n; k++ {
			if c := (from + k) % r.n; c != r.id && helpful(c) {
				return c
			}
		}
		return -1
	}
	return r.nextPeer(from+1, helpful)
}

// noteReadRepaired marks a body a read lost journaled again by repair.
func (r *Replica) noteReadRepaired(op uint64) {
	if s := r.dur.store; s != nil {
		if k := slices.Index(s.reads.Lost, op); k >= 0 {
			s.reads.Lost = slices.Delete(s.reads.Lost, k, k+1)
			r.fx.Mark(marks.StorageReadRepaired)
		}
	}
}
