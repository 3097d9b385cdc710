package replica

import (
	"encoding/binary"

	"vsrsim/marks"
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

// recordRead is one copy of a slot, decoded.
type recordRead struct {
	kind   uint64 // recordNone, recordBlank, recordHeader or recordPrepare
	header vsr.Header
	bad    bool // unreadable: an I/O error, a checksum that fails, a foreign slot
	// foreign: the record's checksum holds but it names another slot: a
	// misdirected write.
	foreign bool
}

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
}

// readRecord decodes one copy of slot. ignoreSlot is the checksum-ignores-slot
// defect: a record naming another slot still passes.
func readRecord(buf []byte, ioErr bool, z vsr.StorageZone, slot, slots int, ignoreSlot bool) recordRead {
	vsr.Assert(vsr.Unowned, slot >= 0 && slot < slots, "read_record_slot_in_range", "slot %d of %d", uint64(slot), uint64(slots))
	vsr.Assert(vsr.Unowned, z == vsr.ZonePrepares || z == vsr.ZoneHeaders, "read_record_journal_zone", "zone %d", uint64(z))
	switch {
	case ioErr:
		return recordRead{bad: true}
	case isZero(buf):
		return recordRead{kind: recordNone}
	}
	w, ok := decodeWords(buf, headerRecordWords+3)
	if !ok {
		return readBlank(buf, slot, ignoreSlot)
	}
	h := wordsHeader(&w)
	h.Body = vsr.Operation{Kind: vsr.OpKind(w.w[10]), Key: uint32(w.w[11]), Value: w.w[12]}
	wantKind := recordHeader
	if z == vsr.ZonePrepares {
		wantKind = recordPrepare
	}
	rec := recordRead{kind: w.w[0], header: h}
	own := w.w[1] == uint64(slot) && h.Op%uint64(slots) == uint64(slot)
	rec.foreign = !own && !ignoreSlot
	rec.bad = rec.kind != wantKind || h.Op == 0 || rec.foreign || !h.Valid()
	return rec
}

// readBlank decodes a blank record, shorter than an entry's; anything else
// that fails its checksum is bad.
func readBlank(buf []byte, slot int, ignoreSlot bool) recordRead {
	b, ok := decodeWords(buf, 3)
	if !ok || (b.w[0] != recordBlank && b.w[0] != recordAside) {
		return recordRead{bad: true}
	}
	foreign := b.w[1] != uint64(slot) && !ignoreSlot
	return recordRead{kind: b.w[0], bad: foreign, foreign: foreign}
}

func isZero(b []byte) bool {
	for ; len(b) >= 8; b = b[8:] {
		if binary.LittleEndian.Uint64(b) != 0 {
			return false
		}
	}
	for _, c := range b {
		if c != 0 {
			return false
		}
	}
	return true
}

// classify weighs the two copies of a slot. A slot's prepare lands before its
// header copy (the harness orders them), so after a crash the header copy may
// lag the prepare but never lead it: a prepare that verifies is the slot's
// content, unless the header copy names a newer op, which only a write the
// disk lost or misplaced can leave. A blank prepare beside a header copy of an
// op is a removal in flight or a lost write of the op: faulty either way.
func classify(hc, pc recordRead, trustPrepare bool) slotRead {
	if trustPrepare && !pc.bad {
		return trustedPrepare(hc, pc)
	}
	headerOp := !hc.bad && hc.kind == recordHeader
	faulty := slotRead{class: slotFaulty}
	if headerOp {
		faulty.header, faulty.hasHeader = hc.header, true
	}
	switch {
	case pc.bad:
		return faulty
	case pc.kind == recordPrepare && headerOp && newer(&hc.header, &pc.header):
		return faulty
	case pc.kind == recordPrepare:
		// readRecord let it pass: a real op whose header verifies.
		vsr.Assert(vsr.Unowned, pc.header.Op > 0 && pc.header.Valid(), "classify_intact_verified", "op %d", pc.header.Op)
		s := slotRead{class: slotIntact, entry: pc.header, has: true}
		if hc.bad {
			s.kept = true
		}
		return s
	case hc.bad:
		// A header copy is written only once its prepare landed: an
		// unreadable one says an op may have been acked here, whatever
		// the prepare slot holds (a misdirected write leaves it empty).
		return faulty
	case headerOp, pc.kind == recordAside, hc.kind == recordAside:
		// A set-aside op may have been acked and committed with the
		// commit point that says so still in flight: not empty.
		return faulty
	}
	return slotRead{class: slotEmpty}
}

// trustedPrepare is the checksum-ignores-slot defect's reading of a slot: a
// prepare whose bytes verify is the slot's content, and is taken for the op
// the slot holds by the header ring, so a record that landed here from
// another slot (or an older one the slot kept) stands in for that op.
func trustedPrepare(hc, pc recordRead) slotRead {
	if pc.kind != recordPrepare {
		return slotRead{class: slotEmpty}
	}
	e := pc.header
	if !hc.bad && hc.kind == recordHeader && hc.header.Op != e.Op {
		// The slot's place in the log (op and parent) from the header
		// ring, the rest, checksum and body, from the record that landed.
		e.Op, e.Parent = hc.header.Op, hc.header.Parent
	}
	vsr.Assert(vsr.Unowned, e.Op > 0, "trusted_prepare_real_op", vsr.DetailHolds)
	return slotRead{class: slotIntact, entry: e, has: true}
}

// newer reports whether header copy h names a newer entry than prepare p.
func newer(h, p *vsr.Header) bool {
	// Two copies that read back whole: each names a real op.
	vsr.Assert(vsr.Unowned, h.Op > 0 && p.Op > 0, "newer_compares_real_ops", "header %d prepare %d", h.Op, p.Op)
	if h.Op != p.Op {
		return h.Op > p.Op
	}
	return h.Checksum != p.Checksum && h.View > p.View
}

// readSuperblock returns the newest copy whose checksum holds and which names
// its own copy index, and its sequence number; ok is false if no copy holds.
func readSuperblock(read vsr.ReadFunc) (sb Superblock, seq uint64, ok bool, bad int) {
	blank := 0
	for c := 0; c < vsr.SuperblockCopies; c++ {
		buf, ioErr := read(vsr.ZoneSuperblock, c)
		if ioErr {
			bad++
			continue
		}
		if isZero(buf) {
			blank++
			continue
		}
		w, valid := decodeWords(buf, superblockRecordWords)
		if !valid || w.w[0] != recordSuperblock || w.w[14] != uint64(c) {
			bad++
			continue
		}
		if ok && w.w[1] <= seq {
			continue
		}
		seq, ok = w.w[1], true
		sb = Superblock{View: w.w[2], LogView: w.w[3], CommitMax: w.w[4], Incarnation: w.w[5],
			AckHead: w.w[6], AckView: w.w[7], AckViewHead: w.w[8]}
		sb.Checkpoint = vsr.Snapshot{Op: w.w[9], OpChecksum: w.w[10], StateChecksum: w.w[11]}
		sb.Head, sb.HeadSum = w.w[12], w.w[13]
	}
	if !ok && blank > 0 {
		// A copy never written: every version goes to every copy and the
		// replica acts on one only once all its copies landed, so none
		// ever did. It crashed before its first superblock landed (the
		// others torn) and promised nothing yet.
		return Superblock{Checkpoint: genesisSnapshot()}, 0, true, bad
	}
	// Lost only when no copy was blank and none held: all were bad.
	vsr.Assert(vsr.Unowned, ok || bad == vsr.SuperblockCopies, "superblock_lost_all_bad", "bad %d", uint64(bad))
	return sb, seq, ok, bad
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
		rec.faulty++
		// The lowest op above the checkpoint the slot may hold.
		o := cp + 1 + (uint64(slot)+n-(cp+1)%n)%n
		vsr.Assert(vsr.Unowned, o > cp && o%n == uint64(slot), "faulty_slot_lowest_in_slot", "slot %d op %d", uint64(slot), o)
		if rec.lowest == 0 || o < rec.lowest {
			rec.lowest = o
		}
	}
	return rec
}

// reclassify takes as faulty two readings that verify all the same: an
// intact slot holding an older op than the one the durable ack head says was
// acked there (the acked op's writes were lost or misdirected: swarm seed
// 5043, an aimed misdirect took op 215's prepare, a fault its header copy,
// and the old prepare read back intact), and an empty slot where an op acked
// in the durable log_view stood (a removal for a view this replica never
// made durable: a StartView adopted or a merge made, the blanks landed, the
// superblock naming the new log_view did not; its vote in the old log_view
// must not state it as a nack, swarm seed 1592598570).
func reclassify(s slotRead, slot int, n, cp uint64, sb *Superblock) slotRead {
	switch {
	case s.class == slotIntact && staleSlot(s.entry.Op, slot, n, cp, sb.AckHead):
		return slotRead{class: slotFaulty}
	case s.class == slotEmpty && sb.LogView == sb.AckView && staleSlot(0, slot, n, cp, sb.AckViewHead):
		return slotRead{class: slotFaulty}
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
// back contradicts: the body above it names another parent, or it names
// another parent than the body below. Memory keeps the headers a merge or a
// StartView adopted, while the disk may still hold the older log's bodies the
// adoption was replacing (their truncation never landed before the crash):
// the replica's vote describes the log of its durable log_view, the bodies it
// holds and acked, and a header of another log beside them would break the
// vote's chain (swarm seeds 3642 and 12200: a merge truncated ops 3..8 for a
// view it never started, the crash tore two of the blanks and lost the rest,
// and the restarted vote put the merge's op 6 under the old op 7, and the
// merge's commit point, op 2, under the old op 3).
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
	// The commit anchor alike: a committed op of the view the adoption was
	// for, true in every view, but the old log's body above it chains to
	// another op, and a vote of that log would break at it (seed 3642).
	if a := r.log.commitAnchor; a.Checksum != 0 && a.Op > r.wm.commitMin {
		if above, ok := r.log.journal.Get(a.Op + 1); ok && above.Parent != a.Checksum {
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

// maybeOp is an op a faulty slot may hold, with the slot's reading.
type maybeOp struct {
	op   uint64
	read slotRead
}

// dropStaleBodies takes out of the journal read back every body that an
// adopted header of the durable log_view names otherwise. Adopting a view
// removes a disagreeing body before it keeps the header, so such a body is a
// record whose removal the disk lost (a lost or torn blank): it was never
// this log_view's op, and replayed or voted it would stand for an op another
// body committed (a fuzz search's lost blank: op 6 of view 1 read back under
// log_view 2, replayed over the committed op 6). The header stays, without a
// body, and repair fetches it.
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
