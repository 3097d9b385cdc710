package replica

import (
	"slices"

	"vsrsim/marks"
	"vsrsim/vsr"
)

// The replica's journal mutations. replica/journal is the storage, which knows no
// view or commit point; here each mutation keeps the replica's side in step:
// the generation that tags the cached DoViewChange suffix, the event the
// oracle follows the journal by, and the assertions that the journal now
// holds what the protocol needs (a committed body is never lost unless a
// checkpoint covers it).

// headerAt returns the header this replica knows at op: journaled, adopted, or
// the one it last committed.
func (r *Replica) headerAt(op uint64) (vsr.Header, bool) {
	if h, ok := r.log.journal.Get(op); ok {
		return h, true
	}
	if h, ok := r.log.adopted.Get(op); ok {
		return h, true
	}
	return vsr.Header{}, false
}

// journalPut journals h and bumps the journal generation that tags the cached
// DoViewChange suffix.
func (r *Replica) journalPut(h vsr.Header, displace bool) bool {
	vsr.Assert(r.id, h.Op > r.wm.commitMin, "journal_put_above_commit_min", "op %d commit_min %d", h.Op, r.wm.commitMin)
	vsr.Assert(r.id, h.Op >= r.log.journalFloor, "journal_put_above_floor", "op %d floor %d", h.Op, r.log.journalFloor)
	if !r.log.journal.Put(h, displace) {
		return false
	}
	r.log.journalGen++
	vsr.Assert(r.id, r.log.journal.Has(h.Op, h.Checksum), "journal_put_holds", vsr.DetailHolds)
	r.fx.Emit(vsr.JournalChange{View: h.View, Op: h.Op, Checksum: h.Checksum}.Event(vsr.EvJournalAppend))
	r.leaveAside(h)
	if r.log.journal.Moved.Checksum != 0 || r.log.journal.Gone.Checksum != 0 {
		// A body leaves the live ring (into the evicted ring, or for
		// good): a restart reads the live ring only, and must not come back
		// below the body and vote it absent (the protocol model's
		// vote_keeps_acks: an op applied, displaced by one a slot count
		// above, then needed again by a restart from a superblock whose
		// commit point lagged; fuzz's transfer-crash-nacks-acked-op, where
		// repair journaled ops far above a gap). The commit point that
		// covers it becomes durable first, as for a set-aside body; capped
		// at the head, which a vote must describe.
		r.dur.sb.CommitMax = max(r.dur.sb.CommitMax, min(r.wm.commitMax, r.wm.sequencer))
		r.noteDisplacing(h.Op)
	}
	if g := r.log.journal.Gone; g.Checksum != 0 {
		r.fx.Emit(vsr.JournalChange{View: g.View, Op: g.Op, Checksum: g.Checksum}.Event(vsr.EvJournalEvict))
	}
	return true
}

// noteDisplacing marks op's slot when the op it pushed off the live ring lies
// above the commit point of the last superblock known landed: the raise above
// covers it, and the slot's write waits for a superblock of its step (D110;
// source-600d-1611517016: repair journaled op 143 over op 15 at a replica of
// head 15, the write landed, the superblock did not, and the restart came back
// below op 15 with no copy of it).
func (r *Replica) noteDisplacing(op uint64) {
	s := r.dur.store
	if s == nil {
		return
	}
	d := r.log.journal.Moved
	if d.Checksum == 0 {
		d = r.log.journal.Gone
	}
	if d.Op > s.landing.commit {
		s.displacing[op%uint64(len(s.displacing))] = true
	}
}

// clearAdopted forgets headers adopted in older views: the new view's headers
// replace them, and committed ops below them are verified by their server.
func (r *Replica) clearAdopted() {
	r.log.adopted.Clear()
	r.log.journalGen++ // the suffix is built from adopted headers too
}

// discard takes entry j out of the journal. foreign says the canonical log
// holds another op at j's slot. A committed op's body is never thrown away
// unless a checkpoint covers it: an unproven entry at or below the commit
// point is set aside instead.
func (r *Replica) discard(j vsr.Header, foreign bool) {
	switch {
	case j.Op > r.wm.commitMax:
		r.journalRemove(j.Op)
	case foreign:
		r.log.journal.Remove(j.Op)
		r.log.journalGen++
		r.fx.Emit(vsr.JournalChange{View: r.view, Op: j.Op, Checksum: j.Checksum}.Event(vsr.EvJournalPrune))
	default:
		r.log.journal.Remove(j.Op)
		r.log.journalGen++
		r.log.aside.Put(j)
		// The set-aside body is gone from the journal: the commit point
		// that makes it committed must survive a restart, or the next vote
		// nacks it, on a disk or a write-ahead journal in memory alike (the
		// protocol model's vote_keeps_acks found the second: swarm seeds
		// 869, 1903, 1953). Capped at the head: a vote whose commit point
		// lies above its head names a head no vote may describe.
		r.dur.sb.CommitMax = max(r.dur.sb.CommitMax, min(r.wm.commitMax, r.wm.sequencer))
		if r.dur.store != nil {
			// That superblock may land after the slot's blank: the blank
			// says the op was set aside, not never held (recordAside).
			r.dur.store.aside[j.Op%uint64(r.log.journal.Live.Size)] = true
		}
		r.fx.Emit(vsr.JournalChange{Op: j.Op, Checksum: j.Checksum}.Event(vsr.EvJournalSetAside))
	}
	vsr.Assert(r.id, !r.log.journal.Has(j.Op, j.Checksum), "discard_removes", "op %d", j.Op)
	if !foreign && j.Op <= r.wm.commitMax && j.Op > r.dur.sb.Checkpoint.Op {
		_, kept := r.log.aside.Get(j.Op)
		vsr.Assert(r.id, kept, "committed_body_kept", "op %d discarded at commit_max %d", j.Op, r.wm.commitMax)
	}
}

// dropStaleAside lets go of a set-aside entry of applied op h that is
// another entry than h: a committed op has one, so it is stale for good. Kept,
// it holds the aside's one place for the op after a restart rewinds the
// commit point below it, and the copy of the committed entry that restart
// reads back finds no place (robust-2d1e-757023519.vsr: op 35's whole header
// copy dropped for view 8's entry a restart two lives before set aside).
func (r *Replica) dropStaleAside(h *vsr.Header) {
	if a, ok := r.log.aside.Get(h.Op); ok && a.Checksum != h.Checksum {
		r.log.aside.Remove(h.Op)
	}
	a, ok := r.log.aside.Get(h.Op)
	vsr.Assert(r.id, !ok || a.Checksum == h.Checksum, "applied_op_aside_is_its_own", "op %d", h.Op)
}

// reclaim moves set-aside bodies back into the journal as soon as something
// vouches for them (an adopted header, the commit anchor, or the journaled op
// above naming them as parent), walking down from top. With all set, it looks
// at every op down to commit_min; otherwise it stops at the first op it cannot
// reclaim.
func (r *Replica) reclaim(top uint64, all bool) {
	top = min(top, r.wm.commitMax)
	for op := top; op > r.wm.commitMin; op-- {
		h, ok := r.log.aside.Get(op)
		if ok && !r.log.journal.Has(op, h.Checksum) && r.repairVerdict(h, 0) == repairVerified {
			if j, held := r.log.journal.Get(op); held && j.Checksum != h.Checksum {
				r.journalRemove(op)
			}
			// The body stays set aside until its journal write lands
			// (leaveAside), or for good where the slot holds a newer op.
			if r.journalPut(h, false) {
				continue
			}
		}
		if !all {
			return
		}
	}
}

func (r *Replica) journalRemove(op uint64) {
	if h, ok := r.log.journal.Remove(op); ok {
		r.log.journalGen++
		r.fx.Emit(vsr.JournalChange{View: r.view, Op: h.Op, Checksum: h.Checksum}.Event(vsr.EvJournalTruncate))
	}
	_, still := r.log.journal.Get(op)
	vsr.Assert(r.id, !still, "journal_remove_removes", vsr.DetailHolds)
}

func (r *Replica) truncateJournalAbove(op uint64) {
	r.log.journal.TruncateAbove(op, func(h vsr.Header) {
		r.log.journalGen++
		r.fx.Emit(vsr.JournalChange{View: r.view, Op: h.Op, Checksum: h.Checksum}.Event(vsr.EvJournalTruncate))
	})
	vsr.Assert(r.id, op >= r.wm.commitMin, "truncate_keeps_applied", "op %d commit_min %d", op, r.wm.commitMin)
	vsr.Assert(r.id, r.log.journal.Head <= op, "truncate_lowers_head", "head %d op %d", r.log.journal.Head, op)
}

// pruneUnchained removes journal entries below bottom that do not chain to the
// canonical header at bottom: leftovers of an older view that no suffix
// described. Repair fetches the canonical ones again.
func (r *Replica) pruneUnchained(bottom uint64) {
	var h vsr.Header
	for ; bottom <= r.knownHead() && bottom > r.wm.commitMin; bottom++ {
		var ok bool
		if h, ok = r.headerAt(bottom); ok && h.Parent != 0 {
			break
		}
	}
	if h.Parent == 0 || bottom > r.knownHead() || bottom <= r.wm.commitMin {
		return
	}
	r.pruneChainFrom(bottom-1, h.Parent)
}

// pruneChainFrom walks the journal down from op, where the canonical op has
// checksum expect, to commit_min: entries that chain on are kept. The first
// that does not is an older view's leftover when the chain named another
// checksum there, and goes. Below a break nothing vouches for an entry: above
// the commit point it goes; at or below it, it may be the last copy of a
// committed op, so its body is set aside, out of the journal, until the chain
// vouches for it again (reclaim) or repair fetches the canonical op.
// Without this, an older view's leftover that links to our commit point would
// pass the commit walk's parent check: a fork links to the same parent.
func (r *Replica) pruneChainFrom(top, expect uint64) {
	broken := false
	for op := top; op > r.wm.commitMin && op <= top; op-- {
		j, ok := r.log.journal.Get(op)
		if !broken {
			if ok && j.Checksum == expect {
				expect = j.Parent
				continue
			}
			if !ok {
				if a, ok := r.log.adopted.Get(op); ok && a.Checksum == expect {
					expect = a.Parent
					continue
				}
			}
			broken = true
			if ok && expect != 0 {
				r.discard(j, true) // the chain names another op here
				continue
			}
		}
		if ok {
			r.discard(j, false)
		}
	}
}

// journalInstall makes room for a checkpoint at op: the checkpoint replaces
// every op up to it. Journaled ops above it stay, and repair fetches what is
// missing, except that the source's install replaces the whole journal (the
// stale guard protected what it acked).
func (r *Replica) journalInstall(op uint64) {
	r.log.journal.DropThrough(op)
	if r.log.sourceInstall {
		r.truncateJournalAbove(op)
	}
	r.log.journalFloor = op + 1
	_, below := r.log.journal.Get(op)
	vsr.Assert(r.id, !below, "install_drops_through_checkpoint", vsr.DetailHolds)
}

// reportRestored reports, at a restart's first step, the marks a restart
// from disk owes it and then every entry it took up into its journal, in op
// order (journal_restore): the protocol model judges what a restarted replica
// holds by them, and that the log it took up chains.
func (r *Replica) reportRestored() {
	if r.dur.storageMarks == nil {
		return
	}
	for _, m := range r.dur.storageMarks {
		r.fx.Mark(m)
	}
	r.dur.storageMarks = nil
	r.releaseRestored()
	live := &r.log.journal.Live
	ops := make([]uint64, 0, 64)
	for i := range live.Slots {
		if h := &live.Slots[i]; h.Checksum != 0 {
			ops = append(ops, h.Op)
		}
	}
	slices.Sort(ops)
	for _, op := range ops {
		h, ok := r.log.journal.Get(op)
		vsr.Assert(r.id, ok, "restored_entry_held", "op %d", op)
		r.fx.Emit(vsr.JournalRestored{View: h.View, Op: h.Op, Checksum: h.Checksum, Parent: h.Parent}.Event())
	}
}

// dropStaleParent takes out the entry journaled below a header copy just
// vouched for at o that is not the parent it names: an older entry the
// disk's lost rewrites of both copies left, which chains from below, so no
// walk took it out (D102, swarm seed 4205913765 from 0xfab00000: a stale
// op 8 taken up under the vouched op 9). At or below the ack bound it is
// held unsure: the entry named may be one this replica acked.
func (r *Replica) dropStaleParent(o, acked uint64) []uint64 {
	above, _ := r.log.journal.Get(o)
	if h, ok := r.log.journal.Get(o - 1); !ok || o-1 <= r.wm.commitMin || h.Checksum == above.Parent {
		return nil
	}
	r.log.journal.Remove(o - 1)
	if o-1 > acked {
		return nil
	}
	return []uint64{o - 1}
}

// A set-aside body lives beside the disk and survives a crash; the journal's
// copy of it lives on the disk only once its write has landed. A body that
// goes back from the set-aside ring into the journal (reclaim, a merge taking
// its own set-aside copy, a repair bringing the same entry) therefore keeps
// its set-aside copy until the journal's write of its slot has landed: let go
// at once, a crash that tears that write in flight takes the op with no fault
// to blame (source-2f1d-790513318.vsr: committed op 20 reclaimed at t=5,933,
// its write torn by a crash at 5,934, the last copy of it but one a disk had
// lost). settle lets go of the waiting copies (releaseLanded).

// leaveAside lets go of the set-aside copy of h, just journaled: at once
// without a disk (a memory journal holds it as well as the ring does), else
// once the journal's write of it lands.
func (r *Replica) leaveAside(h vsr.Header) {
	if a, ok := r.log.aside.Get(h.Op); !ok || a.Checksum != h.Checksum {
		return
	}
	if r.dur.store != nil {
		if !r.releasing(h) {
			r.dur.releasing = append(r.dur.releasing, h)
		}
		return
	}
	r.log.aside.Remove(h.Op)
	r.fx.Emit(vsr.JournalChange{Op: h.Op, Checksum: h.Checksum}.Event(vsr.EvJournalAsideRelease))
}

// releaseRestored queues the set-aside copies a restart from a disk read
// back into its journal too: the journal's copy landed before the crash,
// unless the restart rewrites its slot (a vouched header copy), and then it
// waits for that write.
func (r *Replica) releaseRestored() {
	for i := range r.log.aside.Slots {
		h := r.log.aside.Slots[i]
		if h.Checksum != 0 && r.log.journal.Has(h.Op, h.Checksum) && !r.releasing(h) {
			r.dur.releasing = append(r.dur.releasing, h) // a restart's reclaim may have queued it
		}
	}
}

// releasing reports whether h's entry waits to leave the set-aside ring
// already (by checksum: a header's view is the stamp of the message that
// last carried it, D67).
func (r *Replica) releasing(h vsr.Header) bool {
	return slices.ContainsFunc(r.dur.releasing, func(w vsr.Header) bool { return w.Op == h.Op && w.Checksum == h.Checksum })
}

// setAsideUnvouched sets aside each committed entry below vouched, the lowest
// op the durable head's chain reached (breakOffChain): a committed op is
// replayed only from a body something vouches for, and a stale entry shares
// its parent with the committed one, so the chain from below cannot tell
// them apart (swarm seed 1592596372 from 0x5eed0000). Nothing is written: the
// body comes back (reclaim) once the op above, an adopted header or the
// commit anchor names it, or repair brings the committed one.
func (r *Replica) setAsideUnvouched(vouched uint64) {
	top := min(vouched, r.wm.commitMax+1)
	for o := r.wm.commitMin + 1; o < top; o++ {
		h, ok := r.log.journal.Forget(o)
		if !ok {
			continue
		}
		if _, held := r.log.aside.Get(o); !held && r.log.aside.Holds(o) {
			r.log.aside.Put(h)
		}
		r.dur.storageMarks = append(r.dur.storageMarks, marks.StorageUnvouchedSetAside)
	}
	vsr.Assert(r.id, r.wm.sequencer >= r.wm.commitMin, "set_aside_keeps_head", "head %d", r.wm.sequencer)
}
