package replica

import (
	"vsrsim/marks"
	"vsrsim/vsr"
)

// Repair served: a peer's RequestPrepares answered from the journal (or the
// set-aside bodies), the range it can no longer serve named, and the bodies
// this replica lost to its disk left out (protocol.md "Repair").

func (r *Replica) onRequestPrepares(m *vsr.Envelope, p vsr.RequestPrepares) {
	from, to := p.From, p.To
	vsr.Assert(r.id, r.status != vsr.StatusRecovering, "request_prepares_gate_range", vsr.DetailGate)
	vsr.Assert(r.id, from != 0, "request_prepares_gate_range", vsr.DetailGate)
	vsr.Assert(r.id, to >= from, "request_prepares_gate_range", vsr.DetailGate)
	if to-from+1 > vsr.RepairBatchMax {
		to = from + vsr.RepairBatchMax - 1
	}
	first := r.firstRetained()
	if from < first {
		if _, ok := r.log.journal.GetForRepair(from); !ok {
			r.fx.Send(m.From, vsr.RangeEvicted{First: first}.Message())
			return
		}
	}
	if r.lostToDisk(from) {
		// A disk took this committed op's copy at a restart; the state
		// applied past it is what this replica can give: a transfer.
		r.fx.Mark(marks.StorageRangeLost)
		r.fx.Send(m.From, vsr.RangeEvicted{First: from + 1}.Message())
		return
	}
	last := uint64(0)
	for op := from; op <= to; op++ {
		h, ok := r.log.journal.GetForRepair(op)
		// The commit point vouches for what the journal holds: every op
		// of it up to there is the committed one.
		commit := r.wm.commitMin
		if !ok {
			// A body set aside (no chain vouches for it here yet) may be
			// the last copy of a committed op, and the requester may hold
			// what vouches for it: serve it, and let the requester's own
			// check decide (seed 4080 of the transfer-race focus's tuning:
			// the only copies of committed ops 205-209 lay set aside at a
			// replica that could not verify them, while a peer that could
			// asked for them in vain for the whole liveness phase).
			// It vouches for nothing here, so it goes with no commit point:
			// the requester's check, not this replica's commit point,
			// must decide (a set-aside op 12 of an old view, served with a
			// commit point past 12, was taken for the committed op 12:
			// swarm seed 1592593369 from 0x5eed0000).
			h, ok = r.log.aside.Get(op)
			commit = 0
		}
		if !ok {
			continue
		}
		h.View = r.view
		r.fx.Send(m.From, vsr.RepairPrepare{Header: h, Commit: commit}.Message())
		last = op
	}
	vsr.Assert(r.id, last == 0 || (last >= from && last <= to), "repair_serves_the_range", vsr.DetailHolds)
	if last != 0 {
		r.fx.Mark(marks.RepairServed)
	}
	r.fx.Send(m.From, vsr.RepairDone{Last: last}.Message())
}

// lostToDisk reports whether op, applied here and within what the journal
// retains, is held nowhere here: only a replica on a disk loses such a copy
// (a faulty slot at a restart), and only its applied state still covers it.
func (r *Replica) lostToDisk(op uint64) bool {
	if r.dur.store == nil || op > r.wm.commitMin {
		return false
	}
	if _, ok := r.log.journal.GetForRepair(op); ok {
		return false
	}
	_, aside := r.log.aside.Get(op)
	return !aside
}

// firstRetained is the lowest op this replica could serve by repair.
func (r *Replica) firstRetained() uint64 {
	first := r.log.journal.FirstRetained()
	if r.log.journalFloor > first {
		first = r.log.journalFloor
	}
	return first
}
