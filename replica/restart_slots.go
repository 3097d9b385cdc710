package replica

import (
	"slices"

	"vsrsim/marks"
	"vsrsim/replica/journal"
	"vsrsim/vsr"
)

// Reading the disk back for a restart (restart.go): each copy of a
// journal slot decoded and checked, the two copies of a slot judged together
// (slot classification), the superblock copies and every slot read.

// slotClass is what recovery makes of one journal slot.
type slotClass uint8

const (
	slotEmpty  slotClass = iota // never written, or its op taken out
	slotIntact                  // both copies agree on an op with its body
	slotFaulty                  // a copy unreadable, foreign, or the copies disagree
)

// slotRead is both copies of a slot and what recovery made of them.
type slotRead struct {
	class slotClass
	entry vsr.Header // the op, for slotIntact
	has   bool       // entry is a prepare whose own checksum holds
	kept  bool       // the header copy was unreadable; the prepare stood alone
	// header is a faulty slot's header copy, where it holds (hasHeader):
	// a candidate for the op's header, if something else vouches for it.
	header    vsr.Header
	hasHeader bool
	aside     vsr.Header // an intact entry a chain check took out: set aside only
	removedIn uint64     // an empty slot's removal: the view it was written in
}

// readDisk reads and classifies every superblock copy and journal slot,
// handing each intact entry to put as it goes (a restart reads the whole
// journal: keeping every slot's reading would cost more than the journal).
func readDisk(opts Options, read vsr.ReadFunc, put func(vsr.Header)) diskRecovery {
	rec := diskRecovery{slots: opts.JournalSlots}
	var bad int
	rec.sb, rec.seq, rec.sbOK, bad = readSuperblock(read)
	if bad > 0 {
		rec.marks = append(rec.marks, marks.StorageSuperblockCopyBad)
	}
	rec.cp = checkpointOnDisk{snap: genesisSnapshot(), slot: -1, mark: marks.Count}
	if rec.sbOK {
		rec.cp = readCheckpoint(read, &rec.sb.Checkpoint, opts.Bugs.CheckpointTrustsUnverified)
	}
	// The slots are judged above the checkpoint the restart restores: if
	// the disk took the one the superblock names, the ops above the older
	// one are this replica's to vouch for again.
	cp := rec.cp.snap.Op
	ignore := opts.Bugs.ChecksumIgnoresSlot
	n := uint64(rec.slots)
	for slot := 0; slot < rec.slots; slot++ {
		hb, herr := read(vsr.ZoneHeaders, slot)
		hc := readRecord(hb, herr, vsr.ZoneHeaders, slot, rec.slots, ignore)
		pb, perr := read(vsr.ZonePrepares, slot)
		pc := readRecord(pb, perr, vsr.ZonePrepares, slot, rec.slots, ignore)
		s := classify(hc, pc, ignore)
		if !ignore {
			s = reclassify(s, slot, n, cp, &rec.sb)
		}
		if s.kept {
			rec.marks = append(rec.marks, marks.StoragePrepareKept)
		}
		if s.has {
			// An entry is read back only from its own slot (but for the
			// checksum-ignores-slot defect).
			vsr.Assert(vsr.Unowned, s.entry.Op%n == uint64(slot) || ignore, "intact_entry_in_its_slot", "op %d slot %d", s.entry.Op, uint64(slot))
			rec.highest = max(rec.highest, s.entry.Op)
			put(s.entry)
		}
		if s.class != slotFaulty {
			continue
		}
		rec.marks = append(rec.marks, marks.StorageSlotFaulty)
		if hc.foreign || pc.foreign {
			rec.marks = append(rec.marks, marks.StorageSlotForeign)
		}
		rec.broken = append(rec.broken, brokenSlot{slot: slot, read: s})
		rec.noteFaulty(slot)
	}
	return rec
}

// checkChains judges the journal a restart read back against the durable
// head and the checkpoint (D57), in any order (each only takes entries out),
// unless skip: the marks to count, and the lowest op the head's chain
// vouched for (setAsideUnvouched).
func checkChains(rec *diskRecovery, j *journal.Journal, v *viewHeaders, skip bool) (ms []marks.Mark, vouched uint64) {
	if skip {
		return nil, 0
	}
	if dropAboveHead(rec, j) {
		ms = append(ms, marks.StorageSlotUnacked)
	}
	_, above := j.Get(rec.sb.Head + 1)
	vsr.Assert(vsr.Unowned, !above, "no_entry_above_durable_head", "head %d", rec.sb.Head)
	offHead, vouched := breakOffChain(rec, j, v)
	offCheckpoint := dropOffCheckpointChain(rec, j)
	if breakStaleNeighbours(rec, j) || offHead || offCheckpoint {
		ms = append(ms, marks.StorageSlotFaulty, marks.StorageOffChain)
	}
	vsr.Assert(vsr.Unowned, vouched <= max(rec.sb.Head, rec.cp.snap.Op)+1, "vouched_below_durable_head", "vouched %d head %d", vouched, rec.sb.Head)
	return ms, vouched
}

// dropAboveHead takes out of the journal every entry above the durable head:
// nothing promised it, and the head only falls by a truncation, whose blanks
// a lost write may have kept from the disk (swarm seed 1592593978 from
// 0x5eed0000: an older log's op 18, its blank lost, read back above the head;
// the merge cut the committed op 18). Nothing is written. It reports whether
// it took any.
func dropAboveHead(rec *diskRecovery, j *journal.Journal) (dropped bool) {
	for o := rec.sb.Head + 1; o <= rec.highest; o++ {
		if _, ok := j.Remove(o); ok {
			dropped = true
		}
	}
	return dropped
}

// adoptedAt is the adopted header at op o of ring a, which may be nil.
func adoptedAt(a *journal.Ring, o uint64) (vsr.Header, bool) {
	if a == nil {
		return vsr.Header{}, false
	}
	return a.Get(o)
}

// dropOffCheckpointChain takes out of the journal each entry at or below the
// checkpoint the restart restores that the checkpoint's own chain (walked
// down from its op and checksum by each entry's parent) does not pass
// through, from the walk's first gap or mismatch down. Such ops are applied,
// kept only to serve repairs, and a stale one served with this replica's
// commit point would pass for the committed op (CI's swarm seed
// 15438653248911938935: a stale op 24 below the checkpoint). Reports any.
func dropOffCheckpointChain(rec *diskRecovery, j *journal.Journal) (dropped bool) {
	expect := rec.cp.snap.OpChecksum
	o := rec.cp.snap.Op
	for ; o > 0; o-- {
		h, ok := j.Get(o)
		if !ok || h.Checksum != expect {
			break
		}
		expect = h.Parent
	}
	// The journal's slots hold at most one ring of ops below the checkpoint.
	for ; o > 0 && rec.cp.snap.Op-o < uint64(rec.slots); o-- {
		if _, ok := j.Remove(o); ok {
			dropped = true
		}
	}
	return dropped
}

// breakStaleNeighbours takes as faulty, of two journaled neighbours that do
// not chain (the op above names another parent), the one written in the
// older view: a log is written in order within a view, so the older one is
// another log's entry that outlived its rewrite or its removal (a lost
// write). The disk's head may be faulty, so breakOffChain cannot reach them
// (swarm seed 2474: a stale op 10 below a faulty head, voted under op 11).
// It reports whether it broke any.
func breakStaleNeighbours(rec *diskRecovery, j *journal.Journal) (broke bool) {
	n := uint64(rec.slots)
	for o := rec.cp.snap.Op + 1; o < rec.highest; o++ {
		lo, okLo := j.Get(o)
		hi, okHi := j.Get(o + 1)
		if !okLo || !okHi || hi.Parent == lo.Checksum {
			continue
		}
		stale := o
		if hi.View < lo.View {
			stale = o + 1
		}
		h, _ := j.Remove(stale)
		_, still := j.Get(stale)
		vsr.Assert(vsr.Unowned, !still, "off_chain_entry_removed", "op %d", stale)
		rec.addBroken(int(stale%n), h)
		broke = true
	}
	return broke
}

// addBroken takes a slot a chain check emptied of entry h as faulty.
func (rec *diskRecovery) addBroken(slot int, h vsr.Header) {
	at, found := slices.BinarySearchFunc(rec.broken, slot, func(b brokenSlot, s int) int { return b.slot - s })
	vsr.Assert(vsr.Unowned, !found, "broken_slot_once", "slot %d", uint64(slot))
	rec.broken = slices.Insert(rec.broken, at, brokenSlot{slot: slot, read: slotRead{class: slotFaulty, aside: h}})
	rec.noteFaulty(slot)
}

// brokenAt is the reading of faulty slot slot, if it is one.
func (rec *diskRecovery) brokenAt(slot int) (slotRead, bool) {
	k, found := slices.BinarySearchFunc(rec.broken, slot, func(b brokenSlot, s int) int { return b.slot - s })
	if !found {
		return slotRead{}, false
	}
	return rec.broken[k].read, true
}

// noteFaulty counts a faulty slot and the lowest op one may hold.
func (rec *diskRecovery) noteFaulty(slot int) {
	rec.faulty++
	cp, n := rec.cp.snap.Op, uint64(rec.slots)
	o := cp + 1 + (uint64(slot)+n-(cp+1)%n)%n
	vsr.Assert(vsr.Unowned, o > cp && o%n == uint64(slot), "faulty_slot_lowest_in_slot", "slot %d op %d", uint64(slot), o)
	if rec.lowest == 0 || o < rec.lowest {
		rec.lowest = o
	}
}

// breakOffChain takes as faulty each journaled entry the durable head's
// chain does not pass through: walking down from the superblock's head by
// each entry's parent, an entry whose checksum is not the one the op above
// names is an older entry of that op a lost write left (swarm seed 2758). A
// faulty slot whose header copy, or an adopted header kept beside the disk,
// is the entry named carries the walk past it; the walk stops at the first
// op it cannot read otherwise (a gap), at a broken entry, each with what lies
// below (faultyBelow), and at the checkpoint. It reports whether it took an
// entry, and the lowest op the chain vouched for (setAsideUnvouched).
func breakOffChain(rec *diskRecovery, j *journal.Journal, v *viewHeaders) (broke bool, vouched uint64) {
	var adopted, sameLog *journal.Ring // sameLog: adopted in the durable log_view
	if v != nil {
		adopted = &v.adopted
		if v.logView == rec.sb.LogView {
			sameLog = adopted
		}
	}
	expect := rec.sb.HeadSum
	n := uint64(rec.slots)
	o := rec.sb.Head
	for ; o > rec.cp.snap.Op && expect != 0; o-- {
		h, ok := j.Get(o)
		if !ok {
			if b, found := rec.brokenAt(int(o % n)); found && b.hasHeader && b.header.Op == o && b.header.Checksum == expect {
				expect = b.header.Parent
				continue
			}
			// An adopted header kept beside the disk of the checksum named
			// (CI's swarm seed 4154: an adoption's head the crash caught,
			// above an older op 50 whose rewrite the disk lost).
			if a, ok := adoptedAt(adopted, o); ok && a.Checksum == expect {
				expect = a.Parent
				continue
			}
			return faultyBelow(rec, j, o, rec.sb.LogView, sameLog, true), o + 1
		}
		if h.Checksum == expect {
			expect = h.Parent
			continue
		}
		j.Remove(o)
		rec.addBroken(int(o%n), h)
		faultyBelow(rec, j, o, ^uint64(0), nil, false)
		_, still := j.Get(o)
		vsr.Assert(vsr.Unowned, !still, "off_chain_entry_removed", "op %d", o)
		return true, o + 1
	}
	return false, o + 1
}

// faultyBelow takes as faulty each entry below op o, where the head's walk
// stopped, above the commit point, not the header the durable log_view
// adopted there (vouch), stamped with a view before olderThan or, with
// islands, chained with neither neighbour: an older log's entry a lost or
// never-written removal may have left (D74, below a break: every entry; D75,
// below a gap: an older stamp, unless a later view's message restamped it,
// D67; D124, below a gap: an island, whatever its stamp, swarm seed
// 4205913765: a view 5 op 8 a repair of view 6 restamped, between gaps).
func faultyBelow(rec *diskRecovery, j *journal.Journal, o, olderThan uint64, vouch *journal.Ring, islands bool) (took bool) {
	for b := o - 1; b > max(rec.sb.CommitMax, rec.cp.snap.Op); b-- {
		h, ok := j.Get(b)
		a, named := adoptedAt(vouch, b)
		if !ok || (named && a.Checksum == h.Checksum) || (h.View >= olderThan && !(islands && island(rec, j, h))) {
			continue
		}
		j.Remove(b)
		rec.addBroken(int(b%uint64(rec.slots)), h)
		took = true
		vsr.Assert(vsr.Unowned, !j.Has(b, h.Checksum), "faulty_below_taken_out", "op %d", b)
	}
	return took
}

// island reports whether journaled entry h chains with neither neighbour:
// the op above as the walk left it, or below the op, a faulty slot's header
// copy of the log_view's stamp (D125, swarm seed 1010566139 from
// 0x3c3c0000: op 24 named faulty op 23's copy), or the checkpoint.
func island(rec *diskRecovery, j *journal.Journal, h vsr.Header) bool {
	above, okA := j.Get(h.Op + 1)
	below, okB := neighbourBelow(rec, j, h.Op-1)
	vsr.Assert(vsr.Unowned, (!okA || above.Op == h.Op+1) && (!okB || below.Op == h.Op-1), "island_neighbours_adjacent", "op %d", h.Op)
	if h.Op-1 == rec.cp.snap.Op {
		below, okB = vsr.Header{Checksum: rec.cp.snap.OpChecksum}, true
	}
	return !(okA && above.Parent == h.Checksum) && !(okB && h.Parent == below.Checksum)
}

func neighbourBelow(rec *diskRecovery, j *journal.Journal, op uint64) (vsr.Header, bool) {
	if h, ok := j.Get(op); ok {
		return h, true
	}
	b, found := rec.brokenAt(int(op % uint64(rec.slots)))
	return b.header, found && b.hasHeader && b.header.Op == op && b.header.View >= rec.sb.LogView
}

// reclassify takes as faulty two readings that verify all the same: an
// intact slot holding an older op than the one the durable ack head says was
// acked there (its writes lost or misdirected: swarm seed 5043), and an
// empty slot where an op acked in the durable log_view stood (a removal for
// a view never made durable: swarm seed 1592598570), or in the ack view of
// a newer log_view where the removal was written in the ack view or before
// (D96): the acked op's writes were lost over it (swarm seed 3199102820 from
// 0xbead0000), where a removal of a later view is the newer log's own.
func reclassify(s slotRead, slot int, n, cp uint64, sb *Superblock) slotRead {
	switch {
	case s.class == slotIntact && staleSlot(s.entry.Op, slot, n, cp, sb.AckHead):
		return slotRead{class: slotFaulty}
	case s.class == slotEmpty && (sb.LogView == sb.AckView || s.removedIn <= sb.AckView) && staleSlot(0, slot, n, cp, sb.AckViewHead):
		return slotRead{class: slotFaulty}
	case s.class == slotIntact && s.kept && s.entry.Op > cp && s.entry.Op <= sb.AckHead:
		// One copy read, the other unreadable, at or below the ack head:
		// the copy may be an older entry of the op whose rewrite the disk
		// lost (the open finding kept-prepare-stale-after-lost-rewrite.vsr),
		// so it is a candidate the log must vouch for, the op unsure until.
		return slotRead{class: slotFaulty, header: s.entry, hasHeader: true}
	}
	return s
}

// staleSlot reports whether op, read back intact from slot, is older than an
// op the replica acked at that slot: the highest op at or below the durable
// ack head that the slot holds, if it lies above the checkpoint. Every op up
// to the ack head was journaled once (a backup acks only a log it holds up to
// the op), and a later removal writes a blank, never an older op.
func staleSlot(op uint64, slot int, n, checkpoint, acked uint64) bool {
	if acked < uint64(slot) {
		return false
	}
	want := acked - (acked-uint64(slot))%n
	vsr.Assert(vsr.Unowned, want%n == uint64(slot) && want <= acked && acked-want < n, "stale_slot_want_in_slot",
		"want %d slot %d acked %d", want, uint64(slot), acked)
	return want > checkpoint && op < want
}

// durableHead is d with the view's head as the superblock read back names
// it: memory may have held a newer head whose writes never landed, and
// whose acks, held until they did, never left. The adopted head is capped
// alike, so a vote describes the head it states.
func durableHead(d Durable, sb *Superblock) Durable {
	if d.view == nil {
		return d
	}
	v := *d.view
	v.sequencer, v.headSum = sb.Head, sb.HeadSum
	if v.sequencer == 0 {
		v.headSum = 0
	}
	v.adoptedHead = min(v.adoptedHead, sb.Head)
	d.view = &v
	return d
}

// dropAdoptedOffChain takes out each adopted header that the journal read
// back contradicts (the body above names another parent, or it names another
// than the body below): the disk may hold the older log's bodies the
// adoption replaced, their truncation never landed, and the vote would break
// its chain (swarm seeds 3642 and 12200: the merge's op 6 under the old op 7).
func (r *Replica) dropAdoptedOffChain() {
	for o := r.knownHead(); o > r.wm.commitMin; o-- {
		a, ok := r.log.adopted.Get(o)
		if !ok {
			continue
		}
		if _, held := r.log.journal.Get(o); held {
			continue // the body is what the vote states
		}
		above, hasAbove := r.log.journal.Get(o + 1)
		below, hasBelow := r.log.journal.Get(o - 1)
		if (hasAbove && above.Parent != a.Checksum) || (hasBelow && a.Parent != below.Checksum) {
			r.log.adopted.Remove(o)
		}
	}
	// The commit anchor alike, above (seed 3642) and below (an anchor of a
	// log_view the disk never made durable: lost-rewrite-vote-mixes-logs.vsr).
	if a := r.log.commitAnchor; a.Checksum != 0 && a.Op > r.wm.commitMin {
		above, hasAbove := r.log.journal.Get(a.Op + 1)
		below, hasBelow := r.log.journal.Get(a.Op - 1)
		if (hasAbove && above.Parent != a.Checksum) || (hasBelow && a.Parent != below.Checksum) {
			r.log.commitAnchor = vsr.Header{}
		}
	}
	r.checkAdoptedOnChain()
}

// checkAdoptedOnChain asserts what dropAdoptedOffChain leaves: no adopted
// header a journal body above contradicts, and a commit anchor, if any, that
// the body above names.
func (r *Replica) checkAdoptedOnChain() {
	for o := r.knownHead(); o > r.wm.commitMin; o-- {
		a, ok := r.log.adopted.Get(o)
		_, held := r.log.journal.Get(o)
		above, hasAbove := r.log.journal.Get(o + 1)
		vsr.Assert(r.id, !ok || held || !hasAbove || above.Parent == a.Checksum, "adopted_on_journal_chain", "op %d", o)
	}
	a := r.log.commitAnchor
	above, ok := r.log.journal.Get(a.Op + 1)
	vsr.Assert(r.id, a.Checksum == 0 || a.Op <= r.wm.commitMin || !ok || above.Parent == a.Checksum, "commit_anchor_on_journal_chain", "op %d", a.Op)
}

// dropStaleBodies takes out of the journal read back every body that an
// adopted header of the durable log_view names otherwise: adopting removes a
// disagreeing body first, so it is a record whose removal the disk lost,
// never this log_view's op (a fuzz search's lost blank: op 6 of view 1
// replayed over the committed op 6). The header stays; repair fetches it.
func (r *Replica) dropStaleBodies(v *viewHeaders) {
	slots := uint64(r.opts.JournalSlots)
	lo := r.wm.commitMin + 1
	if v.adoptedHead >= slots && v.adoptedHead-slots+1 > lo {
		lo = v.adoptedHead - slots + 1
	}
	for o := lo; o <= v.adoptedHead; o++ {
		a, ok := v.adopted.Get(o)
		if !ok {
			continue
		}
		if j, held := r.log.journal.Get(o); held && j.Checksum != a.Checksum {
			r.log.journal.Remove(o)
			r.dur.storageMarks = append(r.dur.storageMarks, marks.StorageStaleBody)
		}
		_, still := r.log.journal.Get(o)
		vsr.Assert(r.id, !still || r.log.journal.Has(o, a.Checksum), "stale_body_dropped", "op %d", o)
	}
}
