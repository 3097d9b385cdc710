package check

import "math"

// bodySet is who may hold the body of one prepare (op, checksum): every
// replica that reported journaling it, acked it or applied it, less those that
// since dropped it, evicted it or lost their journal. The record says how each
// copy went, because a loss excuses a stall only when crashes alone, more of
// them than the protocol promises to survive, took every copy.
type bodySet struct {
	checksum uint64
	holders  uint16
	// dropped: copies a replica discarded itself (a truncation, a prune,
	// an eviction); a crash's losses are counted by Checker.losses.
	dropped uint16
	// sinceLoss is Checker.losses when the first copy was recorded: a crash
	// counts against this op only if it came after.
	sinceLoss uint64
	// damaged: copies a disk's record shows lost: both records of the
	// replica's slot faulty when it crashed or while it was down
	// (DiskCopies). A copy whose write never landed before its replica
	// crashed is withdrawn without being damaged: no fault took it.
	damaged uint16
	// lostAt is the tick the last copy was lost to a disk or a crash;
	// beyondAt the tick since which the copies disks lost, not held again,
	// are a replication quorum (0: not now).
	lostAt, beyondAt uint64
	// lostBy holds, per replica, the tick its copy was last lost (to a
	// disk, a checkpoint record or a crash): the core rules date each
	// replica's fault by its own loss, not by the op's latest. 32 bits: a
	// run is at most a few million ticks, and a run holds a set per op.
	lostBy [16]uint32
	// cpLost: replicas whose applied state of this op a checkpoint record
	// lost to their disk took (CheckpointLost), until they apply it again.
	cpLost uint16
	// forgot: copies lost with a memory journal at a crash (loseBodies).
	forgot uint16
	// aside: copies their replicas set aside (SetAside): out of the journal
	// and off the disk (a removal record stands in their slot), kept beside
	// the disk across crashes and served to a repair, until journaled again.
	aside uint16
	// ackSent: replicas whose PrepareOk for it left them, delivered or not:
	// each may have been counted, so none of them may vote it absent.
	ackSent uint16
	// ackNoted: replicas that recorded an ack of it (their Acked event: the
	// ack head they make durable before the ack leaves or counts), whether
	// or not it ever counted. One that then lost its copy cannot tell the
	// two apart, so it can never nack it (undecidable).
	ackNoted uint16
}

// Journaled records that replica i journaled (op, checksum).
func (c *Checker) Journaled(i int, op, checksum uint64) { c.hold(i, op, checksum) }

// SetAside records that replica i moved its copy of (op, checksum) out of
// its journal, kept beside the disk: its disk no longer holds it, and the
// copy is held all the same (DiskCopies does not withdraw it). The replica
// keeps one set-aside body per slot of a ring of slots, so a copy it set
// aside earlier at another op of the same slot is gone: the replica
// discarded it itself (dropBody).
func (c *Checker) SetAside(i int, op, checksum uint64, slots int) {
	bit := uint16(1) << uint(i)
	for o := op % uint64(slots); o < uint64(len(c.bodies)); o += uint64(slots) {
		for k := range c.bodies[o] {
			if b := &c.bodies[o][k]; b.aside&bit != 0 && (o != op || b.checksum != checksum) {
				b.aside &^= bit
				c.dropBody(i, o, b.checksum)
			}
		}
	}
	if b := c.findBody(op, checksum); b != nil && b.holders&bit != 0 {
		b.aside |= bit
	}
}

// AsideReleased records that replica i let go of its set-aside copy of (op,
// checksum), its journal holding it: from then on its disk's copy is the
// one a crash or a fault can take.
func (c *Checker) AsideReleased(i int, op, checksum uint64) {
	if b := c.findBody(op, checksum); b != nil {
		b.aside &^= 1 << uint(i)
	}
}

// Evicted records that replica i let (op, checksum) fall out of its journal
// to make room for a newer op: from then on its copy is gone, and only the
// state it applied (if it applied that far) covers the op.
func (c *Checker) Evicted(i int, op, checksum uint64) {
	c.withdrawCopy(i, op, checksum)
	c.dropBody(i, op, checksum)
}

func (c *Checker) hold(i int, op, checksum uint64) {
	c.preparedTop = max(c.preparedTop, op)
	c.bodies = grow(c.bodies, op)
	for k := range c.bodies[op] {
		if b := &c.bodies[op][k]; b.checksum == checksum {
			// Journaled again, a set-aside copy stays beside the disk until
			// its replica lets go of it (AsideReleased): the journal's write
			// may still be in flight.
			b.holders |= 1 << uint(i)
			if b.beyondAt != 0 && c.storageLost(b) < c.qRep {
				b.beyondAt = 0 // held again: the damage no longer stands
			}
			return
		}
	}
	c.bodies[op] = c.bodyBlock.add(c.bodies[op], bodySet{checksum: checksum, holders: 1 << uint(i), sinceLoss: c.losses})
}

// dropBody: replica i discarded its own copy of (op, checksum).
func (c *Checker) dropBody(i int, op, checksum uint64) {
	if op >= uint64(len(c.bodies)) {
		return
	}
	bit := uint16(1) << uint(i)
	for k := range c.bodies[op] {
		if b := &c.bodies[op][k]; b.checksum == checksum && b.holders&bit != 0 {
			b.holders &^= bit
			b.dropped |= bit
		}
	}
}

// loseBodies: replica i lost its whole journal to a crash at tick.
func (c *Checker) loseBodies(tick uint64, i int) {
	bit := uint16(1) << uint(i)
	for op := range c.bodies {
		for k := range c.bodies[op] {
			if b := &c.bodies[op][k]; b.holders&bit != 0 {
				b.holders &^= bit
				b.forgot |= bit
				b.lostAt = tick
				b.lostBy[i] = tick32(tick)
			}
		}
	}
}

// opLoss is an op that may have committed whose every copy is gone.
type opLoss struct {
	op, checksum uint64
	committed    bool
	// beyondF: crashes alone took every copy, and more than f replicas lost
	// their journal after the op was first held: the protocol promised
	// nothing. Otherwise a correct replica let it go: a safety finding.
	beyondF bool
	dropped uint16 // copies their replicas discarded themselves
	damaged uint16 // copies disks lost, not held again
	crashed int    // replicas whose journal a crash took since
	goneAt  uint64 // the tick the last copy was lost
}

// lostOp returns an op that may have committed (committed, or acked by a
// replication quorum its primary could count) whose body no replica still
// holds (a down replica's write-ahead journal still holds its copy) and that
// no live replica has applied (so none holds a state that covers it).
func (c *Checker) lostOp() (opLoss, bool) {
	covered, avail := c.survivors()
	if l, ok := c.lostCommitted(covered, avail); ok {
		return l, true
	}
	return c.lostAcked(covered, avail)
}

// survivors returns the highest op a live replica applied, or a down
// replica's durable state covers (write-ahead journals), which covers every
// op up to it, and the replicas whose journal copies still count: the live
// ones, and with write-ahead journals the down ones too. A down replica whose
// checkpoint applied an op holds it as surely as one whose journal does: an
// op evicted from every journal into the checkpoint of a replica left down
// is not lost (swarm seed 1592598928: the core's other replica had lost its
// superblock, and the op was called lost).
func (c *Checker) survivors() (covered uint64, avail uint16) {
	for i := range c.replicas {
		r := &c.replicas[i]
		if r.up || c.wal {
			avail |= 1 << uint(i)
		}
		switch {
		case r.up:
			covered = max(covered, r.applied)
		case c.wal:
			covered = max(covered, r.durable)
		}
	}
	return covered, avail
}

// findBody returns the record of (op, sum), or nil if no replica ever held it.
func (c *Checker) findBody(op, sum uint64) *bodySet {
	if op < uint64(len(c.bodies)) {
		for k := range c.bodies[op] {
			if b := &c.bodies[op][k]; b.checksum == sum {
				return b
			}
		}
	}
	return nil
}

// lostCommitted returns the first committed op above covered that no
// replica in avail holds.
func (c *Checker) lostCommitted(covered uint64, avail uint16) (opLoss, bool) {
	for op := covered + 1; op <= c.top; op++ {
		sum := c.committed[op].checksum
		if b := c.findBody(op, sum); b == nil || b.holders&avail == 0 {
			return c.judgeLoss(op, sum, true, b), true
		}
	}
	return opLoss{}, false
}

// lostAcked returns the first op above the commit point and covered that a
// replication quorum acked and no replica in avail holds.
func (c *Checker) lostAcked(covered uint64, avail uint16) (opLoss, bool) {
	for op := max(covered, c.top) + 1; op < uint64(len(c.acks)); op++ {
		for k := range c.acks[op] {
			s := &c.acks[op][k]
			if popcount(c.countedAcks(s)) < c.qRep {
				continue
			}
			b := c.findBody(op, s.checksum)
			if b != nil && b.holders&avail != 0 {
				continue
			}
			// An op a replica discarded itself was cut by a view change
			// the oracle already judged (Dropped): it is not lost.
			if b != nil && b.dropped != 0 {
				continue
			}
			return c.judgeLoss(op, s.checksum, false, b), true
		}
	}
	return opLoss{}, false
}

// judgeLoss says whether crashes beyond f explain the loss of (op, sum).
func (c *Checker) judgeLoss(op, sum uint64, committed bool, b *bodySet) opLoss {
	l := opLoss{op: op, checksum: sum, committed: committed}
	since := uint64(0)
	if b != nil {
		l.dropped = b.dropped
		l.damaged = b.lostToDisks()
		l.goneAt = b.lostAt
		since = b.sinceLoss
	}
	for i := range c.replicas {
		if c.replicas[i].lostAt > since {
			l.crashed++
		}
	}
	// A committed op's copies outside its commit quorum never counted: a
	// late StartView of the commit's view may cut them (Dropped allows it).
	counted := ^uint16(0)
	if committed {
		counted = c.committed[op].quorum
	}
	l.beyondF = !c.wal && l.dropped&counted == 0 && l.crashed > faultsTolerated(c.n)
	return l
}

// tick32 is a tick as lostBy keeps it (a run's ticks fit; past them it
// saturates, which only dates a loss later).
func tick32(t uint64) uint32 { return uint32(min(t, math.MaxUint32)) }
