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
	c.bodies = grow(c.bodies, op)
	for k := range c.bodies[op] {
		if c.bodies[op][k].checksum == checksum {
			c.bodies[op][k].holders |= 1 << uint(i)
			return
		}
	}
	c.bodies[op] = append(c.bodies[op], bodySet{checksum: checksum, holders: 1 << uint(i)})
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

// lostCommitted returns a committed op that no live replica may still hold the
// body of and no live replica has applied (so none holds a state that covers
// it): no replica can ever catch up past it.
func (c *Checker) lostCommitted() (uint64, bool) {
	covered := uint64(0)
	var up uint16
	for i := range c.replicas {
		if r := &c.replicas[i]; r.up {
			up |= 1 << uint(i)
			covered = max(covered, r.applied)
		}
	}
	for op := covered + 1; op <= c.top; op++ {
		held := false
		if op < uint64(len(c.bodies)) {
			for _, b := range c.bodies[op] {
				if b.checksum == c.committed[op].checksum && b.holders&up != 0 {
					held = true
				}
			}
		}
		if !held {
			return op, true
		}
	}
	return 0, false
}
