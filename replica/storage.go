package replica

import (
	"encoding/binary"
	"math/bits"
	"vsrsim/replica/journal"
	"vsrsim/replica/room"
	"vsrsim/vsr"
)

// Storage: with Options.Storage a replica keeps its write-ahead journal and
// superblock on a disk the harness simulates (docs/storage.md). The replica
// does no I/O: each step it asks for writes (Output.Writes), and a restart
// reads back what the disk holds (Durable.Read), checks every record and
// recovers from what it finds. The harness lands the writes after a latency
// and holds every message a replica sends until the writes it asked for
// before it have landed (a fenced write), so nothing leaves before what it
// promises is durable; a superblock write lands only after every earlier
// write, so the superblock never points past data still in flight.

// Record kinds, the first word of every record. Zero is a slot never written.
const (
	recordNone    uint64 = 0
	recordHeader  uint64 = 0x5653520148 // "H"
	recordPrepare uint64 = 0x5653520150 // "P"
	recordBlank   uint64 = 0x5653520142 // "B": a slot whose op was taken out
	// recordAside: a slot whose op was set aside at or below the commit
	// point (discard). Until the superblock that raised the commit point
	// lands, nothing on the disk says the op committed, and the replica may
	// have acked it: a restart holds such a slot faulty, never empty, so its
	// next vote cannot nack the op (the guided search's set-aside finding).
	recordAside      uint64 = 0x5653520141 // "A"
	recordSuperblock uint64 = 0x5653520153 // "S"
	// recordSuperblockAmnesiac: a superblock written while amnesiac after
	// every copy was lost (Superblock.Amnesiac).
	recordSuperblockAmnesiac uint64 = 0x5653520173 // "s"
	// recordSuperblockMerged: a superblock written by a primary-elect that
	// merged its view's log and has not started the view
	// (Superblock.Merged).
	recordSuperblockMerged uint64 = 0x565352016d // "m"
	// recordSuperblockRejoined: a superblock written since a replica that
	// lost every copy adopted a view (Superblock.Rejoined), merged or not.
	recordSuperblockRejoined       uint64 = 0x5653520172 // "r"
	recordSuperblockRejoinedMerged uint64 = 0x5653520152 // "R"
)

// recordWords is the most words a record holds, checksum included.
const recordWords = 16

type recWords struct {
	w [recordWords]uint64
	n int
}

func (w *recWords) add(v ...uint64) { w.n += copy(w.w[w.n:], v) }

// seal appends the record checksum: it covers every word, the kind and the
// slot among them, so a record read back from another slot than its own, or
// torn, or damaged, fails it.
func (w *recWords) seal() { w.add(recordChecksum(w.w[:w.n])) }

func recordChecksum(ws []uint64) uint64 {
	return checksumFold(ws) | 1 // never zero: a zeroed slot never verifies
}

// checksumFold folds words into a record checksum before its final bit.
func checksumFold(ws []uint64) uint64 {
	x := uint64(checksumSeed)
	for _, v := range ws {
		x = vsr.ChecksumMix(x ^ v)
	}
	return x
}

func (w *recWords) put(buf []byte) {
	for i := 0; i < w.n; i++ {
		binary.LittleEndian.PutUint64(buf[8*i:], w.w[i])
	}
}

// decodeWords reads n words and verifies the trailing checksum word.
func decodeWords(buf []byte, n int) (recWords, bool) {
	var w recWords
	if len(buf) < 8*(n+1) {
		return w, false
	}
	for i := 0; i <= n; i++ {
		w.w[i] = binary.LittleEndian.Uint64(buf[8*i:])
	}
	w.n = n
	return w, w.w[n] == recordChecksum(w.w[:n])
}

// headerRecWords lays a header out without its body.
func headerRecWords(w *recWords, kind uint64, slot int, h *vsr.Header) {
	w.add(kind, uint64(slot), h.Op, h.View, h.Parent, h.Checksum, h.Commit, h.Client, h.Request, h.Timestamp)
}

const headerRecordWords = 10

// encodeEntry writes a copy of an entry: the prepare's (recordPrepare) or the
// header ring's (recordHeader). Both carry the body (three words, and the
// header's checksum covers them), so either copy verifies on its own.
func encodeEntry(buf []byte, kind uint64, slot int, h *vsr.Header) {
	var w recWords
	headerRecWords(&w, kind, slot, h)
	w.add(uint64(h.Body.Kind), uint64(h.Body.Key), h.Body.Value)
	w.seal()
	// The layout readRecord decodes: the header, its body, the checksum
	// (add drops what does not fit: any other count lost a word).
	vsr.Assert(vsr.Unowned, w.n == headerRecordWords+3+1, "entry_record_layout", "%d words", uint64(w.n))
	w.put(buf)
}

func encodeBlank(buf []byte, blank, kind uint64, slot int, view uint64) {
	var w recWords
	w.add(blank, uint64(slot), kind, view)
	w.seal()
	w.put(buf)
}

func wordsHeader(w *recWords) vsr.Header {
	return vsr.Header{Op: w.w[2], View: w.w[3], Parent: w.w[4], Checksum: w.w[5], Commit: w.w[6],
		Client: w.w[7], Request: w.w[8], Timestamp: w.w[9]}
}

// storageState is what a replica on a disk tracks of its writes.
type storageState struct {
	// dirty lists the journal slots changed since the last flush.
	dirty journal.DirtySlots
	// aside says which slots lost their op to a set-aside (recordAside).
	aside []bool
	// written is the superblock as last written; seq its sequence number.
	written sbFields
	seq     uint64
	// cpOp, cpSum: the checkpoint last written to the checkpoint zone
	// (checkpoint_disk.go).
	cpOp, cpSum uint64
	// slotFence is, per journal slot, the fence of the last write asked
	// of its prepare copy: until that many fenced writes have landed, the
	// disk may still hold an older copy (repair_serve.go).
	slotFence []uint64
	// reads are the repair reads in flight (repair_serve.go).
	reads room.Reads
	// scrub is the scrubber's place and its read in flight (repair_serve.go).
	scrub room.Scrub
	// blanks: the slots whose blanks wait for the step's superblock.
	blanks []int
	// displacing: slots whose new op pushed an op above the landed commit
	// point (landing) off the ring; held, they wait for a superblock (D110).
	displacing []bool
	held       []int
	landing    sbLanding
}

// openStore gives a replica on a disk, new or restarted, its storage state, and
// arms its scrubber (repair_serve.go) unless off: every ScrubTicks, no jitter.
func (r *Replica) openStore() {
	r.dur.store = newStorageState(r.opts.JournalSlots)
	if r.opts.Timeouts.ScrubTicks > 0 {
		r.timers.Scrub.Start(nil)
	}
}

func newStorageState(slots int) *storageState {
	return &storageState{dirty: journal.NewDirtySlots(slots), aside: make([]bool, slots), slotFence: make([]uint64, slots),
		displacing: make([]bool, slots), landing: sbLanding{pending: make([]sbAsk, 0, 16)}}
}

// flushStorage asks for the writes this step made due: each changed journal
// slot (both copies), then, ordered after them, the superblock if it changed,
// and last the blanks of ops taken out and the ops written over ops the
// superblock covers first, which land only after it (the harness holds them).
func (r *Replica) flushStorage() {
	s := r.dur.store
	// The head goes with every superblock: a restart states no head its promises passed.
	r.dur.sb.Head, r.dur.sb.HeadSum = r.wm.sequencer, r.wm.headSum
	sbDue := fieldsOf(&r.dur.sb) != s.written
	blanks, held := s.blanks[:0], s.held[:0]
	for _, i := range s.dirty.List {
		s.dirty.Marked[i] = false
		slot := int(i)
		displacing := s.displacing[slot]
		s.displacing[slot] = false
		if r.log.journal.Live.Slots[slot].Checksum != 0 {
			s.aside[slot] = false
			if displacing {
				held = append(held, slot)
				continue
			}
			r.writeEntry(slot, false)
			continue
		}
		if sbDue && !s.aside[slot] {
			blanks = append(blanks, slot)
			continue
		}
		r.writeBlank(slot, false)
	}
	s.dirty.List = s.dirty.List[:0]
	sbDue = sbDue || len(held) > 0 // one asked before may be in flight (D110)
	if sbDue {
		// The commit point rides on a superblock written for another
		// reason, and never asks for one itself (D58): a restart that knows
		// less committed learns the rest from its peers, as a journal in
		// memory always has. Where a lagging commit point would cost a
		// vote (a body leaving the ring, a set-aside), the journal raised it
		// above already. Capped at the head: a vote whose commit point lies
		// above its head names a head no vote may describe.
		r.dur.sb.CommitMax = max(r.dur.sb.CommitMax, min(r.wm.commitMax, r.wm.sequencer))
		// Past what the lost superblock's life may have acked, durably:
		// a restart needs no unsure bound for it any more (D92).
		r.dur.sb.Rejoined = r.dur.sb.Rejoined && r.dur.sb.CommitMax < r.log.unsureTop
		r.writeSuperblockCopies()
	}
	// An op taken out as the superblock changes (a view change's truncation)
	// keeps its slot until the new superblock lands (D71): a crash before
	// finds the old log_view's ops, never blanks it must hold unsure.
	for _, slot := range blanks {
		r.writeBlank(slot, true)
	}
	// An op written over one no landed superblock covers waits too: landing
	// first, a crash left the pushed op neither in its slot nor under a
	// durable commit point, and the restart's vote nacked it (D110).
	for _, slot := range held {
		r.writeEntry(slot, true)
	}
	s.blanks, s.held = blanks, held
	// The ops this step took into the pipeline stand on every write it
	// asked for: the harness counts the same (sim, reportOwnAck).
	for k := range r.pipeline {
		if e := &r.pipeline[k]; e.Fence == fencePending {
			e.Fence = r.dur.fencesAsked
		}
		vsr.Assert(r.id, r.pipeline[k].Fence <= r.dur.fencesAsked, "own_ack_fence_asked", "fence %d asked %d", r.pipeline[k].Fence, r.dur.fencesAsked)
	}
	vsr.Assert(r.id, len(s.dirty.List) == 0, "storage_flushed", vsr.DetailStorage)
	vsr.Assert(r.id, fieldsOf(&r.dur.sb) == s.written, "storage_flushed", vsr.DetailStorage)
}

// writeEntry asks for slot's entry, the prepare copy first (the harness lands
// the header copy after it, so recovery may trust a prepare that verifies);
// afterSuperblock holds both until the superblock asked before them lands.
func (r *Replica) writeEntry(slot int, afterSuperblock bool) {
	s := r.dur.store
	h := r.log.journal.Live.Slots[slot]
	vsr.Assert(r.id, h.Checksum != 0 && h.Op%uint64(len(s.displacing)) == uint64(slot), "entry_written_at_its_slot", "slot %d op %d", uint64(slot), h.Op)
	r.write(vsr.ZonePrepares, slot, vsr.PrepareRecordBytes, true, func(b []byte) { encodeEntry(b, recordPrepare, slot, &h) })
	r.write(vsr.ZoneHeaders, slot, vsr.HeaderRecordBytes, true, func(b []byte) { encodeEntry(b, recordHeader, slot, &h) })
	w := r.fx.Out.Writes
	w[len(w)-2].AfterSuperblock, w[len(w)-1].AfterSuperblock = afterSuperblock, afterSuperblock
	s.slotFence[slot] = r.dur.fencesAsked
}

// writeBlank asks for the removal of slot's op, in both copies: a set-aside
// blank where the op was set aside, else a blank; afterSuperblock holds it
// until the superblock asked before it lands.
func (r *Replica) writeBlank(slot int, afterSuperblock bool) {
	s := r.dur.store
	blank := recordBlank
	if s.aside[slot] {
		blank = recordAside
	}
	r.write(vsr.ZonePrepares, slot, vsr.PrepareRecordBytes, true, func(b []byte) { encodeBlank(b, blank, recordPrepare, slot, r.view) })
	r.write(vsr.ZoneHeaders, slot, vsr.HeaderRecordBytes, true, func(b []byte) { encodeBlank(b, blank, recordHeader, slot, r.view) })
	w := r.fx.Out.Writes
	w[len(w)-2].AfterSuperblock, w[len(w)-1].AfterSuperblock = afterSuperblock, afterSuperblock
	s.slotFence[slot] = r.dur.fencesAsked
	vsr.Assert(r.id, r.log.journal.Live.Slots[slot].Checksum == 0, "blank_over_empty_slot", "slot %d", uint64(slot))
}

// writeSuperblockCopies writes every copy of the superblock under the next
// sequence number. With superblock-trusts-torn the writes are not fenced:
// the replica acts on the new superblock before it has landed.
func (r *Replica) writeSuperblockCopies() {
	s := r.dur.store
	s.seq++
	s.written = fieldsOf(&r.dur.sb)
	fenced := !r.opts.Bugs.SuperblockTrustsTorn
	r.writeCheckpoint(fenced)
	var shared recWords
	superblockWords(&shared, s.seq, &r.dur.sb)
	prefix := checksumFold(shared.w[:shared.n])
	for c := 0; c < vsr.SuperblockCopies; c++ {
		r.write(vsr.ZoneSuperblock, c, vsr.SuperblockRecordBytes, fenced, func(b []byte) {
			w := superblockCopy(shared, prefix, c)
			w.put(b)
		})
	}
	s.landing.asked(r.dur.fencesAsked, r.dur.sb.CommitMax, fenced)
	vsr.Assert(r.id, s.written == fieldsOf(&r.dur.sb), "superblock_written", vsr.DetailStorage)
}

// zeroRecord is what a write's bytes start from.
var zeroRecord [vsr.CheckpointRecordBytes]byte

// write appends a write of size bytes, filled by fill, to the step's output.
func (r *Replica) write(z vsr.StorageZone, slot, size int, fenced bool, fill func([]byte)) {
	o := r.fx.Out
	off := len(o.WriteData)
	o.WriteData = append(o.WriteData, zeroRecord[:size]...)
	fill(o.WriteData[off : off+size])
	o.Writes = append(o.Writes, vsr.Write{Zone: z, Slot: slot, Off: off, Len: size, Fenced: fenced})
	if fenced {
		r.dur.fencesAsked++
	}
}

// Landed tells the replica that the first n fenced writes it asked for since
// it started have landed. A primary counts its own ack of an op only once
// the op's write has landed, as a backup's ack leaves only then: a
// replication quorum of one (a cluster of one replica) would otherwise
// commit an op a crash can still take from the disk, and the replica would
// commit another op in its place. The next tick or step commits what waited.
func (r *Replica) Landed(n uint64) {
	if r.dur.fenceLanded(r.id, n) && r.dur.ownAckWaits {
		r.due |= dueCommitWalk
	}
}

// fencePending is the fence of an own ack made in this step, before the
// step's writes are asked for: it stands on every fenced write asked for by
// the step's end, the op's among them (flushStorage sets it; the harness
// counts the same for the oracle, sim.settleOwnAcks).
const fencePending = ^uint64(0)

// ownFence is the fence a primary's own ack made now stands on.
func (r *Replica) ownFence() uint64 {
	if r.dur.store == nil {
		return 0
	}
	return fencePending
}

// quorumAcks counts the acks of e that count toward its quorum: the
// primary's own only once its write has landed (Landed). Without a disk
// there is nothing to wait for.
func (r *Replica) quorumAcks(e *room.PipelineEntry) int {
	n := bits.OnesCount16(e.Acks)
	if r.dur.store != nil && e.Fence > r.dur.fencesLanded && e.Acks&(1<<uint(r.id)) != 0 && !r.opts.Bugs.OwnAckBeforeWriteLands {
		n--
	}
	return n
}

// readEntry decodes the journal copy a read in the replica's life returned
// (repair_serve.go): the entry it holds, and whether it verifies as one.
func (r *Replica) readEntry(rd *vsr.ReadDone) (vsr.Header, bool) {
	return entryRecord(rd.Zone, rd.Slot, r.opts.JournalSlots, rd.Data, rd.IOErr)
}

// classify weighs the two copies of a slot. A slot's prepare lands before its
// header copy (the harness orders them), so after a crash the header copy may
// lag the prepare but never lead it: a prepare that verifies is the slot's
// content, unless the header copy names a newer op, or a removal, which only
// a write the disk lost or misplaced can leave (or a header write the crash
// caught, over an older blank: faulty too, and above the ack head empty). A
// blank prepare beside a header copy of an op is a removal in flight or a
// lost write of the op: faulty either way.
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
	case pc.kind == recordPrepare && headerSaysLater(hc, pc):
		if !headerOp {
			// A removal beside a prepare that verifies: the disk lost
			// the removal's prepare write, or the op's header copy write
			// over an older removal (D93; swarm seed 3520034509 from
			// 0xd1ce0000, the head the superblock names). The prepare is
			// the candidate the log must vouch for, as a header copy is.
			faulty.header, faulty.hasHeader = pc.header, true
		}
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
	return slotRead{class: slotEmpty, removedIn: max(hc.removedIn, pc.removedIn)}
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

// headerSaysLater reports whether a readable header copy hc may have been
// written after prepare copy pc, which verifies: it names a newer entry, or
// a removal. A removal in the header copy is either the op's own header
// write never landed over an older blank, or the removal's blank of the
// prepare copy was lost and the op is stale; the disk cannot tell them
// apart, and a lost write must not bring back an op the log took out (an
// aimed lost rewrite, swarm seed 601).
func headerSaysLater(hc, pc recordRead) bool {
	switch {
	case hc.bad:
		return false
	case hc.kind == recordHeader:
		return newer(&hc.header, &pc.header)
	}
	return hc.kind == recordBlank || hc.kind == recordAside
}

// newer reports whether header copy h names a newer entry than prepare p.
func newer(h, p *vsr.Header) bool {
	// Two copies that read back whole: each names a real op.
	vsr.Assert(vsr.Unowned, h.Op > 0 && p.Op > 0, "newer_compares_real_ops", "header %d prepare %d", h.Op, p.Op)
	if h.Op != p.Op {
		return h.Op > p.Op
	}
	// The same op, another entry: the header copy is the later write
	// unless the prepare's view is newer (the header copy's own write then
	// never landed over an older entry). In one view either may be older:
	// faulty, never the prepare taken on trust.
	return h.Checksum != p.Checksum && h.View >= p.View
}
