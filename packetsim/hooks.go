package packetsim

import (
	"slices"

	"vsrsim/prng"
)

// The scripted hooks below let a scenario shape the network by hand. None of
// them draws from the PRNG, so a scenario that adds a hook leaves the random
// draws of the run, and so every other packet's fate, unchanged.

// SetExtraDelay adds ticks to the delay of every packet later submitted from ->
// to, after all random draws. Either end may be AnyNode, meaning every
// replica. Packets already in flight keep their tick.
func (n *Network[P]) SetExtraDelay(from, to NodeID, ticks uint64) {
	assert(ticks <= ticksMax, "extra delay above the tick limit")
	fromLo, fromHi := n.nodes(from)
	toLo, toHi := n.nodes(to)
	for a := fromLo; a < fromHi; a++ {
		for b := toLo; b < toHi; b++ {
			n.links[n.linkIndex(a, b)].extra = ticks
		}
	}
}

// ExtraDelay returns the extra delay of the link from -> to (concrete ids).
func (n *Network[P]) ExtraDelay(from, to NodeID) uint64 {
	n.checkNode(from)
	n.checkNode(to)
	return n.links[n.linkIndex(from, to)].extra
}

// SetLinkDown cuts (or restores) the directed link from -> to: packets falling
// due on it are dropped as Partition. Either end may be AnyNode. Unlike random
// partitions this may cut a client's link, since the scenario names it.
func (n *Network[P]) SetLinkDown(from, to NodeID, down bool) {
	fromLo, fromHi := n.nodes(from)
	toLo, toHi := n.nodes(to)
	for a := fromLo; a < fromHi; a++ {
		for b := toLo; b < toHi; b++ {
			l := &n.links[n.linkIndex(a, b)]
			if down {
				l.cut |= cutLinkDown
			} else {
				l.cut &^= cutLinkDown
			}
		}
	}
}

// Hold makes packets falling due on from -> to wait instead of arriving, until
// Release or HealAll. Either end may be AnyNode. A hold beats a cut: a held
// packet is judged when it is released, not when it fell due.
func (n *Network[P]) Hold(from, to NodeID) {
	n.setHeld(from, to, true)
}

// Release ends a hold on from -> to: the packets it kept fall due at now, in
// the order they fell due before, after packets already queued for now. A link
// that is also clogged keeps them until it unclogs.
func (n *Network[P]) Release(now uint64, from, to NodeID) {
	n.advance(now)
	n.setHeld(from, to, false)
	n.unpark(now)
}

func (n *Network[P]) setHeld(from, to NodeID, held bool) {
	fromLo, fromHi := n.nodes(from)
	toLo, toHi := n.nodes(to)
	for a := fromLo; a < fromHi; a++ {
		for b := toLo; b < toHi; b++ {
			n.links[n.linkIndex(a, b)].held = held
		}
	}
}

// AddFilter installs f and returns its id for RemoveFilter. A packet for which
// any filter returns true is dropped at submit (Reason Filter) before any
// draw. Filters run in the order they were added.
func (n *Network[P]) AddFilter(f func(from, to NodeID, p P) bool) int {
	assert(f != nil, "AddFilter with a nil filter")
	n.filterNextID++
	n.filters = append(n.filters, filter[P]{id: n.filterNextID, f: f})
	return n.filterNextID
}

// RemoveFilter removes the filter with the given id; the id must be installed.
func (n *Network[P]) RemoveFilter(id int) {
	for i, f := range n.filters {
		if f.id == id {
			n.filters = slices.Delete(n.filters, i, i+1)
			return
		}
	}
	panic("packetsim: RemoveFilter with an id that is not installed")
}

// SetNodeDown marks a node crashed (or back up). Packets falling due for a down
// node are dropped (Reason Down); packets it sent before going down still
// arrive, as they were already on the wire.
func (n *Network[P]) SetNodeDown(id NodeID, down bool) {
	n.checkNode(id)
	n.nodeDown[id] = down
}

// SetFaultsEnabled turns the random faults on or off: partitions, heals,
// clogs, loss, replay and reorder. Off, Submit draws only the delay and Tick
// draws nothing. Turning faults off ends no fault in force (clogs still open at
// their tick, a random partition stays), and a loss drawn for a packet already
// in flight stands; call HealAll too for a clean network.
func (n *Network[P]) SetFaultsEnabled(on bool) {
	n.faults = on
}

// SetWeatherStream draws the per-tick faults (random partitions and clogs)
// from s instead of the packet stream, so turning them off leaves every
// packet's fate as it was. It draws nothing.
func (n *Network[P]) SetWeatherStream(s *prng.Stream) {
	if s != nil {
		n.weather = s
	}
}

// FaultsEnabled reports whether random faults are on.
func (n *Network[P]) FaultsEnabled() bool { return n.faults }

// HealAll ends every partition, random and scripted, restores every
// SetLinkDown link, opens every clog and releases every hold; the packets that
// waited fall due at the latest tick seen. It keeps filters, down nodes and
// extra delays, and does not turn random faults off: the random partition
// machine restarts healed, so the next random partition waits
// HealStabilityTicks.
func (n *Network[P]) HealAll() {
	for i := range n.links {
		l := &n.links[i]
		l.cut = 0
		l.held = false
		l.clogged, l.clogUntil = false, 0
	}
	n.clogs = 0
	n.randomPartitioned, n.randomSince = false, n.now
	n.unpark(n.now)
}

// SetOptions replaces the options in force from now on: packets already in
// flight keep their fate, later submits and ticks draw by the new ones. Nodes,
// Replicas and QueueLimit stay as New set them. Nonsense options are refused
// and change nothing.
func (n *Network[P]) SetOptions(o Options) error {
	o.Nodes, o.Replicas, o.QueueLimit = n.opts.Nodes, n.opts.Replicas, n.opts.QueueLimit
	o = o.withDefaults()
	if err := o.validate(); err != nil {
		return err
	}
	n.opts = o
	return nil
}
