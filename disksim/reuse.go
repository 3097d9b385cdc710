package disksim

import "vsrsim/queue"

// Reusing a finished disk's memory (NewFrom). Only land and tear put bytes
// on the media, and both mark their slot landed: clearing the landed slots
// leaves every byte zero, as a new disk's.

// takeMedia moves old's media, slot state and write buffers into d, a disk
// of the same layout NewFrom is making, cleared.
func (d *Disk) takeMedia(old *Disk) {
	for i, ok := range old.landed {
		if ok {
			z, slot := old.lay.slotAt(i)
			lo, hi := old.lay.bytes(z, slot)
			clear(old.media[lo:hi])
		}
	}
	clear(old.damaged)
	clear(old.slots)
	clear(old.landed)
	// Peek hands the zeroes out: cleared again, whatever a caller did.
	clear(old.zeroes)
	d.media, d.damaged, d.slots, d.landed = old.media, old.damaged, old.slots, old.landed
	d.zeroes, d.readBuf = old.zeroes, old.readBuf
	// A write fills its buffer before it is read, so any buffer serves.
	d.bufs, d.free = old.bufs, old.free[:0]
	for b := len(d.bufs) - 1; b >= 0; b-- {
		d.free = append(d.free, int32(b))
	}
	*old = Disk{}
}

// pendingItems is the backing array of a finished disk's queue of writes, for
// the next disk's; nil for none.
func (d *Disk) pendingItems() []queue.Item[pendingWrite] {
	if d == nil || d.pending == nil {
		return nil
	}
	return d.pending.Release()
}

// rotItems is the same of its decays.
func (d *Disk) rotItems() []queue.Item[rotEntry] {
	if d == nil || d.rot == nil {
		return nil
	}
	return d.rot.Release()
}

// slotAt is the zone and slot of a disk-wide slot index.
func (l *layout) slotAt(i int) (Zone, int) {
	z := zoneCount - 1
	for l.firstSlot[z] > i {
		z--
	}
	return z, i - l.firstSlot[z]
}
