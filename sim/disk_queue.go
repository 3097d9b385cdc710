package sim

import (
	"slices"

	"vsrsim/disksim"
	"vsrsim/vsr"
)

// The fenced disk I/O queue of each replica: the writes a step asks for start
// on the disk in the order asked for, unless they must wait (a write to a
// slot in flight, a header copy for its prepare, a superblock batch for every
// earlier write), and a fenced write's landing lets go of the messages
// waiting on it (storage_send.go).

type deferredWrite struct {
	zone  disksim.Zone
	slot  int
	data  []byte
	fence uint64 // 0: not fenced
	batch uint64 // superblock copies of one version share a batch; 0 for the journal
	// entry is what its bytes carry (entryOf), read once as the step asked
	// for it (decodeWrites).
	entry entryID
	// after is the superblock batch a journal write waits to land first
	// (vsr.Write.AfterSuperblock); 0: none.
	after uint64
}

type slotKey struct {
	zone disksim.Zone
	slot int
}

// inFlightWrite is a write on the disk: its id, its slot, the journal entry
// it carries (none for the superblock), its superblock batch (0 for the
// journal) and its fence (0: not fenced).
type inFlightWrite struct {
	id    disksim.WriteID
	key   slotKey
	entry entryID
	batch uint64
	fence uint64
}

// writes hands a step's writes to replica i's disk, in the order asked for:
// each starts now if it may (mayStart), or waits in line.
func (c *Cluster) writes(i int) {
	d := &c.disks.r[i]
	out := &c.out
	batch := uint64(0)
	for k := range out.Writes {
		w := &out.Writes[k]
		fence := uint64(0)
		if w.Fenced {
			d.fences++
			fence = d.fences
			d.open = append(d.open, fence)
		}
		dw := deferredWrite{zone: disksim.Zone(w.Zone), slot: w.Slot, fence: fence, entry: c.stepEntries[k]}
		if _, journal := zoneIndex(dw.zone); journal && fence != 0 {
			d.slotFence[w.Slot] = fence
		}
		if w.Zone == vsr.ZoneSuperblock {
			if batch == 0 {
				d.batches++
				batch = d.batches
			}
			dw.batch = batch
		}
		if w.AfterSuperblock {
			// The replica asks for it after the step's superblock; none
			// asked leaves nothing to wait for.
			dw.after = batch
		}
		if d.mayStart(&dw, len(d.deferred)) {
			c.submitWrite(d, &dw, out.Bytes(w))
			continue
		}
		dw.data = append(d.takeBuf(), out.Bytes(w)...)
		d.deferred = append(d.deferred, dw)
	}
}

// takeBuf returns an empty buffer for a waiting write's bytes.
func (d *diskOf) takeBuf() []byte {
	if k := len(d.bufs); k > 0 {
		b := d.bufs[k-1]
		d.bufs = d.bufs[:k-1]
		return b
	}
	return make([]byte, 0, vsr.PrepareRecordBytes)
}

// mayStart reports whether a write may go to the disk now, with the first
// ahead writes of the waiting line before it. A journal write waits for a
// write to its slot in flight or waiting ahead (a disk may land two writes
// to one slot in either order), a header copy also for its slot's prepare
// (the prepare lands first, so a header copy never names an op newer than
// the prepare beside it unless the disk lost a write), both for a
// superblock batch waiting ahead, and a blank asked after its step's
// superblock for that batch, in flight too (D71). A superblock copy waits for every write
// ahead of it and in flight but the copies of its own version.
func (d *diskOf) mayStart(w *deferredWrite, ahead int) bool {
	if w.batch != 0 {
		for k := 0; k < ahead; k++ {
			if !d.deferred[k].rewrite() {
				return false
			}
		}
		for k := range d.inFlight {
			if f := &d.inFlight[k]; f.batch != w.batch && !f.rewrite() {
				return false
			}
		}
		return true
	}
	if d.busyAt(w.zone, w.slot) > 0 || (w.after != 0 && d.batchOpen(w.after, ahead)) {
		return false
	}
	if w.zone == disksim.ZoneHeaders && d.busyAt(disksim.ZonePrepares, w.slot) > 0 {
		return false
	}
	for k := 0; k < ahead; k++ {
		if a := &d.deferred[k]; a.batch != 0 || a.slot == w.slot {
			return false
		}
	}
	return true
}

// batchOpen reports whether a copy of superblock batch b waits among the
// first ahead writes of the line or is in flight.
func (d *diskOf) batchOpen(b uint64, ahead int) bool {
	for k := 0; k < ahead; k++ {
		if d.deferred[k].batch == b {
			return true
		}
	}
	for k := range d.inFlight {
		if d.inFlight[k].batch == b {
			return true
		}
	}
	return false
}

// decodeWrites reads, once, the entry each write of the step carries
// (entryOf): the queue keeps it with the write, the protocol model reads it.
func (c *Cluster) decodeWrites() {
	c.stepEntries = c.stepEntries[:0]
	for k := range c.out.Writes {
		w := &c.out.Writes[k]
		c.stepEntries = append(c.stepEntries, c.entryOf(disksim.Zone(w.Zone), w.Slot, c.out.Bytes(w)))
	}
}

// submitWrite puts a write on the disk and notes what waits for it.
func (c *Cluster) submitWrite(d *diskOf, w *deferredWrite, data []byte) {
	entry := w.entry
	fate := keepWrite
	if c.disks.rewrite != nil {
		fate = c.aimLostRewriteCopy(d, w.zone, w.slot, entry)
	}
	id := d.disk.Write(c.now, w.zone, w.slot, data)
	switch fate {
	case loseWrite:
		d.disk.LoseWrite(id)
	case spoilWrite:
		d.disk.DamageWrite(id)
	}
	if due, ok := d.disk.NextDue(); ok {
		d.due = min(d.due, due)
		c.disks.nextDue = min(c.disks.nextDue, due)
	}
	// Ids grow with every write, so the list stays in id order.
	d.inFlight = append(d.inFlight, inFlightWrite{id: id, key: slotKey{w.zone, w.slot},
		entry: entry, batch: w.batch, fence: w.fence})
	if n := d.busySlot(w.zone, w.slot); n != nil {
		*n++
	}
}

// busyAt is how many writes to a journal or checkpoint slot are in flight
// (none is asked of a superblock slot outside a batch).
func (d *diskOf) busyAt(z disksim.Zone, slot int) uint16 {
	if n := d.busySlot(z, slot); n != nil {
		return *n
	}
	return 0
}

// busySlot is the count of writes in flight to a journal or checkpoint
// slot; nil for a superblock copy (its batch orders it instead).
func (d *diskOf) busySlot(z disksim.Zone, slot int) *uint16 {
	if zi, journal := zoneIndex(z); journal {
		return &d.busy[zi][slot]
	}
	if z == disksim.ZoneCheckpoint {
		return &d.busyCheckpoint[slot]
	}
	return nil
}

// inFlightAt is where write id stands in the list of writes in flight (in
// id order): a binary search written out, as slices.BinarySearchFunc's
// call of a comparison for each probe was 1% of a busy run on disks.
func (d *diskOf) inFlightAt(id disksim.WriteID) (int, bool) {
	lo, hi := 0, len(d.inFlight)
	for lo < hi {
		if m := int(uint(lo+hi) >> 1); d.inFlight[m].id < id {
			lo = m + 1
		} else {
			hi = m
		}
	}
	return lo, lo < len(d.inFlight) && d.inFlight[lo].id == id
}

// landed forgets a write that landed and, if fenced, its fence.
func (c *Cluster) landed(d *diskOf, id disksim.WriteID) {
	k, ok := d.inFlightAt(id)
	if !ok {
		return
	}
	f := d.inFlight[k]
	d.inFlight = slices.Delete(d.inFlight, k, k+1)
	d.noteLanded(f)
	if n := d.busySlot(f.key.zone, f.key.slot); n != nil {
		*n--
	}
	if f.fence != 0 {
		if k, ok := slices.BinarySearch(d.open, f.fence); ok {
			d.open = slices.Delete(d.open, k, k+1)
		}
	}
}

// startDeferred starts the waiting writes that may start now, in order.
func (c *Cluster) startDeferred(d *diskOf) {
	kept := 0
	for k := range d.deferred {
		w := d.deferred[k]
		if d.mayStart(&w, kept) {
			c.submitWrite(d, &w, w.data)
			d.bufs = append(d.bufs, w.data[:0])
			continue
		}
		d.deferred[kept] = w
		kept++
	}
	d.deferred = d.deferred[:kept]
}

// landedFences is how many of the fenced writes the replica asked for since
// it started have landed, counted from the first: every fence below the
// first one open.
func (d *diskOf) landedFences() uint64 {
	if len(d.open) == 0 {
		return d.fences
	}
	return d.open[0] - 1
}

// rewrite reports whether a waiting write is an unfenced journal write (the
// scrubber's mend of an entry one copy still holds): a superblock batch need
// not wait for it, as it names nothing the superblock points to that is not
// on the disk already.
func (w *deferredWrite) rewrite() bool {
	_, journal := zoneIndex(w.zone)
	return journal && w.fence == 0
}

// rewrite is the same of a write in flight.
func (f *inFlightWrite) rewrite() bool {
	_, journal := zoneIndex(f.key.zone)
	return journal && f.fence == 0 && f.batch == 0
}
