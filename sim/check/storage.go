package check

import (
	"fmt"
	"math/bits"
	"slices"
)

// Storage: what the harness's disks took from a replica, from the disks' own
// record, never the replica's word (sim/storage_ledger.go re-examines a
// replica's disk and reports each copy it still holds intact).

// RuleCoreCopyDamaged: before the stall began, an op some core replica
// acknowledged (a PrepareOk for it left the replica) was held by no core
// replica, a disk's record showed a core replica's copy lost (both of its
// records on the disk faulty), the reachable whole replicas that never
// acknowledged it (core or not) are fewer than a nack quorum, no live
// replica the harness left reachable holds it, and the replicas that lost
// their copy or are out of reach are more than f. No correct cluster can
// decide the op: it may have committed (acknowledged copies outside the
// core may count), so it cannot be cut, and no replica the core can reach
// can serve it.
const RuleCoreCopyDamaged = "core-copy-damaged"

// RuleCoreCopyForgotten: as RuleCoreCopyDamaged, with the core replicas'
// copies lost to crashes of memory journals instead of a disk: a core replica
// that held the op lost its journal at a crash. A replica that lost its
// journal may not nack what it acked, so the same count of nacks decides.
const RuleCoreCopyForgotten = "core-copy-forgotten"

// DiskCopies re-examines replica i's copies against its disk at tick, after
// a crash, a restart, or a fault on the disk of a replica that is down (a
// live replica holds its ops in memory too; its disk matters again when it
// crashes). intact reports whether the disk holds (op, sum) intact in either
// record of its slot (the header ring's copy carries the body as the
// prepare's does, so either serves); landed whether a write of it was
// reported done there, so that a copy missing now was lost to a fault, not
// a write the crash caught in flight. A copy the disk does not hold intact
// is withdrawn; one that had landed is recorded damaged.
func (c *Checker) DiskCopies(tick uint64, i int, intact func(op, sum uint64) (ok, landed bool)) {
	bit := uint16(1) << uint(i)
	for op := range c.bodies {
		for k := range c.bodies[op] {
			b := &c.bodies[op][k]
			if b.holders&bit == 0 || b.aside&bit != 0 {
				continue // a set-aside copy lives beside the disk
			}
			ok, landed := intact(uint64(op), b.checksum)
			if ok {
				continue
			}
			b.holders &^= bit
			if landed {
				c.loseToDisk(tick, b, bit)
			}
		}
	}
}

// noteBeyond records when the copies of b a disk lost reached a replication
// quorum: past the atlas's promise (at most a replication quorum less one
// faulty replica per slot), and past what a committed op's copies can spare.
func (c *Checker) noteBeyond(tick uint64, b *bodySet) {
	if c.storageLost(b) >= c.qRep {
		if b.beyondAt == 0 {
			b.beyondAt = tick
		}
		return
	}
	b.beyondAt = 0
}

// storageLost counts the replicas whose copy of b a disk lost and that have
// not held it again since (a repair, a restart that found it).
func (c *Checker) storageLost(b *bodySet) int {
	return bits.OnesCount16(b.lostToDisks())
}

// lostToDisks is the replicas whose copy of b a disk took and that hold it
// no more: a damaged record, or a checkpoint that had applied it, until they
// hold or apply it again.
func (b *bodySet) lostToDisks() uint16 { return (b.damaged | b.cpLost) &^ b.holders }

// loseToDisk records that the disk of replica bit took its copy of b at tick.
func (c *Checker) loseToDisk(tick uint64, b *bodySet, bit uint16) {
	b.damaged |= bit
	b.lostAt = tick
	b.lostBy[bits.TrailingZeros16(bit)] = tick32(tick)
	c.noteBeyond(tick, b)
}

// SuperblockLost records, while replica i is down and as it restarts, that
// every superblock copy of its disk is faulty: a replica that comes back from
// such a disk knows nothing of its view, its incarnation or its ack bounds.
// The loss stands for the rest of the run: a superblock it writes later
// records what it learned since, not what it lost (the incarnations it used
// above all), and a later restart from it comes back below its old promises
// as surely. It covers findings about that replica alone (ExcuseFailure).
//
// Its journal goes with it: without a superblock no record of the disk can
// be placed (which view wrote it, whether it was acked), so every copy the
// replica held counts as lost to its disk from then on, toward an op's
// storage-beyond-f as a damaged record does.
func (c *Checker) SuperblockLost(tick uint64, i int) {
	c.noteSuperblockLoss(tick, i)
	c.replicas[i].sbRejoin = true
	bit := uint16(1) << uint(i)
	for op := range c.bodies {
		for k := range c.bodies[op] {
			if b := &c.bodies[op][k]; b.holders&bit != 0 {
				b.holders &^= bit
				c.loseToDisk(tick, b, bit)
			}
		}
	}
}

// noteSuperblockLoss records that replica i lost the superblock it last
// wrote: since when, and which life begins without it (asked while the
// replica is down, its next life; as it restarts, this one).
func (c *Checker) noteSuperblockLoss(tick uint64, i int) {
	r := &c.replicas[i]
	if r.sbLostAt == 0 {
		r.sbLostAt = tick
	}
	// It forgot what it acked, as a replica whose memory journal a crash
	// took: not whole until it has applied past every op it may have acked
	// (checkWhole), and counted so by the crash injectors' bound (NotWhole).
	r.amnesiac = true
	r.amnesiacUntil = max(r.amnesiacUntil, c.top, c.preparedTop)
	c.checkWhole(i)
	life := r.restarts
	if !r.up {
		life++
	}
	if k := len(r.sbLostLives); k == 0 || r.sbLostLives[k-1] != life {
		r.sbLostLives = append(r.sbLostLives, life)
	}
}

// SuperblockRegressed records, while replica i is down and as it restarts,
// that every superblock copy of its disk lost the version last written
// there, but one holds an older version whose log head is head: the restart
// comes back from it, below what it promised since (a loss of those
// promises, as SuperblockLost is of all of them), and takes every journal
// entry above head out of its journal (nothing that version promised them),
// so its copies above head count as lost to its disk. Its copies at or below
// head stay held as its disk's records say (DiskCopies). Its acks above head
// no longer speak for a copy either: unlike a damaged slot, which its
// restart holds unsure and never votes absent, the older version says those
// ops were never there, and its next vote nacks them (a guided search's
// robust run, atlas off: r0 acked op 67, every copy of the superblock
// that promised it was damaged, the restart came back at head 66, and view
// 1's merge of r0's and r1's votes cut the op r0 and r2 had acked). They
// are marked forgotten, not dropped: a finding that stands on them is the
// disk's doing and is excused as such, by name (forgotExcuse), never
// passed over.
func (c *Checker) SuperblockRegressed(tick uint64, i int, head uint64) {
	c.noteSuperblockLoss(tick, i)
	bit := uint16(1) << uint(i)
	for op := head + 1; op < uint64(len(c.acks)); op++ {
		for k := range c.acks[op] {
			if s := &c.acks[op][k]; s.intact&bit != 0 {
				s.intact &^= bit
				s.forgot |= bit
			}
		}
	}
	for op := head + 1; op < uint64(len(c.bodies)); op++ {
		for k := range c.bodies[op] {
			if b := &c.bodies[op][k]; b.holders&bit != 0 {
				b.holders &^= bit
				c.loseToDisk(tick, b, bit)
			}
		}
	}
}

// CheckpointLost records that replica i came back from its disk below a
// checkpoint record it had written, at op to, that the disk's record shows
// faulty: the state that applied every op in (from, to] is lost to its
// disk, as a damaged journal record is, toward each committed op's
// storage-beyond-f, until the replica applies the op again (regained). A
// journal copy it still holds keeps the op held.
func (c *Checker) CheckpointLost(tick uint64, i int, from, to uint64) {
	r := &c.replicas[i]
	r.cpLost = append(r.cpLost, [2]uint64{from, to})
	c.markCheckpointLost(tick, i, from, to, true)
}

// markCheckpointLost sets (lost) or clears replica i's checkpoint loss of
// the committed ops in (from, to].
func (c *Checker) markCheckpointLost(tick uint64, i int, from, to uint64, lost bool) {
	bit := uint16(1) << uint(i)
	for op := from + 1; op <= min(to, c.top); op++ {
		b := c.findBody(op, c.committed[op].checksum)
		if b == nil {
			continue
		}
		if lost {
			b.cpLost |= bit
			b.lostAt = tick
			b.lostBy[i] = tick32(tick)
		} else {
			b.cpLost &^= bit
		}
		c.noteBeyond(tick, b)
	}
}

// regained withdraws replica i's checkpoint losses up to op, which it has
// applied (or installed) again: the loss stands no more there.
func (c *Checker) regained(tick uint64, i int, op uint64) {
	r := &c.replicas[i]
	for k := 0; k < len(r.cpLost); k++ {
		l := &r.cpLost[k]
		if op <= l[0] {
			continue
		}
		c.markCheckpointLost(tick, i, l[0], min(op, l[1]), false)
		l[0] = min(op, l[1])
	}
	r.cpLost = slices.DeleteFunc(r.cpLost, func(l [2]uint64) bool { return l[0] >= l[1] })
}

// lostCheckpoint reports whether replica i lost to its disk a checkpoint
// that applied op (CheckpointLost).
func (c *Checker) lostCheckpoint(i int, op uint64) bool {
	for _, l := range c.replicas[i].cpLost {
		if op > l[0] && op <= l[1] {
			return true
		}
	}
	return false
}

// AckNoted records that replica i recorded an ack of (op, checksum): its
// Acked event, a primary's own included, made before the ack leaves or
// counts.
func (c *Checker) AckNoted(i int, op, checksum uint64) {
	if b := c.findBody(op, checksum); b != nil {
		b.ackNoted |= 1 << uint(i)
	}
}

// AckSent records that replica i's PrepareOk for (op, checksum) left it.
func (c *Checker) AckSent(i int, op, checksum uint64) {
	if b := c.findBody(op, checksum); b != nil {
		b.ackSent |= 1 << uint(i)
	}
}

// ExcuseFailure returns the storage excuse of a safety finding, if the disk
// record covers what the finding is about: an op of Failure.Ops whose copies
// disks lost on a replication quorum of replicas (RuleStorageBeyondF), or,
// for a finding about replicas alone, replicas of Failure.Replicas every one
// of which lost every superblock copy, in either case standing since no
// later than the finding (and, for a promise a replica went back on, lost
// after the life that made it: lossForgot). Damage anywhere else excuses
// nothing. A finding about an op is judged by the op's copies alone: a
// replica that lost its superblock lost its copies with it (SuperblockLost
// counts them lost to its disk), so a loss the op's copies do not prove
// beyond f is the amnesia of one replica, which VSR survives (a replica
// that lost its superblock and, reading an amnesiac superblock as whole,
// led a view that cut an op another replica held: the planted slip
// amnesiac-superblock-read-whole, excused before).
func (c *Checker) ExcuseFailure(f *Failure) (*Excuse, bool) {
	if f.forgot != 0 {
		return c.forgotExcuse(f)
	}
	for _, op := range f.Ops {
		if ex, ok := c.opBeyond(op, f.Tick); ok {
			return ex, true
		}
	}
	if len(f.Replicas) == 0 || len(f.Ops) > 0 {
		return nil, false
	}
	since := uint64(0)
	for _, i := range f.Replicas {
		at := c.replicas[i].sbLostAt
		if at == 0 || at > f.Tick || !c.lossForgot(f.promise, i) {
			return nil, false
		}
		since = max(since, at)
	}
	return &Excuse{Rule: RuleStorageBeyondF, Replicas: f.Replicas, Since: since, Superblock: true,
		Proof: fmt.Sprintf("every superblock copy of %s faulty since t=%d", replicaList(maskOf(f.Replicas)), since)}, true
}

// forgotExcuse excuses a finding that an op acked by a replication quorum
// was cut, where the quorum stands only with the ackers a regressed
// superblock made forget it (Failure.forgot): storage-beyond-f, naming those
// replicas and the finding's ops, since the regression (the disk's record of
// it, examineSuperblock).
func (c *Checker) forgotExcuse(f *Failure) (*Excuse, bool) {
	since := uint64(0)
	for _, i := range members(f.forgot) {
		at := c.replicas[i].sbLostAt
		if at == 0 || at > f.Tick {
			return nil, false
		}
		since = max(since, at)
	}
	return &Excuse{Rule: RuleStorageBeyondF, Ops: f.Ops, Replicas: members(f.forgot), Since: since, Superblock: true,
		Proof: fmt.Sprintf("every superblock copy of %s lost the version that promised op %d since t=%d, and the restart came back from an older one below it",
			replicaList(f.forgot), f.Ops[0], since)}, true
}

// lossForgot reports whether a superblock loss of replica i covers a
// finding that it went back on promise p (nil: the finding is no such
// promise): a life that began without a superblock after the life that made
// the promise, up to the life the replica is in. A promise made after the
// loss (a view learned since, an incarnation stamped since) is one its later
// superblocks keep: going back on it is the replica's doing, not the disk's.
func (c *Checker) lossForgot(p *promiseMade, i int) bool {
	if p == nil || p.replica != i {
		return true
	}
	for _, life := range c.replicas[i].sbLostLives {
		if life > p.life && life <= p.broke {
			return true
		}
	}
	return false
}

// lostCopies says how the replicas of mask lost their copies of op by tick:
// the disk's records damaged, every superblock copy gone (SuperblockLost),
// or the checkpoint that applied it (CheckpointLost).
func (c *Checker) lostCopies(op uint64, mask uint16, tick uint64) string {
	var sb, cp uint16
	for i := range c.replicas {
		if at := c.replicas[i].sbLostAt; mask&(1<<uint(i)) != 0 && at != 0 && at <= tick {
			sb |= 1 << uint(i)
		}
		if mask&(1<<uint(i)) != 0 && c.lostCheckpoint(i, op) {
			cp |= 1 << uint(i)
		}
	}
	// A replica that lost its superblock lost its checkpoint with it (no
	// record can be placed): the superblock is the fault to name.
	cp &^= sb
	if cp != 0 {
		text := replicaList(cp) + " came back below a faulty checkpoint record that applied it"
		if rest := mask &^ cp; rest != 0 {
			text += ", and " + c.lostCopies(op, rest, tick)
		}
		return text
	}
	switch {
	case sb == 0:
		return "the disks of " + replicaList(mask) + " hold no intact record of it"
	case sb == mask:
		return replicaList(sb) + " came back with no superblock copy, and no record of it placed"
	}
	return "the disks of " + replicaList(mask&^sb) + " hold no intact record of it, and " +
		replicaList(sb) + " came back with no superblock copy"
}

// opBeyond is the storage excuse for op, if some version of it has lost its
// copies on a replication quorum of disks since no later than tick.
func (c *Checker) opBeyond(op, tick uint64) (*Excuse, bool) {
	return c.opBeyondHeld(op, tick, 0)
}

// opBeyondHeld is opBeyond counting none of the replicas in held among those
// that lost the op: a stall reads a replica whose state holds the op as
// holding it, whatever its disk did to the journal records (D118).
func (c *Checker) opBeyondHeld(op, tick uint64, held uint16) (*Excuse, bool) {
	if op >= uint64(len(c.bodies)) {
		return nil, false
	}
	for k := range c.bodies[op] {
		b := &c.bodies[op][k]
		if b.beyondAt == 0 || b.beyondAt > tick {
			continue
		}
		lost, since := b.lostToDisks(), b.beyondAt
		if held&lost != 0 {
			lost &^= held
			if bits.OnesCount16(lost) < c.qRep {
				continue
			}
			since = b.quorumLostAt(lost, c.qRep)
		}
		return &Excuse{Rule: RuleStorageBeyondF, Ops: []uint64{op}, Replicas: members(lost), Since: since,
			Proof: fmt.Sprintf("op %d csum=%04x: %s since t=%d (a replication quorum is %d)",
				op, short(b.checksum), c.lostCopies(op, lost, tick), since, c.qRep)}, true
	}
	return nil, false
}

// quorumLostAt is the tick the q-th replica of lost lost its copy of b: since
// then a replication quorum of them has.
func (b *bodySet) quorumLostAt(lost uint16, q int) uint64 {
	var at []uint64
	for i := range b.lostBy {
		if lost&(1<<uint(i)) != 0 {
			at = append(at, uint64(b.lostBy[i]))
		}
	}
	slices.Sort(at)
	return at[q-1]
}

// stateHolders is the replicas whose state holds op: up and applied past it,
// or down with a checkpoint its restart would restore past it (DurableState).
func (c *Checker) stateHolders(op uint64) uint16 {
	var set uint16
	for i := range c.replicas {
		if r := &c.replicas[i]; (r.up && r.applied >= op) || (!r.up && r.durable >= op) {
			set |= 1 << uint(i)
		}
	}
	return set
}

// coreCannotDecide finds an op the core cannot decide because storage or
// crashes of memory journals took its copies (RuleCoreCopyDamaged,
// RuleCoreCopyForgotten), with the excuse that names it.
func (c *Checker) coreCannotDecide() (*Excuse, bool) {
	core, covered := c.coreCovered()
	for op := covered + 1; op < uint64(len(c.bodies)); op++ {
		if ex, ok := c.undecidable(op, core, c.reachable()); ok {
			return ex, true
		}
	}
	return nil, false
}

// coreCovered is the liveness core's set and the highest op a live core
// replica has applied (each op to it the core holds applied).
func (c *Checker) coreCovered() (core uint16, covered uint64) {
	for _, i := range c.live.core {
		core |= 1 << uint(i)
		if r := &c.replicas[i]; r.up {
			covered = max(covered, r.applied)
		}
	}
	return core, covered
}

// Strands reports the first op, if any, that the core could decide now but
// could not by the core rules were replica i cut off: i holds the op's last
// reachable copy, or is one of the whole replicas whose nacks the core needs.
// The harness asks before it cuts a replica off in the liveness phase (D64);
// it reads only the oracle's record.
func (c *Checker) Strands(i int) (uint64, bool) {
	reach := c.reachable()
	if reach&(1<<uint(i)) == 0 {
		return 0, false // out of reach already: a cut-off takes nothing
	}
	core, covered := c.coreCovered()
	for op := covered + 1; op < uint64(len(c.bodies)); op++ {
		if _, now := c.undecidable(op, core, reach); now {
			continue
		}
		if _, cut := c.undecidable(op, core, reach&^(1<<uint(i))); cut {
			return op, true
		}
	}
	return 0, false
}

// copies is what the record says of every version of one op.
type copies struct {
	damaged, forgot, ackers, holders uint16
	// notedLost: replicas that recorded an ack of a version (AckNoted) and
	// lost their copy of that same version.
	notedLost uint16
	lostAt    uint64
	// lostBy: per replica, when it last lost a copy of a version it no
	// longer holds.
	lostBy [16]uint64
}

func (c *Checker) copiesOf(op uint64) copies { return c.copiesOfVersion(op, 0, true) }

// copiesOfVersion is what the record says of the version of op whose
// checksum is sum, or of every version with all.
func (c *Checker) copiesOfVersion(op, sum uint64, all bool) copies {
	var cp copies
	for k := range c.bodies[op] {
		b := &c.bodies[op][k]
		if !all && b.checksum != sum {
			continue
		}
		cp.damaged |= b.lostToDisks()
		cp.forgot |= b.forgot &^ b.holders
		cp.ackers |= b.ackSent
		cp.notedLost |= b.ackNoted & (b.lostToDisks() | b.forgot&^b.holders)
		cp.holders |= b.holders
		cp.lostAt = max(cp.lostAt, b.lostAt)
		for gone := b.lostToDisks() | b.forgot&^b.holders; gone != 0; gone &= gone - 1 {
			i := bits.TrailingZeros16(gone)
			cp.lostBy[i] = max(cp.lostBy[i], uint64(b.lostBy[i]))
		}
	}
	if op < uint64(len(c.acks)) {
		for k := range c.acks[op] {
			if all || c.acks[op][k].checksum == sum {
				cp.ackers |= c.acks[op][k].ackers
			}
		}
	}
	return cp
}

// undecidable reports whether op, in the core, with the replicas of reach in
// reach, has no reachable intact copy, a core copy a disk damaged or a crash
// of a memory journal took, too few replicas that could nack it, and more
// replicas lost or out of reach than f.
func (c *Checker) undecidable(op uint64, core, reach uint16) (*Excuse, bool) {
	if ex, ok := c.undecidableCopies(op, c.copiesOf(op), core, reach, 0); ok {
		return ex, true
	}
	// One version no replica has cut may be past deciding while a core
	// replica holds another entry of the op, which keeps nothing of it: its
	// vote nacks the version (swarm seed 2870870927 from 0xab1e0000: op 13 of view 4, acked by r0
	// and the primary r1, its copies lost to r0's disk and down with r1,
	// while r2 held view 0's op 13).
	for k := range c.bodies[op] {
		if c.bodies[op][k].dropped != 0 || c.superseded(op, c.bodies[op][k].checksum, core) {
			// A replica discarded it itself (a view change cut it, and the
			// oracle judged that cut, Dropped), or a core replica holds an
			// entry of the op from a newer view's log: decided, not stuck.
			continue
		}
		sum := c.bodies[op][k].checksum
		if ex, ok := c.undecidableCopies(op, c.copiesOfVersion(op, sum, false), core, reach, sum); ok {
			return ex, true
		}
	}
	return nil, false
}

// superseded reports whether a core replica holds another entry of op whose
// every ack came in a view newer than every ack of the entry sum (or that no
// ack names): a newer view's log replaced sum, as VR's view change does with
// an op that never committed.
func (c *Checker) superseded(op, sum uint64, core uint16) bool {
	newest := uint64(0)
	if op < uint64(len(c.acks)) {
		for k := range c.acks[op] {
			if a := &c.acks[op][k]; a.checksum == sum {
				newest = max(newest, a.view)
			}
		}
	}
	for k := range c.bodies[op] {
		b := &c.bodies[op][k]
		if b.checksum == sum || b.holders&core == 0 {
			continue
		}
		older := false
		if op < uint64(len(c.acks)) {
			for j := range c.acks[op] {
				if a := &c.acks[op][j]; a.checksum == b.checksum && a.view <= newest {
					older = true
				}
			}
		}
		if !older {
			return true
		}
	}
	return false
}

// undecidableCopies is undecidable for the copies cp of op: every version,
// or (sum not 0) the one whose checksum is sum, which the proof names.
func (c *Checker) undecidableCopies(op uint64, cp copies, core, reach uint16, sum uint64) (*Excuse, bool) {
	lostCore := (cp.damaged | cp.forgot) & core
	// A holder the core has no round trip with cannot serve it (CannotServe).
	stranded := cp.holders & reach & c.noServe
	if cp.holders&core != 0 || cp.holders&reach&^stranded != 0 || lostCore == 0 || (cp.ackers|cp.notedLost)&core == 0 {
		// A core copy, or a live replica the harness left reachable that a
		// correct core may fetch it from, or nothing lost in the core, or no
		// core replica that may have counted: not this rule.
		return nil, false
	}
	// A replica that recorded an ack of the op and lost its copy cannot
	// nack it either: it cannot tell an ack that counted from one its crash
	// cut short (swarm seed 15672312844734342505: the primary r2 noted its
	// own ack of op 66, the crash came before it counted, and both copies
	// were lost to a misdirected and a damaged write).
	may := c.nackers(reach) &^ cp.notedLost
	nackers := bits.OnesCount16(may &^ cp.ackers)
	// A replica reachable but not whole (D63: a memory journal's crash, a lost
	// superblock, its own fault by the record) cannot nack what it may have
	// acked and forgot: a fault as much as one out of reach.
	faulty := (cp.damaged | cp.forgot | (c.all() &^ reach) | (reach &^ may) | stranded)
	if nackers >= c.qNack() || bits.OnesCount16(faulty) <= faultsTolerated(c.n) {
		return nil, false
	}
	label, held := "", ""
	if sum != 0 {
		label = fmt.Sprintf(" csum=%04x", short(sum))
	}
	if stranded != 0 {
		held = fmt.Sprintf(" (%s holds it with no round trip to the core through the kept cuts)", replicaList(stranded))
	}
	rule, how := RuleCoreCopyDamaged, "the disk's record shows "+replicaList(cp.damaged&core)+"'s copy lost"
	if cp.damaged&core == 0 {
		rule, how = RuleCoreCopyForgotten, replicaList(cp.forgot&core)+" lost its copy with its memory journal at a crash"
	}
	return &Excuse{Rule: rule, Ops: []uint64{op}, Replicas: members(faulty), Since: c.faultsBeyondSince(cp, faulty, reach),
		Proof: fmt.Sprintf("op %d%s: %s acked it or recorded an ack of it and %s; no reachable replica holds it%s, %s lost it, cannot nack or are out of reach "+
			"(more than f=%d), and only %d reachable whole replicas could nack it (a nack quorum is %d)",
			op, label, replicaList(cp.ackers|cp.notedLost), how, held, replicaList(faulty), faultsTolerated(c.n), nackers, c.qNack())}, true
}

// faultsBeyondSince is the tick from which the replicas faulty for op were
// more than f: the (f+1)-th earliest of their faults, each dated by its own
// record (a lost copy by that replica's loss, or, for a replica out of reach
// now, by its crash or cut-off if that came first: it was out of reach
// since; any other by its crash or cut-off). Never before the last copy a
// reachable replica held was lost, nor before every holder still out of
// reach went out of reach (until then the core could fetch from it).
func (c *Checker) faultsBeyondSince(cp copies, faulty, reach uint16) uint64 {
	var at []uint64
	floor := uint64(0)
	for i := range c.replicas {
		bit := uint16(1) << uint(i)
		r := &c.replicas[i]
		lost := (cp.damaged|cp.forgot)&bit != 0
		switch {
		case faulty&bit == 0:
		case lost && reach&bit != 0:
			at = append(at, cp.lostBy[i])
			floor = max(floor, cp.lostBy[i])
		case lost && r.faultSince != 0:
			at = append(at, min(cp.lostBy[i], r.faultSince))
		case lost:
			at = append(at, cp.lostBy[i])
		case cp.holders&bit != 0 && reach&bit != 0:
			// A holder in reach that cannot serve (CannotServe): out of
			// the core's reach since the cuts were kept, and not before.
			at = append(at, r.noServeSince)
			floor = max(floor, r.noServeSince)
		default:
			at = append(at, r.faultSince)
		}
		if cp.holders&bit != 0 && reach&bit == 0 {
			floor = max(floor, r.faultSince)
		}
	}
	slices.Sort(at)
	// undecidable asked for more than f of them.
	return max(floor, at[faultsTolerated(c.n)])
}

// nackers is the reachable replicas that may vote and hold every op they
// ever acked: the only ones whose vote can say an op never reached them.
func (c *Checker) nackers(reach uint16) uint16 {
	var set uint16
	for i := range c.replicas {
		if r := &c.replicas[i]; reach&(1<<uint(i)) != 0 && r.whole() && r.voter {
			set |= 1 << uint(i)
		}
	}
	return set
}

// CutOff records that, from tick for the rest of the run, replica i reaches
// no core replica: the harness cut it off from every other replica (an
// assist of the liveness phase, recorded as such by the harness), or keeps
// every link from it into the core down (a fault the liveness phase kept,
// sim's noteSilenced). Either way it can serve the core nothing and vote to
// it no more.
func (c *Checker) CutOff(tick uint64, i int) {
	if r := &c.replicas[i]; r.whole() {
		r.faultSince = tick
	}
	c.cutOff |= 1 << uint(i)
	c.noteConditions(tick)
}

// CannotServe records that, from tick for the rest of the run, replica i
// (outside the core) has no round trip with any core replica: for each, the
// harness keeps the link to it or the link from it down (a fault the
// liveness phase kept, sim's noteSilenced). It may still vote (a vote needs
// one link each way through different core replicas), but a repair is a
// request it must hear and an answer the asker must hear, so it can serve
// the core no op: a copy it holds is out of the core's reach, a fault of
// that copy as a cut-off replica's is (swarm seed 2124434655 from
// 0x7ea00000: committed op 72's one live copy sat on r1, whose links 0->1
// and 1->2 the liveness phase kept down, and r0's disk had lost the other).
func (c *Checker) CannotServe(tick uint64, i int) {
	if r := &c.replicas[i]; r.noServeSince == 0 {
		r.noServeSince = tick
	}
	c.noServe |= 1 << uint(i)
}

// ServesAgain records that the harness healed replica i's kept links
// (sim's heal): a round trip with the core is open again, and CannotServe no
// longer holds for it.
func (c *Checker) ServesAgain(i int) {
	c.noServe &^= 1 << uint(i)
	c.replicas[i].noServeSince = 0
}

// reachable is the replicas up now that the harness has not cut off.
func (c *Checker) reachable() uint16 {
	var up uint16
	for i := range c.replicas {
		if c.replicas[i].up {
			up |= 1 << uint(i)
		}
	}
	return up &^ c.cutOff
}

// all is every replica of the cluster.
func (c *Checker) all() uint16 { return uint16(1)<<uint(c.n) - 1 }

// qNack is the nacks that prove an op never committed: n - replication quorum + 1.
func (c *Checker) qNack() int { return c.n - c.qRep + 1 }

// members lists the replicas of a set, ascending.
func members(set uint16) []int {
	var out []int
	for i := 0; set != 0; i++ {
		if set&1 != 0 {
			out = append(out, i)
		}
		set >>= 1
	}
	return out
}

// maskOf is the set of the given replicas.
func maskOf(replicas []int) uint16 {
	var set uint16
	for _, i := range replicas {
		set |= 1 << uint(i)
	}
	return set
}
