package spec

import "fmt"

// The storage rules: what a replica on a disk asks to be written, judged
// write by write as the step asks for it. The oracle sees what a disk lost
// only once a restart acts on it, and the replica's recovery masks most
// slips in its own writes for a long time (a blank it wrote over an acked
// op reads as faulty where its ack bound says an op stood); these rules
// judge the write itself, the step it is asked in.

// WriteZone is the journal copy a write goes to, as far as a rule reads it.
type WriteZone uint8

// Write zones. ZoneOther is the checkpoint zone: no rule reads it;
// ZoneSuperblock is a superblock copy, which only blank_after_superblock reads
// (that one was asked in the step, not what it says).
const (
	ZoneOther WriteZone = iota
	ZonePrepare
	ZoneHeader
	ZoneSuperblock
)

// WriteKind is what a journal record carries.
type WriteKind uint8

// Write kinds: an entry (Op, Checksum), a removal (a blank: the slot holds
// no op), a set-aside removal (the op may have been acked and committed: a
// restart holds the slot faulty), or a record the format does not read as
// any of these for its slot.
const (
	WriteUnread WriteKind = iota
	WriteEntry
	WriteBlank
	WriteAside
)

// Write is one write a replica asked for in its step, in the order asked.
type Write struct {
	Zone         WriteZone
	Slot         int
	Kind         WriteKind
	Op, Checksum uint64 // the entry (WriteEntry)
	// Fenced: the replica's messages after it wait for it to land. A
	// scrubber's mend of one copy from the other, whole one, is unfenced.
	Fenced bool
	// AfterSuperblock: the harness starts it only once the superblock
	// asked before it in the step has landed (D71).
	AfterSuperblock bool
	// Superblock is what a superblock copy (ZoneSuperblock) makes durable.
	Superblock Durable
}

// sameRecord reports whether a header copy carries what the prepare copy
// beside it does.
func (w *Write) sameRecord(p *Write) bool {
	return w.Slot == p.Slot && w.Kind == p.Kind && w.Op == p.Op && w.Checksum == p.Checksum
}

// Wrote records a write replica i asked for in its step: call it for each
// write, in the order asked, after the step's events. A journal slot's
// prepare copy is asked before its header copy, of the same record: the
// disk lands them in that order, so a restart may take a prepare that
// verifies for the slot's content (journal_write_order; a scrubber mends a
// header copy alone, unfenced, from a prepare copy it read whole). A removal is
// never written over an op the replica acked in the log_view it still
// holds, above what it applied or checkpointed (blank_keeps_acks): read
// back, the blank says the op was never there. A removal of an op it acked in
// an older log_view lands only after the step's superblock, which names the
// log_view that removes it (blank_after_superblock).
func (m *Model) Wrote(i int, w *Write) {
	r := &m.replicas[i]
	if w.Fenced {
		r.fences++ // numbered as the harness numbers them (Landed)
	}
	if m.failure != nil || w.Zone == ZoneOther {
		return
	}
	switch w.Zone {
	case ZoneSuperblock:
		r.stepSuperblock = true
		if w.Fenced {
			r.durable, r.durableAsked = w.Superblock, true
			r.landing = append(r.landing, fencedCommit{r.fences, w.Superblock.CommitMax})
		}
	case ZonePrepare:
		r.prepares = append(r.prepares, stepWrite{Write: *w})
		if w.Fenced {
			r.noteDisplaced(m.cfg.JournalSlots, w)
			r.noteAsked(m.cfg.JournalSlots, w.Slot, w.Op, w.Checksum, r.fences)
		}
		if w.Kind == WriteBlank {
			m.checkBlank(i, r, w)
		}
	case ZoneHeader:
		p := r.pairPrepare(w)
		switch {
		case w.Fenced && p == nil:
			m.fail(i, RuleJournalWriteOrder, "asks for the header copy of slot %d (%s) without asking for the same record's prepare copy before it in the step", w.Slot, w.describe())
		case p != nil && !(w.Fenced && p.Fenced):
			m.fail(i, RuleJournalWriteOrder, "asks for both copies of slot %d (%s) without fencing both: a message may leave before the record lands", w.Slot, w.describe())
		}
	}
}

// stepWrite is a prepare copy asked for in the step, and whether its header
// copy followed.
type stepWrite struct {
	Write
	paired bool
}

// pairPrepare returns the prepare copy the step asked for last at w's slot,
// if it carries the record w does, and marks it paired; nil otherwise.
func (r *replicaState) pairPrepare(w *Write) *stepWrite {
	for k := len(r.prepares) - 1; k >= 0; k-- {
		if p := &r.prepares[k]; p.Slot == w.Slot {
			if !w.sameRecord(&p.Write) {
				return nil
			}
			p.paired = true
			return p
		}
	}
	return nil
}

// endWrites closes the step's writes: every fenced prepare copy asked for
// was followed by its header copy (journal_write_order: a restart reads a
// slot by both, and a header copy left older than its prepare reads as a
// lost write).
func (m *Model) endWrites(i int) {
	r := &m.replicas[i]
	for k := range r.prepares {
		if p := &r.prepares[k]; p.Fenced && !p.paired {
			m.fail(i, RuleJournalWriteOrder, "asks for the prepare copy of slot %d (%s) without its header copy after it in the step", p.Slot, p.describe())
			return
		}
	}
	for _, d := range r.displaced {
		if !d.held && r.durable.CommitMax >= d.op {
			m.failOp(i, d.op, RuleDisplaceAfterSuperblock, "writes op %d over slot %d, which held op %d it acked in view %d, not held for a superblock of its step, while the commit point over op %d is durable only in a superblock not known to have landed (the last landed carries %d, the last asked %d)",
				d.by, d.slot, d.op, r.ackView, d.op, r.commitBefore, r.durable.CommitMax)
			return
		}
	}
}

// fencedCommit is a superblock copy asked for: its fence and the commit
// point it carries.
type fencedCommit struct{ fence, commit uint64 }

// Landed is the harness's report that the first n fenced writes replica i
// asked for in this life have landed, as it tells the replica: the commit
// point of the last superblock among them is durable (displace_after_superblock).
func (m *Model) Landed(i int, n uint64) {
	r := &m.replicas[i]
	r.fencesLanded = max(r.fencesLanded, n)
	k := 0
	for k < len(r.landing) && r.landing[k].fence <= n {
		r.landed, r.landedKnown = r.landing[k].commit, true
		k++
	}
	r.landing = r.landing[:copy(r.landing, r.landing[k:])]
}

// Recovered is the harness's report of the commit point of the superblock
// replica i's restart came back at (the newest whole copy it read back): the
// durable point it came back at (displace_after_superblock judges from it at
// once).
func (m *Model) Recovered(i int, commit uint64) {
	r := &m.replicas[i]
	r.landed, r.landedKnown = commit, true
}

// displacedOp is an acked op a step's entry write pushed off its slot above
// the durable commit point, and whether the write waits for the step's
// superblock (asked after one, held for it).
type displacedOp struct {
	op, by uint64
	slot   int
	held   bool
}

// noteDisplaced records the acked op a fenced entry write w pushes off its
// slot, where the durable commit point as the step began lies below it.
func (r *replicaState) noteDisplaced(slots int, w *Write) {
	if w.Kind != WriteEntry || slots <= 0 || w.Slot < 0 || w.Slot >= len(r.asked) {
		return
	}
	a := r.asked[w.Slot]
	if !a.known || a.op == 0 || a.op >= w.Op || a.op <= r.commitBefore || a.op >= uint64(len(r.acks)) || r.acks[a.op] != a.sum {
		return
	}
	r.displaced = append(r.displaced, displacedOp{op: a.op, by: w.Op, slot: w.Slot, held: w.AfterSuperblock && r.stepSuperblock})
}

// askedEntry is what a replica's disk holds at a slot's prepare copy as far
// as its own life shows: the record of the last fenced prepare copy it asked
// for there, or the entry its restart took up (op and sum 0: a blank).
type askedEntry struct {
	op, sum uint64
	known   bool
	// fence is the write's number among the life's fenced writes (0: the
	// restart took the entry up: on the disk already).
	fence uint64
}

// noteAsked records (op, sum) as what the replica put at slot, with the
// fence of its write (0: taken up by a restart).
func (r *replicaState) noteAsked(slots, slot int, op, sum, fence uint64) {
	if slots <= 0 || slot < 0 || slot >= slots {
		return
	}
	if len(r.asked) != slots {
		r.asked = make([]askedEntry, slots)
	}
	r.asked[slot] = askedEntry{op: op, sum: sum, known: true, fence: fence}
}

// checkAckWritten: ack_written. A PrepareOk on a disk promises the entry is
// on it: the last fenced prepare copy the replica asked for at the op's slot
// in this life carries it, or, with none asked since, its restart took the
// entry up there (the harness holds the ack until a fenced write lands; a
// scrubber's unfenced mend of one copy rewrites what was there already).
func (m *Model) checkAckWritten(i int, r *replicaState, msg *Message) {
	slots := m.cfg.JournalSlots
	if !m.cfg.Disk || slots <= 0 {
		return
	}
	slot := msg.Op % uint64(slots)
	var a askedEntry
	if len(r.asked) == slots {
		a = r.asked[slot]
	}
	if a.known && a.op == msg.Op && a.sum == msg.Checksum {
		return
	}
	what := "nothing"
	switch {
	case a.known && a.op != 0:
		what = fmt.Sprintf("op %d checksum %x", a.op, a.sum)
	case a.known:
		what = "a blank"
	}
	m.fail(i, RuleAckWritten, "sends %s, where the last fenced prepare copy it asked for at slot %d in this life, or took up at its restart, is %s", msg.String(), slot, what)
}

// checkBlank: blank_keeps_acks, for a removal written over w's slot. The op
// judged is the highest the replica acked there in its latest ack view, in
// this life: a restart that finds a slot lost may write a blank over it, and
// its recovery reads an empty slot under its ack bound as faulty (D53). The
// replica must still hold that log_view, and the op must lie above every op
// it applied, checkpointed or installed.
func (m *Model) checkBlank(i int, r *replicaState, w *Write) {
	if m.cfg.JournalSlots <= 0 {
		return
	}
	slots, slot := uint64(m.cfg.JournalSlots), uint64(w.Slot)
	n := uint64(len(r.acks))
	if n <= slot {
		return
	}
	// The highest op of the slot that was acked, walking the slot's ops down.
	for o := slot + (n-1-slot)/slots*slots; o > r.settled; o -= slots {
		if r.acks[o] == 0 {
			if o < slots {
				return
			}
			continue
		}
		switch {
		case r.ackLives[o] != r.lives:
		case r.logView != r.ackView:
			m.checkBlankAfterSuperblock(i, r, w, o)
		case !r.letGo(o, slots):
			m.failOp(i, o, RuleBlankKeepsAcks, "writes a blank over slot %d, which holds op %d it acked in view %d (log_view %d), above op %d it applied or checkpointed",
				w.Slot, o, r.ackView, r.logView, r.settled)
		}
		return
	}
}

// checkBlankAfterSuperblock: blank_after_superblock, for a removal over op o,
// which the replica acked in this life in ackView, an older log_view than the
// one it holds now (a StartView it adopted or a merge it made took the op
// out). Until the superblock naming the new log_view lands, the disk's
// durable log_view is the one the op was acked in, and a restart in it must
// find the op, or read its slot as faulty: never a blank, which says the op
// was never held (D53, D71; CI's swarm seed 12874905672124114957, a restart
// that held such ops unsure for good and stalled the views). So the blank is
// asked after a superblock in the step and waits for it to land.
func (m *Model) checkBlankAfterSuperblock(i int, r *replicaState, w *Write, o uint64) {
	if w.AfterSuperblock && r.stepSuperblock {
		return
	}
	what := "without asking for a superblock before it in the step"
	if r.stepSuperblock {
		what = "without waiting for the step's superblock to land"
	}
	m.failOp(i, o, RuleBlankAfterSuperblock, "writes a blank over slot %d, which holds op %d it acked in view %d, %s (log_view %d now, above op %d it applied or checkpointed)",
		w.Slot, o, r.ackView, what, r.logView, r.settled)
}

// letGo reports whether the replica's journal events let op go (truncated,
// pruned, set aside, evicted), let another op of its slot go in this step,
// or put a later op of its slot over it: a blank then removes what an event
// said, not the acked op.
func (r *replicaState) letGo(op, slots uint64) bool {
	if op >= uint64(len(r.log)) || r.log[op] == 0 {
		return true
	}
	for _, e := range r.removed {
		if e.op%slots == op%slots {
			return true
		}
	}
	for o := op + slots; o < uint64(len(r.log)); o += slots {
		if r.log[o] != 0 {
			return true
		}
	}
	return false
}

// Settled records that replica i applied, checkpointed or installed up to op:
// a removal at or below it is not judged by blank_keeps_acks.
func (m *Model) Settled(i int, op uint64) {
	r := &m.replicas[i]
	r.settled = max(r.settled, op)
}

func (w *Write) describe() string {
	switch w.Kind {
	case WriteEntry:
		return fmt.Sprintf("an entry of op %d", w.Op)
	case WriteBlank:
		return "a blank"
	case WriteAside:
		return "a set-aside blank"
	}
	return "a record it cannot read"
}

// RecoveredLogView records the log_view of the superblock replica i's restart
// came back at (the newest whole copy it read back, not written while
// amnesiac): the log its journal must hold (restore_in_log).
func (m *Model) RecoveredLogView(i int, logView uint64) {
	r := &m.replicas[i]
	r.restoreLogView, r.restoreKnown = logView, true
}

// Restored records an entry a restart from a disk took up into its journal
// (its first step reports them, in op order): the replica holds it. Two
// consecutive ops it took up above every op it ever applied chain, the upper
// naming the lower as its parent (restore_chains): a log that breaks there
// holds an entry of another log, as an older entry a lost write left under a
// head that names another, and its votes and acks stand on it. At or below
// an op it applied the entry is replayed or covered by a checkpoint, and the
// oracle's agreement judges what a replay applies. Above that, an entry it
// took up under its durable log_view L is the one L's messages on the wire
// stated at its op, where they stated one (restore_in_log): the restart's
// walk down from L's head keeps only L's log, and an entry of another log (a
// removal the disk lost, below a gap or a break in the chain, D74, D75) is
// what its next vote would splice into L.
func (m *Model) Restored(i int, op, sum, parent uint64) {
	r := &m.replicas[i]
	if p := r.restored; p.op > r.settled && p.op+1 == op && parent != p.sum {
		m.failOp(i, op, RuleRestoreChains, "takes up op %d checksum %x naming parent %x above op %d checksum %x at its restart",
			op, sum, parent, p.op, p.sum)
	}
	if stated, ok := m.logs.get(r.restoreLogView, op); ok && r.restoreKnown && op > r.settled && stated != sum && m.failure == nil {
		m.failOp(i, op, RuleRestoreInLog, "takes up op %d checksum %x at its restart under log_view %d, whose messages stated checksum %x there",
			op, sum, r.restoreLogView, stated)
	}
	r.restored = opSum{op, sum}
	r.log = setAt(r.log, op, sum)
	r.walk.walkJournaled(op, m.cfg.JournalSlots)
	if s := m.cfg.JournalSlots; s > 0 {
		r.noteAsked(s, int(op%uint64(s)), op, sum, 0)
	}
}

// AsideReleased records that replica i let go of its set-aside copy of (op,
// sum), its journal holding the entry: aside_release_landed. On a disk the
// set-aside copy is the durable one until the journal's own is, so the last
// fenced prepare copy the replica asked for at the op's slot in this life
// carries the entry and has landed, or, with none asked since, its restart
// took the entry up there (a crash that tore a write still in flight left
// it neither copy: source-2f1d-790513318.vsr, D119).
func (m *Model) AsideReleased(i int, op, sum uint64) {
	slots := m.cfg.JournalSlots
	if m.failure != nil || !m.cfg.Disk || slots <= 0 {
		return
	}
	r := &m.replicas[i]
	slot := op % uint64(slots)
	var a askedEntry
	if len(r.asked) == slots {
		a = r.asked[slot]
	}
	switch {
	case !a.known || a.op != op || a.sum != sum:
		m.failOp(i, op, RuleAsideReleaseLanded, "lets go of its set-aside copy of op %d checksum %x where the last fenced prepare copy it asked for at slot %d in this life, or took up at its restart, is not that entry", op, sum, slot)
	case a.fence > r.fencesLanded:
		m.failOp(i, op, RuleAsideReleaseLanded, "lets go of its set-aside copy of op %d checksum %x while the journal's write of it (fence %d) has not landed (%d landed)", op, sum, a.fence, r.fencesLanded)
	}
}
