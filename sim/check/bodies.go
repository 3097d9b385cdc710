package check

// bodySet is who may hold the body of one prepare (op, checksum): every
// replica that reported journaling it, acked it or applied it, less those that
// since dropped it or lost their journal. It over-states (an entry evicted to
// make room is not reported), so a rule built on "nobody holds it" is sound.
type bodySet struct {
	checksum uint64
	holders  uint16
}

// Journaled records that replica i journaled (op, checksum).
func (c *Checker) Journaled(i int, op, checksum uint64) { c.hold(i, op, checksum) }

func (c *Checker) hold(i int, op, checksum uint64) {
	c.preparedTop = max(c.preparedTop, op)
	c.bodies = grow(c.bodies, op)
	for k := range c.bodies[op] {
		if c.bodies[op][k].checksum == checksum {
			c.bodies[op][k].holders |= 1 << uint(i)
			return
		}
	}
	c.bodies[op] = c.bodyBlock.add(c.bodies[op], bodySet{checksum: checksum, holders: 1 << uint(i)})
}

func (c *Checker) unhold(i int, op, checksum uint64) {
	if op >= uint64(len(c.bodies)) {
		return
	}
	for k := range c.bodies[op] {
		if c.bodies[op][k].checksum == checksum {
			c.bodies[op][k].holders &^= 1 << uint(i)
		}
	}
}

// loseBodies: replica i lost its whole journal.
func (c *Checker) loseBodies(i int) {
	bit := uint16(1) << uint(i)
	for op := range c.bodies {
		for k := range c.bodies[op] {
			c.bodies[op][k].holders &^= bit
		}
	}
}

// lostOp returns an op that may have committed (committed, or acked by a
// replication quorum its primary could count) whose body no live replica may
// still hold and that no live replica has applied (so none holds a state that
// covers it): no correct replica may cut it, and none can ever fetch it.
func (c *Checker) lostOp() (op, checksum uint64, committed, lost bool) {
	covered := uint64(0)
	var up uint16
	for i := range c.replicas {
		if r := &c.replicas[i]; r.up {
			up |= 1 << uint(i)
			covered = max(covered, r.applied)
		}
	}
	held := func(op, sum uint64) bool {
		if op < uint64(len(c.bodies)) {
			for _, b := range c.bodies[op] {
				if b.checksum == sum && b.holders&up != 0 {
					return true
				}
			}
		}
		return false
	}
	for op := covered + 1; op <= c.top; op++ {
		if sum := c.committed[op].checksum; !held(op, sum) {
			return op, sum, true, true
		}
	}
	for op := max(covered, c.top) + 1; op < uint64(len(c.acks)); op++ {
		for k := range c.acks[op] {
			s := &c.acks[op][k]
			if popcount(c.countedAcks(s)) >= c.qRep && !held(op, s.checksum) {
				return op, s.checksum, false, true
			}
		}
	}
	return 0, 0, false, false
}
