package sim

import "vsrsim/disksim"

// A finished run's storage is memory for the next run of its worker
// (Attach.Spare): each disk's media (disksim.NewFrom) and the per-slot
// arrays the harness keeps beside it, a few hundred kilobytes a replica that
// a run on disks otherwise allocates afresh. What comes back is cleared, so
// no run can tell.

// takeDisks returns the storage spare holds, if any, and forgets it.
func (s *Spare) takeDisks() *disks {
	if s == nil {
		return nil
	}
	ds := s.disks
	s.disks = nil
	return ds
}

// disk is replica i's finished disk, if old had one.
func (old *disks) disk(i int) *disksim.Disk {
	if old == nil || i >= len(old.r) {
		return nil
	}
	return old.r[i].disk
}

// takeDiskOf is replica i's harness state for a journal of slots, empty, on
// the per-slot arrays of old's replica i where they fit.
func (old *disks) takeDiskOf(i, slots int) diskOf {
	if old == nil || i >= len(old.r) || len(old.r[i].slotFence) != slots {
		return diskOf{ledger: newLedger(slots), slotFence: make([]uint64, slots),
			busy: [2][]uint16{make([]uint16, slots), make([]uint16, slots)}}
	}
	o := &old.r[i]
	for k := range o.deferred {
		o.bufs = append(o.bufs, o.deferred[k].data[:0])
	}
	clear(o.ledger.want[0])
	clear(o.ledger.want[1])
	clear(o.slotFence)
	clear(o.busy[0])
	clear(o.busy[1])
	// Its lists start empty, on the arrays they grew to.
	clear(o.held) // messages hold pointers: let them go
	return diskOf{ledger: ledger{want: o.ledger.want}, slotFence: o.slotFence, busy: o.busy, bufs: o.bufs,
		open: o.open[:0], inFlight: o.inFlight[:0], deferred: o.deferred[:0], held: o.held[:0],
		ownAcks: o.ownAcks[:0], reads: o.reads[:0], loseHeader: o.loseHeader[:0], spoilHeader: o.spoilHeader[:0], cpLost: o.cpLost[:0]}
}

// takeBuffers gives ds old's buffers of completions and reads, empty.
func (ds *disks) takeBuffers(old *disks) {
	if old != nil {
		ds.completions, ds.readBuf = old.completions[:0], old.readBuf[:0]
	}
}
