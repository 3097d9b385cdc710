package sim

import "vsrsim/vsr"

// A primary's ack of its own prepare stands for a copy of the op only once the
// op's write has landed: a backup's ack is heard only then (its PrepareOk
// waits for its fence), and the primary counts its own only then
// (replica.Landed). So the oracle hears of it then too, from the disk's own
// record of what landed, and a crash before that takes it back unheard.

// ownAck is a primary's ack of its own prepare and the fence it stands on:
// every fenced write its replica asked for by the end of the step that made
// it, as the replica counts (replica.Landed); unset while that step runs.
type ownAck struct {
	p     vsr.Acked
	fence uint64
	set   bool
}

// reportOwnAck hands the oracle a replica's ack of its own prepare now, or,
// on a disk, once the writes of its step have landed.
func (c *Cluster) reportOwnAck(i int, p vsr.Acked) {
	if c.disks != nil && vsr.PrimaryOf(p.View, c.cfg.Replicas) == i {
		d := &c.disks.r[i]
		d.ownAcks = append(d.ownAcks, ownAck{p: p})
		return
	}
	c.checker.OwnAck(i, p.View, p.Op, p.Checksum, p.Parent)
}

// settleOwnAcks gives the own acks of replica i's step the fence of every
// write the step asked for, and reports those already landed.
func (c *Cluster) settleOwnAcks(i int) {
	d := &c.disks.r[i]
	if len(d.ownAcks) == 0 {
		return
	}
	for k := range d.ownAcks {
		if a := &d.ownAcks[k]; !a.set {
			a.fence, a.set = d.fences, true
		}
	}
	c.releaseOwnAcks(i, d)
}

// releaseOwnAcks reports the own acks of replica i whose writes have landed,
// in the order they were made.
func (c *Cluster) releaseOwnAcks(i int, d *diskOf) {
	landed := d.landedFences()
	kept := 0
	for _, a := range d.ownAcks {
		if !a.set || a.fence > landed {
			d.ownAcks[kept] = a
			kept++
			continue
		}
		p := &a.p
		c.checker.OwnAck(i, p.View, p.Op, p.Checksum, p.Parent)
	}
	d.ownAcks = d.ownAcks[:kept]
}
