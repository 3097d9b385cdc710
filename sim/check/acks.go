package check

// ackSet is what the harness saw of one prepare (op, checksum) in one view:
// which replicas' PrepareOks reached that view's primary (its own ack
// included), with the incarnation each was sent from, and which of those
// ackers still hold their copy.
type ackSet struct {
	view     uint64
	checksum uint64
	parent   uint64
	ackers   uint16 // acks delivered to the primary of view (and its own)
	intact   uint16 // ackers whose copy has not been lost or dropped since
	// forgot: ackers a regressed superblock took the promise from
	// (SuperblockRegressed): not intact, but a finding that needs them is
	// the disk's doing, which storage-beyond-f names (ExcuseFailure).
	forgot uint16
	inc    [ReplicasMax]uint64
}

func (c *Checker) ackSetFor(op, view, checksum, parent uint64) *ackSet {
	c.acks = grow(c.acks, op)
	sets := c.acks[op]
	for k := range sets {
		if sets[k].view == view && sets[k].checksum == checksum {
			return &sets[k]
		}
	}
	c.acks[op] = c.ackBlock.add(sets, ackSet{view: view, checksum: checksum, parent: parent})
	return &c.acks[op][len(c.acks[op])-1]
}

// OwnAck records that replica p, primary of view, acked its own prepare
// (op, checksum): it originated it, or holds it as it starts the view.
func (c *Checker) OwnAck(p int, view, op, checksum, parent uint64) {
	if p != c.primaryOf(view) {
		return
	}
	c.hold(p, op, checksum)
	s := c.ackSetFor(op, view, checksum, parent)
	s.ackers |= 1 << uint(p)
	s.intact |= 1 << uint(p)
	s.forgot &^= 1 << uint(p)
	s.inc[p] = incUnknown // a primary never discounts itself
	r := &c.replicas[p]
	if view > r.ownAckView || (view == r.ownAckView && op > r.ownAckOp) {
		r.ownAckView, r.ownAckOp = view, op
	}
}

// AckDelivered records a PrepareOk from replica from, sent by its incarnation
// inc, delivered to the live replica to. Only acks reaching the primary of
// their view can count toward a commit.
func (c *Checker) AckDelivered(to, from int, inc, view, op, checksum, parent uint64) {
	c.Delivered(to, from, inc)
	if from < 0 || from >= c.n || to != c.primaryOf(view) || from == to {
		return
	}
	s := c.ackSetFor(op, view, checksum, parent)
	bit := uint16(1) << uint(from)
	if s.ackers&bit == 0 || inc > s.inc[from] {
		s.inc[from] = inc
	}
	s.ackers |= bit
	current := c.replicas[from].up && inc == c.replicas[from].sendInc
	if c.wal || current {
		s.intact |= bit
		s.forgot &^= bit
	}
	if current && !c.lostSinceAck(from, op, checksum) {
		// Only the life that sent the ack holds its copy by it: a WAL
		// replica's restart since re-examined its disk, and what it
		// restored it holds by that (swarm seed 3519988235 from
		// 0xd1ce0000: r1's ack of op 33, sent before a crash, landed
		// just after the restart that lost both copies of the op, and
		// counted r1 a holder of a copy it no longer had).
		c.hold(from, op, checksum)
	}
}

// countedAcks is the set of acks the primary of s.view could count now: its
// own, and every delivered ack from an incarnation no older than the latest it
// has seen of that replica.
func (c *Checker) countedAcks(s *ackSet) uint16 {
	p := c.primaryOf(s.view)
	known := &c.replicas[p].known
	var m uint16
	for i := 0; i < c.n; i++ {
		bit := uint16(1) << uint(i)
		if s.ackers&bit == 0 {
			continue
		}
		if i == p || s.inc[i] >= known[i] {
			m |= bit
		}
	}
	return m
}

// withdrawCopies: replica i lost its whole journal.
func (c *Checker) withdrawCopies(i int) {
	bit := uint16(1) << uint(i)
	for op := range c.acks {
		for k := range c.acks[op] {
			c.acks[op][k].intact &^= bit
		}
	}
}

// withdrawCopy: replica i dropped its copy of (op, checksum).
func (c *Checker) withdrawCopy(i int, op, checksum uint64) {
	if op >= uint64(len(c.acks)) {
		return
	}
	bit := uint16(1) << uint(i)
	for k := range c.acks[op] {
		if c.acks[op][k].checksum == checksum {
			c.acks[op][k].intact &^= bit
		}
	}
}

// intactQuorum returns an ack set of (op, checksum) from a view below before
// in which a replication quorum acked and still holds the op; withForgot
// counts as holding it the ackers a regressed superblock made forget it.
func (c *Checker) intactQuorum(op, checksum, before uint64, withForgot bool) (*ackSet, bool) {
	if op >= uint64(len(c.acks)) {
		return nil, false
	}
	for k := range c.acks[op] {
		s := &c.acks[op][k]
		holding := s.intact
		if withForgot {
			holding |= s.forgot
		}
		if s.checksum == checksum && s.view < before && popcount(s.ackers&holding) >= c.qRep {
			return s, true
		}
	}
	return nil, false
}

// mustSurvive reports whether (op, checksum) is bound to survive every view
// change from view before on: a replication quorum acked it in an earlier view
// and still holds it, and the same holds down its parent chain to the
// committed prefix, which it extends (a primary commits in order, so an op
// above a gap in its chain never committed and may be cut with the gap).
func (c *Checker) mustSurvive(op, checksum, before uint64, withForgot bool) (*ackSet, bool) {
	first, ok := c.intactQuorum(op, checksum, before, withForgot)
	if !ok {
		return nil, false
	}
	s := first
	for j := op - 1; j > 0; j-- {
		if j < uint64(len(c.committed)) && c.committed[j].checksum != 0 {
			return first, c.committed[j].checksum == s.parent
		}
		if s, ok = c.intactQuorum(j, s.parent, before, withForgot); !ok {
			return nil, false
		}
	}
	return first, true
}

// countedQuorumAck returns the ack set of (op, checksum) in view in which
// replica i's own ack is counted toward a replication quorum the primary
// could commit on. A replica that drops such a copy in the same view
// withdraws an ack a commit may already rest on: only a copy that never
// counted may be cut by a late StartView of its own view.
func (c *Checker) countedQuorumAck(i int, op, checksum, view uint64) (*ackSet, bool) {
	if op >= uint64(len(c.acks)) {
		return nil, false
	}
	bit := uint16(1) << uint(i)
	for k := range c.acks[op] {
		s := &c.acks[op][k]
		if s.view != view || s.checksum != checksum {
			continue
		}
		if got := c.countedAcks(s); got&bit != 0 && popcount(got) >= c.qRep {
			return s, true
		}
	}
	return nil, false
}

// lostSinceAck reports whether replica i's disk took its copy of (op,
// checksum) and it holds it no more: an ack of it delivered now left before
// the loss, since a replica acks only a copy it journaled and journaling it
// again holds it again. Within one life, a read in that life may find the
// copy gone after the ack left (D104: swarm seed 501962822 from 0x1dea0000,
// robust variant: r2's reads found both copies of op 1 damaged at t=208,
// its ack of t=184 reached the old primary at t=1039 and counted r2 a
// holder again, so the stall on op 1 went unexcused).
func (c *Checker) lostSinceAck(i int, op, checksum uint64) bool {
	b := c.findBody(op, checksum)
	return b != nil && b.lostToDisks()&(1<<uint(i)) != 0
}
