package sim

import (
	"fmt"
	"slices"

	"vsrsim/disksim"
	"vsrsim/prng"
	"vsrsim/vsr"
)

// Reads in a replica's life (issue 38 item 1; docs/storage.md "Reads"): a
// replica on a disk serves a repair from what its disk returns. The reads a
// step asks for (Output.Reads) take the disk's latency (the write latency's
// shape, drawn from a stream of their own) and read the media when they fall
// due, drawing a latent error as a restart's reads do; the bytes go back to
// the replica in a ReadDone, a step of its own. A crash ends the reads in
// flight: the replica that asked is gone.
//
// The oracle learns of a copy a read could not find from the disk's record,
// never from the replica: when a read of the header ring's copy (the last a
// replica reads, after its prepare copy failed) does not hold the entry
// asked for and no write of the slot is still in flight (the replica then
// serves its write's buffer), the harness re-examines that one entry
// against the disk (both records, as a restart reads them). If neither
// holds it whole, the replica gives the body up, and the oracle withdraws
// its copy as it does at a restart, counted lost to the disk where a write
// of it had landed. A replica that never reads the second copy (one that
// serves what it read) keeps its body, and the oracle its copy.

// readInFlight is a read a replica asked for, due at a tick.
type readInFlight struct {
	due  uint64
	read vsr.Read
}

// asks takes the reads replica i's step asked for onto its disk's read line,
// in due order (ties in the order asked).
func (c *Cluster) asks(i int) {
	if len(c.out.Reads) == 0 {
		return
	}
	d := &c.disks.r[i]
	s := &c.cfg.Storage
	for _, rd := range c.out.Reads {
		due := c.now + s.LatencyMinTicks + c.disks.readLatency.Exponential(s.LatencyMeanTicks)
		k := len(d.reads)
		for k > 0 && d.reads[k-1].due > due {
			k--
		}
		d.reads = append(d.reads, readInFlight{})
		copy(d.reads[k+1:], d.reads[k:])
		d.reads[k] = readInFlight{due: due, read: rd}
		d.due = min(d.due, due)
		c.disks.nextDue = min(c.disks.nextDue, due)
	}
}

// nextRead is the tick replica i's next read falls due, if one is in flight.
func (d *diskOf) nextRead() (uint64, bool) {
	if len(d.reads) == 0 {
		return 0, false
	}
	return d.reads[0].due, true
}

// completeReads hands replica i the reads due by now, in due order. A read
// the step it completes asks for (the other copy) joins the line.
func (c *Cluster) completeReads(i int) {
	d := &c.disks.r[i]
	for len(d.reads) > 0 && d.reads[0].due <= c.now {
		rd := d.reads[0].read
		d.reads = append(d.reads[:0], d.reads[1:]...)
		r := c.replicas[i]
		if r == nil {
			continue
		}
		data, ioErr := d.disk.Read(c.now, disksim.Zone(rd.Zone), rd.Slot)
		// The disk's buffer serves its next read (the examination's):
		// the replica gets a copy.
		c.disks.readBuf = append(c.disks.readBuf[:0], data...)
		data = c.disks.readBuf
		c.traceFaults(i)
		if rd.Zone == vsr.ZoneHeaders && c.entryIn(disksim.Zone(rd.Zone), rd.Slot, data, ioErr) != (entryID{rd.Op, rd.Checksum}) {
			c.examineRead(i, rd.Slot, entryID{rd.Op, rd.Checksum})
			if c.spec != nil {
				c.spec.ReadFailed(i, rd.Op) // the body may leave the journal
			}
		}
		c.out.Reset()
		r.ReadDone(&vsr.ReadDone{Read: rd, Data: data, IOErr: ioErr}, &c.out)
		c.flush(i)
	}
}

// examineRead re-examines the one entry a read of replica i's slot did not
// find, unless a write of the slot is still in flight (the replica's own
// fence count says so, as the replica's does).
func (c *Cluster) examineRead(i, slot int, e entryID) {
	d := &c.disks.r[i]
	if d.slotFence[slot] > d.landedFences() {
		return
	}
	c.checker.DiskCopies(c.slotFaultedAt(d, slot), i, func(op, sum uint64) (bool, bool) {
		if op != e.op || sum != e.sum {
			return true, true // not examined: this read says nothing of it
		}
		return c.intact(d, op, sum)
	})
}

// slotFaultedAt is when the disk's record last struck journal slot slot of
// d (either copy, or a write misdirected onto it): a copy a read finds gone
// was lost then, not when the read found it, so an excuse built on the loss
// holds from then (CI's search on 314a345: op 10's copies on a live replica
// were lost at t=3669, a read found it at t=5194, and the stall that began
// at t=5097 was refused the excuse as if the loss came after it). Now if
// the record shows none.
func (c *Cluster) slotFaultedAt(d *diskOf, slot int) uint64 {
	at := uint64(0)
	for _, f := range d.disk.Faults() {
		if _, journal := zoneIndex(f.Zone); journal && (f.Slot == slot || f.Target == slot) {
			at = max(at, f.Tick)
		}
	}
	if at == 0 || at > c.now {
		return c.now
	}
	return at
}

// writeFate is what an aimed lost rewrite makes of a write: nothing, lost,
// or landed damaged.
type writeFate uint8

const (
	keepWrite writeFate = iota
	loseWrite
	spoilWrite
)

// aimLostRewriteCopy decides the fate of a write of zone z at replica d's
// slot: a prepare copy's is lost by aimLostRewrite, which half the time (its
// own stream, where the atlas allows the slot's header copy to be faulty)
// marks the header copy's rewrite after it to go too (D75), and otherwise,
// with chance AimedSpoilRewrite (a stream of its own), to land damaged
// (D123); a header copy's as so marked.
func (c *Cluster) aimLostRewriteCopy(d *diskOf, z disksim.Zone, slot int, next entryID) writeFate {
	switch z {
	case disksim.ZonePrepares:
		if !c.aimLostRewrite(d, slot, next) {
			return keepWrite
		}
		// Half the time the header copy's rewrite goes too: both copies
		// keep the older entry, which verifies on its own and names
		// nothing newer, and only the durable head's chain tells it from
		// the op the log names (breakOffChain; D57).
		i := d.disk.Replica()
		if !c.disks.atlas.MayFault(i, disksim.ZoneHeaders, slot) {
			return loseWrite
		}
		if c.disks.rewriteBoth.Chance(prng.Ratio{Num: 1, Den: 2}) {
			d.loseHeader = append(d.loseHeader, slot)
		} else if c.disks.rewriteSpoil != nil && c.disks.rewriteSpoil.Chance(c.cfg.Storage.AimedSpoilRewrite) {
			// The header copy's rewrite lands unreadable: a restart
			// reads the older prepare beside a header copy it cannot
			// read, the older entry of an op it may have acked last,
			// which it must not take for the op (kept-prepare-at-ack-head-trusted).
			d.spoilHeader = append(d.spoilHeader, slot)
			c.aimSpoiledCrash(i, slot)
		}
		return loseWrite
	case disksim.ZoneHeaders:
		if k := slices.Index(d.loseHeader, slot); k >= 0 {
			d.loseHeader = slices.Delete(d.loseHeader, k, k+1)
			c.Note(fmt.Sprintf("aimed lost rewrite r%d headers/%d: the header copy stays too", d.disk.Replica(), slot))
			return loseWrite
		}
		if k := slices.Index(d.spoilHeader, slot); k >= 0 {
			d.spoilHeader = slices.Delete(d.spoilHeader, k, k+1)
			c.Note(fmt.Sprintf("aimed lost rewrite r%d headers/%d: the header copy lands damaged", d.disk.Replica(), slot))
			return spoilWrite
		}
	}
	return keepWrite
}

// aimLostRewrite, with chance AimedLostRewrite and where the atlas allows,
// loses the write of a prepare copy about to go to replica d's slot when the
// media holds another entry of the same op there and the write replaces it
// (another body of that op) or takes it out (a blank): the slot keeps the
// older op, which verifies on its own. A lost write alone rarely leaves an
// op of the same number behind; this is the stale copy a repair read must
// refuse (repair-serves-unread). It reports whether to lose the write; the
// disk records it as a scripted lost write (disksim.LoseWrite), so the
// oracle's proofs list it.
func (c *Cluster) aimLostRewrite(d *diskOf, slot int, next entryID) bool {
	buf, ioErr := d.disk.Peek(disksim.ZonePrepares, slot)
	held := c.entryIn(disksim.ZonePrepares, slot, buf, ioErr)
	if held.op == 0 || next == held || (next.op != 0 && next.op != held.op) {
		return false
	}
	i := d.disk.Replica()
	// A disk the liveness phase cleaned (a core replica's) takes no aimed
	// fault either: a lost rewrite aimed at every rewrite of a slot made a
	// core replica set one op aside and repair it forever (seed 15 of
	// source-abdication-off-stall-c0ffee.vsr under the robust protocol).
	if !d.disk.FaultsEnabled() || !c.disks.atlas.MayFault(i, disksim.ZonePrepares, slot) || !c.disks.rewrite.Chance(c.cfg.Storage.AimedLostRewrite) {
		return false
	}
	c.Note(fmt.Sprintf("aimed lost rewrite r%d prepares/%d: op %d stays", i, slot, held.op))
	c.aimStaleAsk(i, held.op)
	return true
}
