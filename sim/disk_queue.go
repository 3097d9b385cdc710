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
}

type slotKey struct {
	zone disksim.Zone
	slot int
}

// inFlightWrite is a write on the disk: its slot, and the journal entry it
// carries (none for the superblock).
type inFlightWrite struct {
	key   slotKey
	entry entryID
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
		dw := deferredWrite{zone: disksim.Zone(w.Zone), slot: w.Slot, fence: fence}
		if w.Zone == vsr.ZoneSuperblock {
			if batch == 0 {
				d.batches++
				batch = d.batches
			}
			dw.batch = batch
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
// the prepare beside it unless the disk lost a write), and both for a
// superblock batch waiting ahead. A superblock copy waits for every write
// ahead of it and in flight but the copies of its own version.
func (d *diskOf) mayStart(w *deferredWrite, ahead int) bool {
	if w.batch != 0 {
		if ahead > 0 {
			return false
		}
		for _, id := range d.inFlight {
			if d.batchOf(id) != w.batch {
				return false
			}
		}
		return true
	}
	if d.busy[slotKey{w.zone, w.slot}] > 0 {
		return false
	}
	if w.zone == disksim.ZoneHeaders && d.busy[slotKey{disksim.ZonePrepares, w.slot}] > 0 {
		return false
	}
	for k := 0; k < ahead; k++ {
		if a := &d.deferred[k]; a.batch != 0 || a.slot == w.slot {
			return false
		}
	}
	return true
}

// submitWrite puts a write on the disk and notes what waits for it.
func (c *Cluster) submitWrite(d *diskOf, w *deferredWrite, data []byte) {
	id := d.disk.Write(c.now, w.zone, w.slot, data)
	if due, ok := d.disk.NextDue(); ok && due < c.disks.nextDue {
		c.disks.nextDue = due
	}
	d.inFlight = append(d.inFlight, id)
	key := slotKey{w.zone, w.slot}
	d.slotOf[id] = inFlightWrite{key: key, entry: c.entryOf(w.zone, w.slot, data)}
	d.busy[key]++
	if w.batch != 0 {
		d.batchIn[id] = w.batch
	}
	if w.fence != 0 {
		d.fenced[id] = w.fence
	}
}

// batchOf is the superblock batch of a write in flight, 0 for the journal.
func (d *diskOf) batchOf(id disksim.WriteID) uint64 { return d.batchIn[id] }

// landed forgets a write that landed and, if fenced, its fence.
func (c *Cluster) landed(d *diskOf, id disksim.WriteID) {
	if k, ok := slices.BinarySearch(d.inFlight, id); ok {
		d.inFlight = slices.Delete(d.inFlight, k, k+1)
	}
	if f, ok := d.slotOf[id]; ok {
		key := f.key
		d.noteLanded(f)
		delete(d.slotOf, id)
		if d.busy[key]--; d.busy[key] == 0 {
			delete(d.busy, key)
		}
	}
	delete(d.batchIn, id)
	if f, ok := d.fenced[id]; ok {
		delete(d.fenced, id)
		if k, ok := slices.BinarySearch(d.open, f); ok {
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
