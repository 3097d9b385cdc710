package replica

import (
	"cmp"
	"slices"

	"vsrsim/marks"
	"vsrsim/vsr"
)

// A restart, read top to bottom (issue 36): Restart picks the path (from a
// disk, from a write-ahead journal kept in memory, or amnesiac); a restart from
// disk reads the superblock copies and every journal slot back (restart_slots.go),
// takes up the superblock's view, commit point and checkpoint in a new
// incarnation, refills the journal from the slots it can vouch for, holds the
// ops it cannot vouch for unsure (a slot it cannot vouch for may have held an op
// it acked: never voted absent; docs/storage.md), and comes back Normal, in a view
// change, or recovering its head (recovering_head); its first step says which.

// Restart returns a replica recovering from its durable state after a crash:
// from a write-ahead journal it rejoins with its durable view, log_view and log
// (rejoin); after amnesia (a memory journal) it comes up Recovering, voting
// and acking nothing until it adopts a view.
func Restart(opts Options, jitter Jitter, d Durable) (*Replica, error) {
	if err := opts.Validate(); err != nil {
		return nil, err
	}
	if opts.Storage && d.Read != nil && d.journal != nil {
		return recoverFromDisk(opts, jitter, d)
	}
	r := newReplica(opts, jitter)
	r.dur.sb = d.Superblock
	r.restoreSuperblock()
	if opts.Durability == DurabilityWAL && d.journal != nil {
		r.log.journal = d.journal
		r.restoreWAL(d)
		r.rejoin()
		return r, nil
	}
	r.log.journal = newJournal(opts)
	r.log.journalFloor = r.dur.sb.Checkpoint.Op + 1
	r.log.amnesiac = true
	r.dur.amnesiaUncounted = true
	r.log.unsureTop = r.dur.sb.AckHead
	r.status = vsr.StatusRecovering
	r.timers.Probe.Start(r.jitter)
	r.timers.Repair.Stop()
	return r, nil
}

// diskRecovery is what a restart read back: the superblock, each journal
// slot's class, and the faulty slots that matter (above the checkpoint).
type diskRecovery struct {
	sb      Superblock
	seq     uint64
	sbOK    bool
	cp      checkpointOnDisk // the checkpoint restored (readCheckpoint)
	slots   int              // the journal's slot count
	broken  []brokenSlot     // the faulty slots, in slot order
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
	r.openStore()
	r.log.journal = d.journal
	r.log.journal.Live.Clear()
	r.log.journal.Live.Store = nil
	r.log.journal.Head = 0
	rec := readDisk(opts, d.Read, func(h vsr.Header) { r.log.journal.Put(h, true) })
	// Never nil, even without a mark: the first step reports what the
	// restart took up (reportRestored).
	r.dur.storageMarks = append(make([]marks.Mark, 0, len(rec.marks)), rec.marks...)
	if !rec.sbOK {
		// No copy of the superblock holds: the disk lost what the replica
		// promised, beyond what the protocol survives (the atlas never allows
		// it): back with nothing, as after amnesia; storage-beyond-f judges.
		r.dur.sb = Superblock{Checkpoint: genesisSnapshot(), Amnesiac: true, Incarnation: amnesiacIncarnation(d.Boot) - 1} // restoreSuperblock adds the 1
		r.restoreSuperblock()
		r.comeBackAmnesiac()
		return r, nil
	}
	r.dur.sb = rec.sb
	r.restoreCheckpoint(rec.cp)
	// Number on above the version read back, amnesiac too (seed 3238089635).
	r.dur.store.seq, r.dur.store.written, r.dur.store.landing.commit = rec.seq, fieldsOf(&rec.sb), rec.sb.CommitMax
	if rec.sb.Amnesiac {
		// A superblock written since the loss, before any view was
		// adopted: the loss stands (Superblock.Amnesiac).
		r.restoreSuperblock()
		r.comeBackAmnesiac()
		return r, nil
	}
	r.restoreSuperblock()
	cut := r.refill(rec)
	// The defects' own readings keep their shapes: no chain checks.
	chainMarks, vouched := checkChains(&rec, r.log.journal, d.view, opts.Bugs.TruncateOnCorrupt || opts.Bugs.ChecksumIgnoresSlot)
	r.dur.storageMarks = append(r.dur.storageMarks, chainMarks...)
	r.log.journal.Live.Store = &r.dur.store.dirty
	r.restoreWAL(durableHead(d, &rec.sb))
	r.setAsideUnvouched(vouched)
	r.dropAdoptedOffChain()
	if cut != 0 {
		r.forgetFrom(cut)
	}
	if rec.faulty > 0 && opts.Bugs.CorruptSlotNacks {
		r.headFromJournal()
	}
	vsr.Assert(r.id, r.wm.sequencer >= r.wm.commitMin, "recover_head_above_checkpoint", "head %d checkpoint %d", r.wm.sequencer, r.wm.commitMin)
	vsr.Assert(r.id, rec.faulty == 0 || rec.lowest > r.dur.sb.Checkpoint.Op, "recover_faulty_above_checkpoint", "lowest %d", rec.lowest)
	if rec.sb.Rejoined { // D92: any op to its head may be one acked before its superblock's loss
		r.log.unsureTop = max(r.log.unsureTop, r.dur.sb.Head)
	}
	if rec.faulty == 0 || opts.Bugs.TruncateOnCorrupt || opts.Bugs.CorruptSlotNacks {
		r.rejoin()
		return r, nil
	}
	held := r.holdFaulty(rec)
	// Vouching may journal a header copy the old log named (the head the
	// superblock held, say) beside adopted headers of the newer one: check
	// the chain again (swarm seed 1592591980).
	r.dropAdoptedOffChain()
	if held {
		r.rejoin()
		return r, nil
	}
	r.recoverHead(marks.StorageRecoveringHead)
	return r, nil
}

// comeBackAmnesiac brings a replica back from a disk whose superblock was
// lost with nothing of its journal (no record of it is placed without the
// superblock naming it; it serves the intact ones, D84): recovering, voting
// nothing until a StartView (recoverHead), its superblocks saying so.
func (r *Replica) comeBackAmnesiac() {
	vsr.Assert(r.id, r.dur.sb.Amnesiac, "amnesiac_superblock_says_so", vsr.DetailStorage)
	r.log.unplaced.Keep(&r.log.journal.Live) // served only (serveUnplaced)
	r.log.journal.Wipe()
	r.log.journal.Live.Store = &r.dur.store.dirty
	r.log.journalFloor = r.dur.sb.Checkpoint.Op + 1
	r.recoverHead(marks.StorageSuperblockLost)
}

// restoreSuperblock takes up the view, the commit point and the checkpoint's
// state from the superblock, in a new incarnation.
func (r *Replica) restoreSuperblock() {
	r.dur.sb.Incarnation++
	r.dur.incarnation = r.dur.sb.Incarnation
	r.view = r.dur.sb.View
	r.logView = r.dur.sb.LogView
	r.wm.commitMax = r.dur.sb.CommitMax
	cp := r.dur.sb.Checkpoint
	r.sm = cp.State
	r.wm.commitMin = cp.Op
	r.wm.commitSum = cp.OpChecksum
	r.wm.sequencer = cp.Op
	r.wm.headSum = cp.OpChecksum
	if r.wm.commitMax < r.wm.commitMin {
		r.wm.commitMax = r.wm.commitMin
	}
}

// restoreWAL takes up a surviving write-ahead journal: the head is the end of
// the chain that links to what the checkpoint applied, and the view's headers
// come back beside it (see rejoin).
func (r *Replica) restoreWAL(d Durable) {
	if v := d.view; v != nil && r.dur.store != nil && v.logView == r.logView {
		r.dropStaleBodies(v)
	}
	for {
		h, ok := r.log.journal.Get(r.wm.sequencer + 1)
		if !ok || h.Parent != r.wm.headSum {
			break
		}
		r.wm.sequencer = h.Op
		r.wm.headSum = h.Checksum
	}
	// Entries above a gap stay: this replica may have acked them, and
	// the view it adopts next decides which of them are canonical.
	v := d.view
	if v == nil {
		return
	}
	r.log.adopted = v.adopted
	r.log.aside = v.aside
	r.log.adoptedHead = v.adoptedHead
	r.log.commitAnchor = v.anchor
	r.log.adoptedLogView = v.logView
	switch {
	case v.sequencer <= r.wm.sequencer:
	case r.opts.Bugs.RestartSkipsAdoptedHead:
		// The defect takes the chained prefix for the whole adopted view:
		// the head above it and every op acked past the gap drop out.
		r.log.adoptedHead = min(r.log.adoptedHead, r.wm.sequencer)
	default:
		// The head of an adopted view whose bodies were still being repaired
		// (after a transfer install below it): reached despite a chain gap.
		r.wm.sequencer = v.sequencer
		r.wm.headSum = v.headSum
	}
}

// refill is the journal's side of the restart: truncate-on-corrupt cuts what
// readDisk put back at the first faulty slot above the checkpoint.
func (r *Replica) refill(rec diskRecovery) (cut uint64) {
	if !r.opts.Bugs.TruncateOnCorrupt || rec.faulty == 0 {
		return 0
	}
	cut = rec.lowest
	for op := cut; op <= rec.highest; op++ {
		r.log.journal.Remove(op)
	}
	r.log.journal.Head = min(r.log.journal.Head, cut-1)
	r.dur.storageMarks = append(r.dur.storageMarks, marks.StorageTruncated)
	_, kept := r.log.journal.Get(cut)
	vsr.Assert(r.id, !kept, "truncate_on_corrupt_cuts", "op %d", cut)
	return cut
}

// headFromJournal is the corrupt-slot-nacks defect's head: a damaged slot at
// the top reads as empty; the head is the highest op it holds a header for.
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
	vsr.Assert(r.id, r.wm.sequencer >= r.wm.commitMin, "head_from_journal_above_checkpoint", "head %d", r.wm.sequencer)
}

// forgetFrom is the truncate-on-corrupt defect's rejoin: the replica takes the
// cut journal for its whole log, so its head and commit point fall below the
// first damaged op, as a log truncated there would say.
func (r *Replica) forgetFrom(cut uint64) {
	top := max(cut-1, r.wm.commitMin)
	if r.wm.sequencer > top {
		r.wm.sequencer = top
		r.wm.headSum = r.wm.commitSum
		if h, ok := r.log.journal.Get(top); ok {
			r.wm.headSum = h.Checksum
		}
	}
	r.log.adoptedHead = min(r.log.adoptedHead, top)
	r.wm.commitMax = max(min(r.wm.commitMax, top), r.wm.commitMin)
	r.dur.sb.CommitMax = r.wm.commitMax
	vsr.Assert(r.id, r.wm.sequencer <= top, "forget_from_cut", "head %d cut %d", r.wm.sequencer, cut)
}

// maybeOp is an op a faulty slot may hold, with the slot's reading; unacked:
// above the ack bound, journaled if vouched for, never held (D108).
type maybeOp struct {
	op      uint64
	read    slotRead
	unacked bool
}

// holdFaulty sorts the faulty slots by what they may have held. A slot whose
// every possible op lies above the ack bound held nothing this replica acked
// (a write the crash tore, say): empty, but a header copy the log vouches for
// is journaled. The ops at or below the bound are held unsure: voted, never
// nacked, repaired. It reports false, with nothing held, when such an op is
// the head it knows or above (a vote must describe its head, and a faulty
// slot says nothing of it): the head is unknown, and must be recovered first.
func (r *Replica) holdFaulty(rec diskRecovery) bool {
	n := uint64(rec.slots)
	cp, acked := r.dur.sb.Checkpoint.Op, ackBound(&r.dur.sb)
	var maybe []maybeOp
	for _, b := range rec.broken {
		first := cp + 1 + (uint64(b.slot)+n-(cp+1)%n)%n
		vsr.Assert(r.id, first > cp && first%n == uint64(b.slot), "faulty_slot_first_op", "slot %d op %d", uint64(b.slot), first)
		if first > acked {
			r.dur.storageMarks = append(r.dur.storageMarks, marks.StorageSlotUnacked)
			maybe = append(maybe, maybeOp{first, b.read, true})
			continue
		}
		for o := first; o <= acked; o += n {
			if _, ok := r.log.journal.Get(o); !ok {
				maybe = append(maybe, maybeOp{o, b.read, false})
			}
		}
	}
	// From the top down: a header copy vouched for vouches in turn for the
	// one below it (its parent), so a run of faulty slots whose header
	// copies hold comes back whole whatever their slot order.
	slices.SortFunc(maybe, func(a, b maybeOp) int { return cmp.Compare(b.op, a.op) })
	var held []uint64
	unknown := false // the head: the copies below it are set aside all the same (D106)
	for _, m := range maybe {
		if !unknown && r.vouchHeader(m.read, m.op) {
			held = append(held, r.dropStaleParent(m.op, acked)...)
			continue
		}
		if r.setAsideCopy(m.read, m.op); m.unacked {
			continue
		}
		_, known := r.headerAt(m.op)
		unknown = unknown || m.op > r.knownHead() || (m.op == r.knownHead() && !known)
		held = append(held, m.op)
	}
	if unknown {
		return false
	}
	slices.Sort(held)
	r.log.setUnsure(r.id, held)
	vsr.Assert(r.id, len(held) == 0 || held[len(held)-1] <= r.knownHead(), "unsure_ops_below_head", "top %d", uint64(len(held)))
	return true
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
		above, held := r.log.journal.Get(o + 1)
		vouched = known.Checksum == s.header.Checksum && held && above.Parent == s.header.Checksum
	}
	vouched = vouched || (o == r.wm.sequencer && s.header.Checksum == r.wm.headSum)
	if !vouched {
		return false
	}
	// The header copy carries its body and verifies on its own: a real copy.
	r.log.journal.Put(s.header, true)
	r.dur.storageMarks = append(r.dur.storageMarks, marks.StorageHeaderVouched)
	vsr.Assert(r.id, r.log.journal.Has(o, s.header.Checksum), "vouched_header_journaled", "op %d", o)
	return true
}

// setAsideCopy keeps a faulty slot's copy of op o set aside when nothing in
// the log vouches for it yet (the op unsure: the vote never nacks it), or the
// head above it is unknown (D106). Its header copy (it carries the body) comes
// back once a view's log names that very entry (reclaim), or a merge awaiting
// it takes it (D90; swarm seed 3405668755 from 0xcafe0000). An entry read
// intact that a chain check took out (s.aside) is set aside at any op too
// (robust-abdication-file-faults-175: intact ops 5..8 below a break).
func (r *Replica) setAsideCopy(s slotRead, o uint64) {
	if _, held := r.log.aside.Get(o); held || o <= r.wm.commitMin {
		return
	}
	if s.hasHeader && s.header.Op == o && r.log.aside.Holds(o) {
		r.log.aside.Put(s.header)
		r.dur.storageMarks = append(r.dur.storageMarks, marks.StorageHeaderSetAside)
	} else if s.aside.Op == o && s.aside.Checksum != 0 && r.log.aside.Holds(o) {
		r.log.aside.Put(s.aside)
		r.dur.storageMarks = append(r.dur.storageMarks, marks.StorageUnvouchedSetAside)
	}
}

// recoverHead brings the replica back without trusting its head: Recovering,
// voting nothing until a StartView, every op up to its durable ack head
// unsure (m says why).
func (r *Replica) recoverHead(m marks.Mark) {
	r.log.amnesiac = true
	r.log.recoveringHead = m == marks.StorageRecoveringHead
	r.log.unsureTop = max(ackBound(&r.dur.sb), r.wm.sequencer)
	r.status = vsr.StatusRecovering
	r.dur.storageMarks = append(r.dur.storageMarks, m)
	r.timers.Probe.Start(r.jitter)
	r.timers.Repair.Stop()
	vsr.Assert(r.id, r.log.unsureTop >= ackBound(&r.dur.sb), "recovering_head_unsure_covers_acks", "unsure %d ack head %d", r.log.unsureTop, r.dur.sb.AckHead)
}

// rejoin resumes a replica whose write-ahead journal survived: it remembers
// everything it acknowledged, so it may vote and ack at once. A backup of a
// settled view resumes it; a replica that was mid view change carries on; a
// primary cannot know what its lost pipeline had gathered, so it leaves its
// view for the next one. The status change is reported on the first tick.
func (r *Replica) rejoin() {
	// Only a replica that knows its head rejoins; one that does not
	// recovers it (recoverHead), and never comes here after.
	vsr.Assert(r.id, !r.log.recoveringHead, "rejoin_knows_its_head", vsr.DetailHolds)
	r.dur.announce = true
	if r.logView == r.view && !r.isPrimary() {
		r.status = vsr.StatusNormal
		r.startNormalTimeouts()
		return
	}
	if r.logView == r.view {
		r.view++
	}
	vsr.Assert(r.id, r.logView < r.view, "rejoin_view_change_above_log_view", "log_view %d view %d", r.logView, r.view)
	r.status = vsr.StatusViewChange
	r.writeSuperblock()
	r.timers.VcMsg.Start(r.jitter)
	r.timers.VcStatus.Start(r.jitter)
}

func (r *Replica) beginRestarted() {
	vsr.Assert(r.id, len(r.dur.storageMarks) == 0 || r.dur.store != nil, "storage_marks_from_a_disk", vsr.DetailHolds)
	if r.dur.amnesiaUncounted {
		r.dur.amnesiaUncounted = false
		r.fx.Mark(marks.RestartAmnesiac)
	}
	r.reportRestored()
	if r.dur.announce {
		r.resume()
	}
}

// resume reports the status a write-ahead restart came back in, joins the
// view change it is in, replays its journal up to the commit point, and
// votes at once if its own vote is a quorum.
func (r *Replica) resume() {
	r.dur.announce = false
	vsr.Assert(r.id, r.status != vsr.StatusRecovering, "resume_not_recovering", vsr.DetailHolds) // set by rejoin alone
	r.fx.Mark(marks.RestartWAL)
	r.emitStatus()
	if r.status == vsr.StatusViewChange {
		r.fx.SendAll(vsr.StartViewChange{}.Message())
	}
	// The repair window armed when the view was adopted died with the
	// process, while the journal kept the view's headers without bodies:
	// arm it again, or ops above the commit point stay hollow, the gap check
	// refuses the primary's retransmits below the head, and the primary waits
	// for those acks for ever (swarm seed 2265).
	r.armRepairOnAdopt()
	r.commitUpTo()
	// A view change of one replica needs no peer: its own vote is a
	// view-change quorum (f = 0), so it votes now rather than a status
	// timeout later. With peers, f >= 1 and this waits for their
	// StartViewChange as before.
	r.maybeSendDoViewChange()
}
