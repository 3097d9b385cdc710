package packetsim

import "vsrsim/queue"

// Spare is the memory a finished network leaves for the next one: its slot
// pool and the backing arrays of its queue and lists. A sweep worker's runs
// then reuse them instead of growing their own. It is for one network at a
// time: Recycle fills it, the next Reuse empties it.
type Spare[P any] struct {
	slots   []Delivery[P]
	free    []int32
	pending []int32
	parked  []packet
	items   []queue.Item[packet]
}

// Recycle hands the network's memory to s, cleared; the network must not be
// used again.
func (n *Network[P]) Recycle(s *Spare[P]) {
	clear(n.slots)
	s.slots = n.slots[:0]
	s.free = n.free[:0]
	s.pending = n.pending[:0]
	s.parked = n.parked[:0]
	s.items = n.queue.Release()
	*n = Network[P]{}
}

// take moves s's memory into n, a network New is making, and empties s. It
// changes nothing the network does: every list starts empty either way, and
// the pool hands out slots in the same order.
func (s *Spare[P]) take(n *Network[P]) {
	n.slots, n.free, n.pending, n.parked = s.slots, s.free, s.pending, s.parked
	*s = Spare[P]{}
}
