package replica

import (
	"encoding/binary"

	"vsrsim/marks"
	"vsrsim/vsr"
)

// Checkpoints on the disk (issue 38, docs/storage.md "Checkpoints"). A
// replica on a disk writes each checkpoint it takes or installs to its
// checkpoint zone, one record a checkpoint, the two slots in turn, before the
// superblock that names it (a superblock copy waits for every write ahead of
// it, so the superblock never names a record still in flight). A restart
// reads both records back and restores the one the superblock names; a
// record that fails its checksum, names another slot, or whose state does
// not hash to its digest is never restored. If the named record is damaged
// the restart restores the newest intact older one, or the genesis state,
// and the journal, repair and state transfer bring it forward again: the
// ops it applied are committed, so a lower commit point breaks no promise.

// recordCheckpoint is the first word of a checkpoint record.
const recordCheckpoint uint64 = 0x5653520143 // "C"

// checkpointWords is a checkpoint record's words before its checksum: kind,
// slot, op, op checksum, state digest, every key, every client table row.
const checkpointWords = 5 + vsr.KeySpace + 3*vsr.ClientsMax

// encodeCheckpoint lays checkpoint s out as the record of slot.
func encodeCheckpoint(buf []byte, slot int, s *vsr.Snapshot) {
	var w [checkpointWords + 1]uint64
	w[0], w[1], w[2], w[3], w[4] = recordCheckpoint, uint64(slot), s.Op, s.OpChecksum, s.StateChecksum
	k := 5
	for _, v := range s.State.KV {
		w[k] = v
		k++
	}
	for _, c := range s.State.Clients {
		w[k], w[k+1], w[k+2] = c.Request, c.Op, c.Result
		k += 3
	}
	vsr.Assert(vsr.Unowned, k == checkpointWords, "checkpoint_record_layout", "%d words", uint64(k))
	w[k] = recordChecksum(w[:k])
	for i, v := range w {
		binary.LittleEndian.PutUint64(buf[8*i:], v)
	}
}

// decodeCheckpoint reads slot's record back. A record is whole when it read
// without an I/O error, is a checkpoint of this slot, its checksum holds and
// its state hashes to its digest. trust is the checkpoint-trusts-unverified
// defect: any record is taken as it reads.
func decodeCheckpoint(buf []byte, ioErr bool, slot int, trust bool) (vsr.Snapshot, bool) {
	var w [checkpointWords + 1]uint64
	if len(buf) < 8*len(w) {
		return vsr.Snapshot{}, false
	}
	for i := range w {
		w[i] = binary.LittleEndian.Uint64(buf[8*i:])
	}
	whole := !ioErr && w[0] == recordCheckpoint && w[1] == uint64(slot) && w[checkpointWords] == recordChecksum(w[:checkpointWords])
	if !whole && !trust {
		return vsr.Snapshot{}, false
	}
	s := vsr.Snapshot{Op: w[2], OpChecksum: w[3], StateChecksum: w[4]}
	k := 5
	for i := range s.State.KV {
		s.State.KV[i] = w[k]
		k++
	}
	for i := range s.State.Clients {
		s.State.Clients[i] = vsr.ClientEntry{Request: w[k], Op: w[k+1], Result: w[k+2]}
		k += 3
	}
	if !trust && s.State.Checksum() != s.StateChecksum {
		return vsr.Snapshot{}, false
	}
	return s, true
}

// DiskCheckpoint decodes a checkpoint record as the disk holds it at slot:
// the op and op checksum of the checkpoint it holds, if it is whole. The
// harness reads what landed through it, never through a replica.
func DiskCheckpoint(slot int, buf []byte, ioErr bool) (op, checksum uint64, ok bool) {
	s, ok := decodeCheckpoint(buf, ioErr, slot, false)
	return s.Op, s.OpChecksum, ok
}

// checkpointOnDisk is what a restart made of the checkpoint zone.
type checkpointOnDisk struct {
	snap vsr.Snapshot
	slot int        // the record's slot (-1: the genesis state, on no slot)
	mark marks.Mark // StorageCheckpointOlder or StorageCheckpointLost; marks.Count: the named one
}

// readCheckpoint finds the checkpoint the superblock names (named) among the
// zone's records: that one if it is whole, else the newest whole record
// below it, else the genesis state.
func readCheckpoint(read vsr.ReadFunc, named *vsr.Snapshot, trust bool) checkpointOnDisk {
	got := checkpointOnDisk{snap: genesisSnapshot(), slot: -1, mark: marks.Count}
	if named.Op == 0 {
		return got
	}
	got.mark = marks.StorageCheckpointLost
	for slot := 0; slot < vsr.CheckpointSlots; slot++ {
		buf, ioErr := read(vsr.ZoneCheckpoint, slot)
		s, ok := decodeCheckpoint(buf, ioErr, slot, trust)
		switch {
		case !ok:
		case s.Op == named.Op && s.OpChecksum == named.OpChecksum && (trust || s.StateChecksum == named.StateChecksum):
			return checkpointOnDisk{snap: s, slot: slot, mark: marks.Count}
		case s.Op < named.Op && s.Op > got.snap.Op:
			got = checkpointOnDisk{snap: s, slot: slot, mark: marks.StorageCheckpointOlder}
		}
	}
	vsr.Assert(vsr.Unowned, got.snap.Op < named.Op, "checkpoint_fallback_older", "op %d named %d", got.snap.Op, named.Op)
	return got
}

// checkpointSlot is the slot of the checkpoint at op: checkpoints fall every
// `every` ops, and each goes to the slot after its predecessor's. Every
// replica writes a checkpoint to the same slot, so the fault atlas, which
// lets a slot be faulty on a replication quorum less one, leaves every
// checkpoint whole on the others.
func checkpointSlot(op, every uint64) int { return int(op / every % vsr.CheckpointSlots) }

// writeCheckpoint writes the superblock's checkpoint to its slot, if it is
// not the one last written: ahead of the superblock that names it.
func (r *Replica) writeCheckpoint(fenced bool) {
	s, cp := r.dur.store, &r.dur.sb.Checkpoint
	if cp.Op == 0 || (cp.Op == s.cpOp && cp.OpChecksum == s.cpSum) {
		return
	}
	slot := checkpointSlot(cp.Op, CheckpointEvery(r.opts.CheckpointInterval, r.opts.JournalSlots))
	r.write(vsr.ZoneCheckpoint, slot, vsr.CheckpointRecordBytes, fenced, func(b []byte) { encodeCheckpoint(b, slot, cp) })
	s.cpOp, s.cpSum = cp.Op, cp.OpChecksum
	vsr.Assert(r.id, cp.StateChecksum == cp.State.Checksum(), "checkpoint_written_whole", "op %d", cp.Op)
}

// restoreCheckpoint takes up the checkpoint the restart read back (readDisk),
// as the one written last.
func (r *Replica) restoreCheckpoint(got checkpointOnDisk) {
	if got.mark != marks.Count {
		r.dur.storageMarks = append(r.dur.storageMarks, got.mark)
	}
	r.dur.sb.Checkpoint = got.snap
	s := r.dur.store
	s.cpOp, s.cpSum = got.snap.Op, got.snap.OpChecksum
	vsr.Assert(r.id, r.dur.sb.Checkpoint.StateChecksum == r.dur.sb.Checkpoint.State.Checksum(), "recover_checkpoint_state",
		"checkpoint op %d", r.dur.sb.Checkpoint.Op)
}

// readSuperblock returns the newest copy whose checksum holds and which names
// its own copy index, and its sequence number; ok is false if no copy holds.
func readSuperblock(read vsr.ReadFunc) (sb Superblock, seq uint64, ok bool, bad int) {
	blank := 0
	for c := 0; c < vsr.SuperblockCopies; c++ {
		buf, ioErr := read(vsr.ZoneSuperblock, c)
		if !ioErr && isZero(buf) {
			blank++
			continue
		}
		got, gotSeq, whole := decodeSuperblock(c, buf, ioErr)
		if !whole {
			bad++
			continue
		}
		if !ok || gotSeq > seq {
			sb, seq, ok = got, gotSeq, true
		}
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
	// A copy whose checksum holds is one this replica wrote, and it never
	// writes a log_view above its view.
	vsr.Assert(vsr.Unowned, !ok || sb.LogView <= sb.View, "superblock_read_log_view_le_view", "log_view %d view %d", sb.LogView, sb.View)
	return sb, seq, ok, bad
}

// superblockWords lays out the superblock fields a copy holds, behind its
// sequence number, and the copy's index last (superblockCopy): every copy of
// a version shares the words before it, so their checksum is folded once.
// The checkpoint's state is not among them: the harness keeps it beside the
// disk, never faulty (docs/storage.md).
func superblockWords(w *recWords, seq uint64, sb *Superblock) {
	kind := recordSuperblock
	switch {
	case sb.Amnesiac:
		kind = recordSuperblockAmnesiac
	case sb.Rejoined && sb.Merged:
		kind = recordSuperblockRejoinedMerged
	case sb.Rejoined:
		kind = recordSuperblockRejoined
	case sb.Merged:
		kind = recordSuperblockMerged
	}
	w.add(kind, seq, sb.View, sb.LogView, sb.CommitMax, sb.Incarnation,
		sb.AckHead, sb.AckView, sb.AckViewHead, sb.Checkpoint.Op, sb.Checkpoint.OpChecksum, sb.Checkpoint.StateChecksum,
		sb.Head, sb.HeadSum)
	vsr.Assert(vsr.Unowned, w.n == superblockRecordWords-1, "superblock_record_layout", "%d words", uint64(w.n)) // as readSuperblock decodes
}

// superblockCopy completes the shared words w of a version, whose checksum
// folded so far is prefix, as copy copyIdx: the index, then the checksum.
func superblockCopy(w recWords, prefix uint64, copyIdx int) recWords {
	w.add(uint64(copyIdx))
	w.add(vsr.ChecksumMix(prefix^uint64(copyIdx)) | 1)
	return w
}

const superblockRecordWords = 15

// sbFields are the superblock fields a copy stores: what decides whether a
// new copy is due.
type sbFields struct {
	view, logView, commitMax, incarnation, ackHead, ackView, ackViewHead uint64
	cpOp, cpSum, cpState, head, headSum                                  uint64
	amnesiac, merged, rejoined                                           bool
}

func fieldsOf(sb *Superblock) sbFields {
	return sbFields{sb.View, sb.LogView, sb.CommitMax, sb.Incarnation, sb.AckHead, sb.AckView, sb.AckViewHead,
		sb.Checkpoint.Op, sb.Checkpoint.OpChecksum, sb.Checkpoint.StateChecksum, sb.Head, sb.HeadSum, sb.Amnesiac, sb.Merged, sb.Rejoined}
}

// decodeSuperblock reads copy c of the superblock: the fields and sequence
// number it holds, if it read without an I/O error, its checksum holds and it
// names its own copy index.
func decodeSuperblock(c int, buf []byte, ioErr bool) (sb Superblock, seq uint64, ok bool) {
	if ioErr {
		return sb, 0, false
	}
	w, valid := decodeWords(buf, superblockRecordWords)
	kind := w.w[0]
	if !valid || !superblockKind(kind) || w.w[14] != uint64(c) {
		return sb, 0, false
	}
	sb = Superblock{View: w.w[2], LogView: w.w[3], CommitMax: w.w[4], Incarnation: w.w[5],
		AckHead: w.w[6], AckView: w.w[7], AckViewHead: w.w[8]}
	sb.Checkpoint = vsr.Snapshot{Op: w.w[9], OpChecksum: w.w[10], StateChecksum: w.w[11]}
	sb.Head, sb.HeadSum = w.w[12], w.w[13]
	sb.Amnesiac = kind == recordSuperblockAmnesiac
	sb.Merged = kind == recordSuperblockMerged || kind == recordSuperblockRejoinedMerged
	sb.Rejoined = kind == recordSuperblockRejoined || kind == recordSuperblockRejoinedMerged
	return sb, w.w[1], true
}

// superblockKind reports whether kind is one a superblock copy is written
// with.
func superblockKind(kind uint64) bool {
	switch kind {
	case recordSuperblock, recordSuperblockAmnesiac, recordSuperblockMerged, recordSuperblockRejoined, recordSuperblockRejoinedMerged:
		return true
	}
	return false
}

// SuperblockOnDisk is what a whole superblock copy says, read from outside:
// its version's sequence number, the log head, the checkpoint it names,
// whether it was written while amnesiac (a restart from it takes up none of
// the journal), and the promises it makes durable (the view, the log_view and
// the acks a restart keeps: the protocol model's promise_durable), and the
// commit point a restart comes back at (its displace_after_superblock).
type SuperblockOnDisk struct {
	Seq, Head                     uint64
	CheckpointOp, CheckpointSum   uint64
	Amnesiac                      bool
	View, LogView                 uint64
	AckHead, AckView, AckViewHead uint64
	CommitMax                     uint64
}

// DiskSuperblock decodes superblock copy c as a disk holds it, if it is
// whole. It is the on-disk format read from outside, for the harness's
// record of what a restart can read back; a replica's recovery reads its
// copies itself.
func DiskSuperblock(c int, buf []byte, ioErr bool) (SuperblockOnDisk, bool) {
	sb, seq, ok := decodeSuperblock(c, buf, ioErr)
	return SuperblockOnDisk{Seq: seq, Head: sb.Head, CheckpointOp: sb.Checkpoint.Op, CheckpointSum: sb.Checkpoint.OpChecksum,
		Amnesiac: sb.Amnesiac, View: sb.View, LogView: sb.LogView,
		AckHead: sb.AckHead, AckView: sb.AckView, AckViewHead: sb.AckViewHead, CommitMax: sb.CommitMax}, ok
}

// recordRead is one copy of a slot, decoded.
type recordRead struct {
	kind   uint64 // recordNone, recordBlank, recordHeader or recordPrepare
	header vsr.Header
	bad    bool // unreadable: an I/O error, a checksum that fails, a foreign slot
	// foreign: the record's checksum holds but it names another slot: a
	// misdirected write.
	foreign bool
	// removedIn: a removal's view, the view the replica wrote it in (D96).
	removedIn uint64
}

// checksumSeed starts a record checksum's fold (checksumFold).
const checksumSeed = 0x243f6a8885a308d3

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
	const n = headerRecordWords + 3
	if len(buf) < 8*(n+1) {
		return readBlank(buf, slot, ignoreSlot)
	}
	var w recWords
	for i := range n + 1 {
		w.w[i] = binary.LittleEndian.Uint64(buf[8*i:])
	}
	h := wordsHeader(&w)
	h.Body = vsr.Operation{Kind: vsr.OpKind(w.w[10]), Key: uint32(w.w[11]), Value: w.w[12]}
	// The record's checksum and its header's, folded side by side: the
	// header's verdict counts only for a record that verifies.
	valid, fold := h.ValidAlong(checksumSeed, w.w[:n])
	if w.w[n] != fold|1 {
		return readBlank(buf, slot, ignoreSlot)
	}
	wantKind := recordHeader
	if z == vsr.ZonePrepares {
		wantKind = recordPrepare
	}
	rec := recordRead{kind: w.w[0], header: h}
	own := w.w[1] == uint64(slot) && h.Op%uint64(slots) == uint64(slot)
	rec.foreign = !own && !ignoreSlot
	rec.bad = rec.kind != wantKind || h.Op == 0 || rec.foreign || !valid
	// A journal slot whose header checksum is zero is empty: an entry read
	// back whole never is one.
	vsr.Assert(vsr.Unowned, rec.bad || h.Checksum != 0, "read_record_entry_sealed", "op %d", h.Op)
	return rec
}

// readBlank decodes a blank record, shorter than an entry's; anything else
// that fails its checksum is bad.
func readBlank(buf []byte, slot int, ignoreSlot bool) recordRead {
	b, ok := decodeWords(buf, 4)
	if !ok || (b.w[0] != recordBlank && b.w[0] != recordAside) {
		return recordRead{bad: true}
	}
	foreign := b.w[1] != uint64(slot) && !ignoreSlot
	return recordRead{kind: b.w[0], bad: foreign, foreign: foreign, removedIn: b.w[3]}
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

// ackBound is the highest op a restart from disk may have acknowledged in
// the log its durable log_view holds: the highest op it acked in that view,
// or one of that log it acked in an older view, at most the ack head (D108;
// since D103 no older ack above it can lie in a later log). An op it acked in an older view above that head
// is not in the log: the view change that made the log cut it (nothing a
// quorum acked is ever cut), and a vote binds only the acks of its own
// log_view (the protocol model's vote_keeps_acks). Holding such an op
// unsure, or recovering a head for it, asks the view change to resolve an
// op of another log that only nacks of the newer log_view could settle
// (swarm seed 81 with the scrubber's draws: a replica back in log_view 13,
// head 1, voted ops 2..8 it acked in view 11 unsure, and no view completed).
//
// A log_view this replica merged as primary-elect and never started holds
// no ack of its own: only the ops it acked in older views, at or below its
// ack head (Superblock.Merged; a restart that held the merged log's
// header-only ops unsure up to its head could neither nack nor fetch them).
// So does a log_view adopted from a StartView in which it acked nothing
// yet (its ack view older, D101): the ack head is the highest op it ever
// acked, durable before any ack leaves, so no op of that log above it was
// acked here (swarm seed 2124484763 from 0x7ea00000: a backup back in
// log_view 7 with ack head 30 held ops 31..78 unsure, and could not nack
// op 78, which only the down primary held, so no view completed).
func ackBound(sb *Superblock) uint64 {
	if sb.Merged {
		vsr.Assert(vsr.Unowned, sb.AckView < sb.LogView, "merged_log_view_unacked", "ack view %d log_view %d", sb.AckView, sb.LogView)
		return min(sb.Head, sb.AckHead)
	}
	if sb.AckView == sb.LogView {
		return max(sb.AckViewHead, min(sb.Head, sb.AckHead))
	}
	return min(sb.Head, sb.AckHead)
}

// entryRecord decodes one journal copy of slot in zone z: the entry it
// holds, and whether it holds one that verifies (a blank, a slot never
// written, a damaged or foreign record hold none).
func entryRecord(z vsr.StorageZone, slot, slots int, buf []byte, ioErr bool) (vsr.Header, bool) {
	rec := readRecord(buf, ioErr, z, slot, slots, false)
	return rec.header, !rec.bad && (rec.kind == recordHeader || rec.kind == recordPrepare)
}

// DiskEntry reads one journal record as a disk holds it in slot of zone z
// (slots: the journal's slot count): the op and header checksum of the
// entry it holds, and whether it holds one that verifies (its record
// checksum, its kind for the zone, its own slot, its header's checksum). A
// blank, a slot never written, a damaged or foreign record hold none. It is
// the on-disk format read from outside, for the harness's record of what
// landed where; a replica's recovery reads its records itself.
func DiskEntry(z vsr.StorageZone, slot, slots int, buf []byte, ioErr bool) (op, checksum uint64, ok bool) {
	h, ok := entryRecord(z, slot, slots, buf, ioErr)
	if !ok {
		return 0, 0, false
	}
	return h.Op, h.Checksum, true
}

// DiskRemoval reads one journal record as a disk holds it in slot of zone z
// (slots: the journal's slot count): whether it is a removal that verifies
// for its slot, and whether that removal is a set-aside (recordAside: the op
// may have been acked and committed) rather than a blank. It is the
// on-disk format read from outside, as DiskEntry is, for the protocol
// model's storage rules.
func DiskRemoval(z vsr.StorageZone, slot, slots int, buf []byte) (removal, aside bool) {
	rec := readRecord(buf, false, z, slot, slots, false)
	if rec.bad {
		return false, false
	}
	return rec.kind == recordBlank || rec.kind == recordAside, rec.kind == recordAside
}
