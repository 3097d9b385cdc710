package replica

import (
	"cmp"
	"encoding/binary"
	"slices"

	"vsrsim/marks"
	"vsrsim/vsr"
)

// Recovery from disk (docs/storage.md "The path that survives each fault"). A restart
// reads every superblock copy and both copies of every journal slot, trusts
// only records whose checksum holds and which name the slot they were read
// from, and classifies each slot. A slot it cannot vouch for (a copy damaged,
// misdirected, torn, or the two copies disagreeing) may have held an op this
// replica acknowledged, so it must not vote that op absent: such a replica
// comes back recovering its head (TigerBeetle's recovering_head), taking no
// part in view changes until a primary hands it a view, and holds every op
// up to its durable ack head unsure, never a nack. Intact entries all stay,
// above a damaged one too: they are copies the cluster may count on.

// checkpointsKept is how many checkpoints a Durable remembers: the superblock
// read back may lag the newest by the write in flight at the crash.
const checkpointsKept = 8

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
	return slotRead{class: slotIntact, entry: e, has: true}
}

// newer reports whether header copy h names a newer entry than prepare p.
func newer(h, p *vsr.Header) bool {
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
		if !valid || w.w[0] != recordSuperblock || w.w[1] != uint64(c) {
			bad++
			continue
		}
		if ok && w.w[2] <= seq {
			continue
		}
		seq, ok = w.w[2], true
		sb = Superblock{View: w.w[3], LogView: w.w[4], CommitMax: w.w[5], Incarnation: w.w[6],
			AckHead: w.w[7], AckView: w.w[8], AckViewHead: w.w[9]}
		sb.Checkpoint = vsr.Snapshot{Op: w.w[10], OpChecksum: w.w[11], StateChecksum: w.w[12]}
		sb.Head, sb.HeadSum = w.w[13], w.w[14]
	}
	if !ok && blank > 0 {
		// A copy never written: every version goes to every copy and the
		// replica acts on one only once all its copies landed, so none
		// ever did. It crashed before its first superblock landed (the
		// others torn) and promised nothing yet.
		return Superblock{Checkpoint: genesisSnapshot()}, 0, true, bad
	}
	return sb, seq, ok, bad
}

// diskRecovery is what a restart read back: the superblock, each journal
// slot's class, and the faulty slots that matter (above the checkpoint).
type diskRecovery struct {
	sb      Superblock
	seq     uint64
	sbOK    bool
	slots   int          // the journal's slot count
	broken  []brokenSlot // the faulty slots, in slot order
	faulty  int
	lowest  uint64 // lowest op a faulty slot may hold above the checkpoint
	highest uint64 // highest op an intact or prepare-verified copy holds
	marks   []marks.Mark
}

// brokenSlot is a faulty slot and what its copies said.
type brokenSlot struct {
	slot int
	read slotRead
}

// recoverFromDisk is Restart for a replica on a disk.
func recoverFromDisk(opts Options, jitter Jitter, d Durable) (*Replica, error) {
	r := newReplica(opts, jitter)
	r.dur.store = newStorageState(opts.JournalSlots)
	r.dur.checkpoints = d.checkpoints
	if r.dur.checkpoints == nil {
		r.dur.checkpoints = new(checkpointHistory)
	}
	r.log.journal = d.journal
	r.log.journal.live.clear()
	r.log.journal.live.store = nil
	r.log.journal.head = 0
	rec := readDisk(opts, d.Read, func(h vsr.Header) { r.log.journal.put(h, true) })
	r.dur.storageMarks = append(r.dur.storageMarks, rec.marks...)
	if !rec.sbOK {
		// No copy of the superblock holds: the disk lost what the replica
		// promised. Beyond what the protocol survives (the atlas never
		// allows it); come back with nothing, as after amnesia, and let the
		// oracle's storage-beyond-f rule judge the run.
		r.dur.sb = Superblock{Checkpoint: genesisSnapshot()}
		r.restoreSuperblock()
		r.log.journal.wipe()
		r.log.journal.live.store = r.dur.store
		r.log.journalFloor = 1
		r.recoverHead(marks.StorageSuperblockLost)
		return r, nil
	}
	r.dur.sb = rec.sb
	r.restoreCheckpoint()
	r.restoreSuperblock()
	r.dur.store.seq, r.dur.store.written = rec.seq, fieldsOf(&rec.sb)
	cut := r.refill(rec)
	r.log.journal.live.store = r.dur.store
	r.restoreWAL(durableHead(d, &rec.sb))
	if cut != 0 {
		r.forgetFrom(cut)
	}
	if rec.faulty > 0 && opts.Bugs.CorruptSlotNacks {
		r.headFromJournal()
	}
	invariant(r.id, r.wm.sequencer >= r.wm.commitMin, "recover_head_above_checkpoint", "head %d checkpoint %d", r.wm.sequencer, r.wm.commitMin)
	invariant(r.id, rec.faulty == 0 || rec.lowest > r.dur.sb.Checkpoint.Op, "recover_faulty_above_checkpoint", "lowest %d", rec.lowest)
	if rec.faulty == 0 || opts.Bugs.TruncateOnCorrupt || opts.Bugs.CorruptSlotNacks {
		r.rejoin()
		return r, nil
	}
	if r.holdFaulty(rec) {
		r.rejoin()
		return r, nil
	}
	r.recoverHead(marks.StorageRecoveringHead)
	return r, nil
}

// holdFaulty sorts the faulty slots by what they may have held. A slot whose
// every possible op lies above the durable ack head held nothing this replica
// acknowledged (a write the crash tore, say): it is empty. The ops a slot may
// hold at or below the ack head are held unsure: the replica votes, but never
// nacks them, and repairs them. It reports false, with nothing held, when such
// an op is the head the replica knows or above it (a vote must describe its
// head, and a faulty slot says nothing of it): its head is then unknown, and
// it must recover it first.
func (r *Replica) holdFaulty(rec diskRecovery) bool {
	n := uint64(rec.slots)
	cp, acked := r.dur.sb.Checkpoint.Op, r.dur.sb.AckHead
	var maybe []maybeOp
	for _, b := range rec.broken {
		first := cp + 1 + (uint64(b.slot)+n-(cp+1)%n)%n
		if first > acked {
			r.dur.storageMarks = append(r.dur.storageMarks, marks.StorageSlotUnacked)
			continue
		}
		for o := first; o <= acked; o += n {
			if _, ok := r.log.journal.get(o); !ok {
				maybe = append(maybe, maybeOp{o, b.read})
			}
		}
	}
	// From the top down: a header copy vouched for vouches in turn for the
	// one below it (its parent), so a run of faulty slots whose header
	// copies hold comes back whole whatever their slot order.
	slices.SortFunc(maybe, func(a, b maybeOp) int { return cmp.Compare(b.op, a.op) })
	var held []uint64
	for _, m := range maybe {
		if r.vouchHeader(m.read, m.op) {
			continue
		}
		r.setAsideCopy(m.read, m.op)
		if _, known := r.headerAt(m.op); m.op > r.knownHead() || (m.op == r.knownHead() && !known) {
			return false
		}
		held = append(held, m.op)
	}
	slices.Sort(held)
	r.log.setUnsure(r.id, held)
	invariant(r.id, len(held) == 0 || held[len(held)-1] <= r.knownHead(), "unsure_ops_below_head", "top %d", uint64(len(held)))
	return true
}

// maybeOp is an op a faulty slot may hold, with the slot's reading.
type maybeOp struct {
	op   uint64
	read slotRead
}

// vouchHeader journals the header ring's copy of faulty slot s as op o when
// the log vouches for it: the op above names it as parent, or it is the head
// the replica held. A header copy alone may be stale (it lands after its
// prepare, which may hold a newer op), and a stale entry in a vote would
// count against the canonical op.
func (r *Replica) vouchHeader(s slotRead, o uint64) bool {
	if !s.hasHeader || s.header.Op != o {
		return false
	}
	next, ok := r.headerAt(o + 1)
	vouched := ok && next.Parent == s.header.Checksum
	if known, ok := r.headerAt(o); ok {
		// The log names o already, without its body (an adopted header,
		// which may be an older view's, kept until repair replaces it): the
		// copy is that entry only if it carries the same checksum and the
		// op above in this replica's own journal, a body it wrote, names it
		// as parent. An adopted header above vouches for nothing here.
		above, held := r.log.journal.get(o + 1)
		vouched = known.Checksum == s.header.Checksum && held && above.Parent == s.header.Checksum
	}
	vouched = vouched || (o == r.wm.sequencer && s.header.Checksum == r.wm.headSum)
	if !vouched {
		return false
	}
	// The header copy carries its body and verifies on its own: a real copy.
	r.log.journal.put(s.header, true)
	r.dur.storageMarks = append(r.dur.storageMarks, marks.StorageHeaderVouched)
	invariant(r.id, r.log.journal.has(o, s.header.Checksum), "vouched_header_journaled", "op %d", o)
	return true
}

// setAsideCopy keeps the header copy of faulty slot s, which carries the
// body, set aside when nothing in the log vouches for it yet and its op o
// lies in the committed range: the op stays unsure (the vote never nacks
// it), and once a view's log names that very entry (reclaim, after a
// StartView or a merge) the body comes back from this replica's own disk
// instead of a peer, which may hold none (issue 38's finding: the only other
// copy outside the core). A copy the log never names stays aside, unused.
func (r *Replica) setAsideCopy(s slotRead, o uint64) {
	if !s.hasHeader || s.header.Op != o || o > r.wm.commitMax || o <= r.wm.commitMin {
		return
	}
	if _, held := r.log.aside.get(o); held {
		return
	}
	r.log.aside.put(s.header)
	r.dur.storageMarks = append(r.dur.storageMarks, marks.StorageHeaderSetAside)
}

// unsureOp reports whether op's slot was faulty at the restart and the op is
// neither applied nor journaled since: the vote must not nack it.
func (r *Replica) unsureOp(o uint64) bool {
	if o <= r.wm.commitMin || len(r.log.unsureOps) == 0 {
		return false
	}
	_, found := slices.BinarySearch(r.log.unsureOps, o)
	return found
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
	cp := rec.sb.Checkpoint.Op
	ignore := opts.Bugs.ChecksumIgnoresSlot
	n := uint64(rec.slots)
	for slot := 0; slot < rec.slots; slot++ {
		hb, herr := read(vsr.ZoneHeaders, slot)
		hc := readRecord(hb, herr, vsr.ZoneHeaders, slot, rec.slots, ignore)
		pb, perr := read(vsr.ZonePrepares, slot)
		pc := readRecord(pb, perr, vsr.ZonePrepares, slot, rec.slots, ignore)
		s := classify(hc, pc, ignore)
		if s.kept {
			rec.marks = append(rec.marks, marks.StoragePrepareKept)
		}
		if s.has {
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
		if o := cp + 1 + (uint64(slot)+n-(cp+1)%n)%n; rec.lowest == 0 || o < rec.lowest {
			rec.lowest = o
		}
	}
	return rec
}

// refill is the journal's side of the restart: truncate-on-corrupt cuts what
// readDisk put back at the first faulty slot above the checkpoint.
func (r *Replica) refill(rec diskRecovery) (cut uint64) {
	if !r.opts.Bugs.TruncateOnCorrupt || rec.faulty == 0 {
		return 0
	}
	cut = rec.lowest
	for op := cut; op <= rec.highest; op++ {
		r.log.journal.remove(op)
	}
	r.log.journal.head = min(r.log.journal.head, cut-1)
	r.dur.storageMarks = append(r.dur.storageMarks, marks.StorageTruncated)
	_, kept := r.log.journal.get(cut)
	invariant(r.id, !kept, "truncate_on_corrupt_cuts", "op %d", cut)
	return cut
}

// headFromJournal is the corrupt-slot-nacks defect's head: a damaged slot at
// the top reads as empty, so the head is the highest op the replica still
// holds a header for.
func (r *Replica) headFromJournal() {
	for r.wm.sequencer > r.wm.commitMin {
		if _, ok := r.headerAt(r.wm.sequencer); ok {
			break
		}
		r.wm.sequencer--
		r.wm.headSum = r.wm.commitSum
		if h, ok := r.headerAt(r.wm.sequencer); ok {
			r.wm.headSum = h.Checksum
		}
	}
	r.log.adoptedHead = min(r.log.adoptedHead, r.wm.sequencer)
	invariant(r.id, r.wm.sequencer >= r.wm.commitMin, "head_from_journal_above_checkpoint", "head %d", r.wm.sequencer)
}

// forgetFrom is the truncate-on-corrupt defect's rejoin: the replica takes the
// cut journal for its whole log, so its head and commit point fall below the
// first damaged op, as a log truncated there would say.
func (r *Replica) forgetFrom(cut uint64) {
	top := max(cut-1, r.wm.commitMin)
	if r.wm.sequencer > top {
		r.wm.sequencer = top
		r.wm.headSum = r.wm.commitSum
		if h, ok := r.log.journal.get(top); ok {
			r.wm.headSum = h.Checksum
		}
	}
	r.log.adoptedHead = min(r.log.adoptedHead, top)
	r.wm.commitMax = max(min(r.wm.commitMax, top), r.wm.commitMin)
	r.dur.sb.CommitMax = r.wm.commitMax
	invariant(r.id, r.wm.sequencer <= top, "forget_from_cut", "head %d cut %d", r.wm.sequencer, cut)
}

// restoreCheckpoint takes the state of the checkpoint the superblock names
// from the history the Durable handed over, kept beside the disk.
func (r *Replica) restoreCheckpoint() {
	if r.dur.sb.Checkpoint.Op == 0 {
		r.dur.sb.Checkpoint = genesisSnapshot()
	}
	for k := range r.dur.checkpoints.kept {
		if cp := &r.dur.checkpoints.kept[k]; cp.Op == r.dur.sb.Checkpoint.Op && cp.OpChecksum == r.dur.sb.Checkpoint.OpChecksum {
			r.dur.sb.Checkpoint = *cp
			break
		}
	}
	invariant(r.id, r.dur.sb.Checkpoint.StateChecksum == r.dur.sb.Checkpoint.State.Checksum(), "recover_checkpoint_state",
		"checkpoint op %d", r.dur.sb.Checkpoint.Op)
}

// recoverHead brings the replica back without trusting its head: Recovering,
// voting nothing until a StartView, every op up to its durable ack head
// unsure (m says why).
func (r *Replica) recoverHead(m marks.Mark) {
	r.log.amnesiac = true
	r.log.unsureTop = max(r.dur.sb.AckHead, r.wm.sequencer)
	r.status = vsr.StatusRecovering
	r.dur.storageMarks = append(r.dur.storageMarks, m)
	r.timers.probe.start(r.jitter)
	r.timers.repair.stop()
	invariant(r.id, r.log.unsureTop >= r.dur.sb.AckHead, "recovering_head_unsure_covers_acks", "unsure %d ack head %d", r.log.unsureTop, r.dur.sb.AckHead)
}
