package replica

import (
	"slices"

	"vsrsim/marks"
	"vsrsim/replica/room"
	"vsrsim/vsr"
)

// Repair served: a peer's RequestPrepares answered from the journal (or the
// set-aside bodies), the range it can no longer serve named, and the bodies
// this replica lost to its disk left out (protocol.md "Repair"). On a disk
// the copies served are read from it, and the scrubber (below) reads the
// journal back through the same reads: both give a body neither copy holds
// to read repair (readLost).

func (r *Replica) onRequestPrepares(m *vsr.Envelope, p vsr.RequestPrepares) {
	from, to := p.From, p.To
	vsr.Assert(r.id, from != 0, "request_prepares_gate_range", vsr.DetailGate)
	vsr.Assert(r.id, to >= from, "request_prepares_gate_range", vsr.DetailGate)
	if to-from+1 > vsr.RepairBatchMax {
		to = from + vsr.RepairBatchMax - 1
	}
	if r.status == vsr.StatusRecovering {
		r.serveUnplaced(m.From, from, to)
		return
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
	batch := uint64(0)
	if r.dur.store != nil {
		batch = r.dur.store.reads.Batch(m.From)
	}
	last := uint64(0)
	for op := from; op <= to; op++ {
		h, commit, ok := r.repairCopy(op)
		if !ok {
			continue
		}
		if r.readsFromDisk(h) {
			r.askRead(batch, vsr.ZonePrepares, h)
			continue
		}
		r.serveRepair(m.From, h, commit)
		last = op
	}
	vsr.Assert(r.id, last == 0 || (last >= from && last <= to), "repair_serves_the_range", vsr.DetailHolds)
	r.repairBatchDone(batch, m.From, last)
}

// ignoreRequestPrepares refuses a request with no range, and one a
// recovering replica holds no unplaced record of (it serves those only,
// serveUnplaced).
func (r *Replica) ignoreRequestPrepares(p vsr.RequestPrepares) (vsr.Reason, uint64) {
	switch {
	case r.status == vsr.StatusRecovering && !r.log.unplaced.Any(p.From, min(p.To, p.From+vsr.RepairBatchMax-1)):
		return vsr.ReasonCannotServe, 0
	case p.From == 0 || p.To < p.From:
		return vsr.ReasonBadRange, 0
	}
	return vsr.ReasonNone, 0
}

// repairCopy is the copy of op this replica may serve and the commit point
// it goes with: the journal's, the evicted ring's, or a set-aside body's.
func (r *Replica) repairCopy(op uint64) (vsr.Header, uint64, bool) {
	// The commit point vouches for what the journal holds: every op of it
	// up to there is the committed one.
	if h, ok := r.log.journal.GetForRepair(op); ok {
		return h, r.wm.commitMin, true
	}
	// A body set aside (no chain vouches for it here yet) may be the last
	// copy of a committed op, and the requester may hold what vouches for
	// it: serve it, and let the requester's own check decide (seed 4080 of
	// the transfer-race focus's tuning: the only copies of committed ops
	// 205-209 lay set aside at a replica that could not verify them, while
	// a peer that could asked for them in vain for the whole liveness
	// phase). It vouches for nothing here, so it goes with no commit point:
	// the requester's check, not this replica's commit point, must decide
	// (a set-aside op 12 of an old view, served with a commit point past
	// 12, was taken for the committed op 12: swarm seed 1592593369 from
	// 0x5eed0000).
	h, ok := r.log.aside.Get(op)
	return h, 0, ok
}

// serveUnplaced answers a recovering replica's peer from the records its
// amnesiac restart read intact and could not place, with no commit point,
// and nothing else (D84): it knows no log it could vouch for or name a range
// of, but a record that verified is the op its checksum names, and the
// requester's own check (a merge's canonical header, say) decides whether
// it is the one it waits for. Until that view starts nothing else will
// bring the replica back (swarm seed 3737880771 from 0xdecade00: views
// climbed for the whole liveness phase while the primary-elect asked the
// amnesiac replica for op 2's body 23 times). The records live apart from
// the set-aside bodies, which are reclaimed into the journal and hold their
// slots: kept among them, they cost a run its last copy of an op (swarm seed
// 4208917274 from 0xfade0000).
func (r *Replica) serveUnplaced(to int, from, last uint64) {
	served := uint64(0)
	for op := from; op <= last; op++ {
		if h, ok := r.log.unplaced.Get(op); ok {
			vsr.Assert(r.id, h.Op == op && h.Valid(), "unplaced_serves_a_record_of_the_op", "op %d held %d", op, h.Op)
			r.serveRepair(to, h, 0)
			served = op
		}
	}
	vsr.Assert(r.id, served != 0, "recovering_serves_unplaced", vsr.DetailGate)
	r.fx.Send(to, vsr.RepairDone{Last: served}.Message())
}

// serveRepair sends one repaired prepare, restamped into this view.
func (r *Replica) serveRepair(to int, h vsr.Header, commit uint64) {
	h.View = r.view
	r.fx.Send(to, vsr.RepairPrepare{Header: h, Commit: commit}.Message())
	r.fx.Mark(marks.RepairServed)
}

// repairBatchDone ends a request's answer with RepairDone, naming the last op
// served, once no read of it is still in flight; otherwise the last read to
// complete sends it (readFinished).
func (r *Replica) repairBatchDone(batch uint64, to int, last uint64) {
	if r.dur.store == nil || !r.dur.store.reads.Open(batch, last) {
		r.fx.Send(to, vsr.RepairDone{Last: last}.Message())
	}
}

// Reads in a life (issue 38 item 1; docs/storage.md "Reads"): a replica on a
// disk serves a repair from what its disk returns, not from memory. The
// journal in memory stands for the headers and the prepares a replica
// caches: the pipeline's, the evicted ring's, the set-aside bodies, and a
// slot whose own write has not landed (the write's buffer). Every other op
// is read from the prepare zone, and if that copy fails (a latent error, a
// damaged, lost or misplaced record) from the header ring's copy, which
// carries the body too. A copy is served only once it is the very entry the
// journal names (op and checksum); if neither copy is, the body leaves the
// journal, its header stays, the vote holds it unsure, and repair fetches it
// from a peer (read repair). Nothing acks or nacks on a copy it could not
// read: the ack left when the write was asked for, and an unreadable op is
// voted unsure, never absent.

// readsFromDisk reports whether h, about to be served, must be read from the
// disk: only a replica on a disk, only the live journal's entry, and not one
// memory holds anyway (the primary's pipeline, a write still in flight).
func (r *Replica) readsFromDisk(h vsr.Header) bool {
	s := r.dur.store
	if s == nil {
		return false
	}
	if j, live := r.log.journal.Get(h.Op); !live || j.Checksum != h.Checksum {
		return false
	}
	if r.pipeline.Find(h.Op, h.Checksum) != nil {
		return false
	}
	return s.slotFence[r.slotOf(h.Op)] <= r.dur.fencesLanded
}

func (r *Replica) slotOf(op uint64) int { return int(op % uint64(r.opts.JournalSlots)) }

// askRead asks the harness for one copy of h's slot, for batch.
func (r *Replica) askRead(batch uint64, z vsr.StorageZone, h vsr.Header) {
	r.askReadTagged(r.dur.store.reads.Add(batch, z, h.Op, h.Checksum), z, h)
}

// askReadTagged asks the harness for the copy of h's slot in zone z, as the
// read of tag.
func (r *Replica) askReadTagged(tag uint64, z vsr.StorageZone, h vsr.Header) {
	r.fx.Out.Reads = append(r.fx.Out.Reads, vsr.Read{Zone: z, Slot: r.slotOf(h.Op), Op: h.Op, Checksum: h.Checksum, Tag: tag})
}

// readCompleted serves, retries or gives up the entry read p asked for.
func (r *Replica) readCompleted(p room.PendingRead, rd *vsr.ReadDone) {
	s := r.dur.store
	cur, held := r.log.journal.Get(p.Op)
	if !held || cur.Checksum != p.Checksum || r.status == vsr.StatusRecovering {
		// The log moved on while the read was in flight: the entry asked
		// for is no longer this replica's to serve.
		r.readFinished(p, false)
		return
	}
	slot := r.slotOf(p.Op)
	read, whole := r.readEntry(rd)
	trusts := r.opts.Bugs.RepairServesUnread
	verified := whole && read.Op == p.Op && (trusts || read.Checksum == p.Checksum)
	switch {
	case s.slotFence[slot] > r.dur.fencesLanded && !trusts:
		// A write of the slot went out after the read: the bytes read
		// may predate it, and the write's buffer holds the entry.
		r.serveRead(p, cur)
	case verified:
		r.serveRead(p, read)
	case p.Zone == vsr.ZonePrepares:
		// The header ring's copy carries the body too: asked before this
		// read ends, so the batch stays open for it.
		r.fx.Mark(marks.StorageReadRetried)
		r.askRead(p.Batch, vsr.ZoneHeaders, cur)
		r.readFinished(p, false)
	default:
		r.readLost(cur)
		r.readFinished(p, false)
	}
}

// serveRead serves the copy read for p and ends p.
func (r *Replica) serveRead(p room.PendingRead, h vsr.Header) {
	vsr.Assert(r.id, h.Op == p.Op, "read_serves_the_op_asked", "op %d asked %d", h.Op, p.Op)
	r.serveRepair(r.dur.store.reads.Peer(p.Batch), h, r.wm.commitMin)
	r.readFinished(p, true)
}

// readFinished ends read p of its batch; the batch's last read sends its
// RepairDone.
func (r *Replica) readFinished(p room.PendingRead, served bool) {
	if peer, last, done := r.dur.store.reads.Finish(p, served); done {
		r.fx.Send(peer, vsr.RepairDone{Last: last}.Message())
	}
}

// readLost gives up the body of h, which neither copy on the disk holds
// whole: it leaves the journal (the oracle learns of it from the disk's
// record, as at a restart), and above the commit point its header stays
// adopted, the vote holds it unsure, and repair fetches it from a peer. A
// body at or below the commit point is applied: the replica serves a range
// evicted for it from then on (lostToDisk), as after a restart.
func (r *Replica) readLost(h vsr.Header) {
	r.fx.Mark(marks.StorageReadLost)
	r.log.journal.Forget(h.Op)
	r.log.journalGen++
	if st := r.dur.store; h.Op > st.landing.commit {
		// The slot keeps the op's copies on the disk while the ring holds
		// nothing there: the op written next over it pushes it off with no
		// Moved or Gone to tell noteDisplacing, and waits for a superblock
		// all the same (D126; swarm seed 2644367461 from 0x9d9d0000: op 132
		// written over a read-lost op 4 a superblock did not yet cover).
		st.displacing[h.Op%uint64(len(st.displacing))] = true
	}
	if h.Op <= r.wm.commitMin {
		return
	}
	if _, ok := r.log.adopted.Get(h.Op); !ok && r.log.adopted.Holds(h.Op) {
		r.log.adopted.Put(h)
		_, adopted := r.log.adopted.Get(h.Op)
		vsr.Assert(r.id, adopted, "read_lost_header_adopted", "op %d", h.Op)
	}
	at, found := slices.BinarySearch(r.log.unsureOps, h.Op)
	if !found {
		r.log.unsureOps = slices.Insert(r.log.unsureOps, at, h.Op)
	}
	// Ops given up earlier that committed since without a repair (a
	// transfer) are repaired by nothing: the list keeps only what repair
	// may still bring back.
	s := &r.dur.store.reads
	s.Lost = slices.DeleteFunc(s.Lost, func(o uint64) bool { return o <= r.wm.commitMin })
	s.Lost = append(s.Lost, h.Op)
	r.log.repairArmedTo = max(r.log.repairArmedTo, h.Op)
	_, unsure := slices.BinarySearch(r.log.unsureOps, h.Op)
	vsr.Assert(r.id, unsure, "read_lost_held_unsure", "op %d", h.Op)
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
	a, aside := r.log.aside.Get(op)
	switch {
	case !aside:
		return true
	case op == r.wm.commitMin:
		return a.Checksum != r.wm.commitSum
	}
	// A set-aside body the op it applied above names otherwise is another
	// view's op left at that slot, not the one it applied: served, it was
	// refused forever while the asker, short of that op, never heard the
	// range was gone (swarm seed 4208930036 from 0xfade0000).
	next, ok := r.log.journal.GetForRepair(op + 1)
	return ok && next.Parent != a.Checksum
}

// firstRetained is the lowest op this replica could serve by repair.
func (r *Replica) firstRetained() uint64 {
	first := r.log.journal.FirstRetained()
	if r.log.journalFloor > first {
		first = r.log.journalFloor
	}
	return first
}

// The scrubber (issue 38 item 5; docs/storage.md "The scrubber"): a replica
// on a disk reads its journal back in the background, one op's two copies
// every Timeouts.ScrubTicks, so damage a write left (a damaged sector, a
// write lost or misplaced) is found before a repair or a restart needs the
// copy. It reads the ops above the durable checkpoint, the ones a restart
// reads back, in op order, round and round. A copy that does not hold the
// entry the journal names (op and checksum) is written again, both copies,
// from the one that does; if neither does, the body goes to read repair as
// a repair read's does (readLost): the vote holds it unsure and a peer's
// copy comes back. It reads only in Normal status, one op at a time, and
// uses the reads a repair uses, so the oracle learns of a copy it could not
// find from the disk's record as it does for those.

// scrubLook bounds the ops one turn passes over looking for one to read.
const scrubLook = 64

// onScrubTimeout is the scrubber's turn: it asks for the prepare copy of the
// next op it may read, unless its last read is still in flight.
func (r *Replica) onScrubTimeout() {
	r.timers.Scrub.Reset(nil)
	s := r.dur.store
	vsr.Assert(r.id, s != nil, "scrub_on_a_disk", vsr.DetailStorage)
	if r.status != vsr.StatusNormal || s.scrub.Tag != 0 {
		return
	}
	h, ok := r.scrubNext()
	if !ok {
		return
	}
	s.scrub.PrepareBad = false
	r.askScrubRead(vsr.ZonePrepares, h)
}

// scrubNext finds the next op above the durable checkpoint whose copies the
// scrubber may read: held live with its body, its write landed, not one
// memory serves anyway (readsFromDisk).
func (r *Replica) scrubNext() (vsr.Header, bool) {
	sc := &r.dur.store.scrub
	lo, hi := r.dur.sb.Checkpoint.Op+1, r.wm.sequencer
	for range scrubLook {
		if hi < lo {
			return vsr.Header{}, false
		}
		if sc.Next < lo || sc.Next > hi {
			sc.Next = lo
		}
		op := sc.Next
		sc.Next++
		if h, ok := r.log.journal.Get(op); ok && r.readsFromDisk(h) {
			return h, true
		}
	}
	return vsr.Header{}, false
}

func (r *Replica) askScrubRead(z vsr.StorageZone, h vsr.Header) {
	s := r.dur.store
	s.scrub.Tag = s.reads.AddScrub(z, h.Op, h.Checksum)
	r.askReadTagged(s.scrub.Tag, z, h)
}

// scrubCompleted weighs a copy the scrubber read: after the prepare copy it
// reads the header ring's; after both, it writes the slot again if one copy
// failed, or gives the body to read repair if both did.
func (r *Replica) scrubCompleted(p room.PendingRead, rd *vsr.ReadDone) {
	s := r.dur.store
	vsr.Assert(r.id, s.scrub.Tag == p.Tag, "scrub_one_read_at_a_time", "tag %d in flight %d", p.Tag, s.scrub.Tag)
	s.scrub.Tag = 0
	cur, held := r.log.journal.Get(p.Op)
	slot := r.slotOf(p.Op)
	if !held || cur.Checksum != p.Checksum || r.status != vsr.StatusNormal || s.slotFence[slot] > r.dur.fencesLanded {
		// The log or the slot moved on while the read was in flight (a
		// write of the slot went out after it): the next turn reads on.
		return
	}
	read, whole := r.readEntry(rd)
	ok := whole && read.Op == p.Op && read.Checksum == p.Checksum
	if p.Zone == vsr.ZonePrepares {
		s.scrub.PrepareBad = !ok
		r.askScrubRead(vsr.ZoneHeaders, cur)
		return
	}
	switch {
	case ok && !s.scrub.PrepareBad:
	case ok || !s.scrub.PrepareBad:
		// One copy holds the very entry the journal names (its checksum
		// covers the body): the other is written again from it.
		bad := vsr.ZonePrepares
		if !ok {
			bad = vsr.ZoneHeaders
		}
		r.fx.Mark(marks.StorageScrubRewritten)
		r.rewriteCopy(bad, slot, cur)
	default:
		r.fx.Mark(marks.StorageScrubLost)
		r.readLost(cur)
	}
}

// rewriteCopy writes the copy of slot in zone z again with h, the entry the
// slot's other copy still holds whole (the scrubber's mend). Only the copy
// that failed: the whole one was read back clean, and writing it again would
// put fresh bytes, with a fresh chance of a latent error, where a read just
// proved good ones (with both rewritten, a high band of read faults lost a
// mended op's two copies at once more often than it left it alone). Unfenced:
// nothing the replica promised waits for it, since the other copy of h was
// whole already, so neither a message nor a superblock batch waits behind it
// (the harness starts a batch past unfenced journal writes); a read meanwhile
// may still meet the old copy, and reads it as any damaged copy.
func (r *Replica) rewriteCopy(z vsr.StorageZone, slot int, h vsr.Header) {
	vsr.Assert(r.id, r.log.journal.Has(h.Op, h.Checksum), "rewrite_the_journal_entry", "op %d", h.Op)
	if z == vsr.ZonePrepares {
		r.write(vsr.ZonePrepares, slot, vsr.PrepareRecordBytes, false, func(b []byte) { encodeEntry(b, recordPrepare, slot, &h) })
		return
	}
	r.write(vsr.ZoneHeaders, slot, vsr.HeaderRecordBytes, false, func(b []byte) { encodeEntry(b, recordHeader, slot, &h) })
}
