package sim

import "vsrsim/replica"

// A primary's ack of its own prepare stands for a copy of the op only once the
// op's write has landed: a backup's ack is heard only then (its PrepareOk
// waits for its fence), and the primary counts its own only then
// (replica.Landed). So the oracle hears of it then too, from the disk's own
// record of what landed, and a crash before that takes it back unheard.

// reportOwnAck hands the oracle a replica's ack of its own prepare now, or,
// on a disk with the ack's write still in flight, once it lands.
func (c *Cluster) reportOwnAck(i int, p replica.Acked) {
	if c.disks != nil && replica.PrimaryOf(p.View, c.cfg.Replicas) == i {
		d := &c.disks.r[i]
		if p.Fence > d.landedFences() {
			d.ownAcks = append(d.ownAcks, p)
			return
		}
	}
	c.checker.OwnAck(i, p.View, p.Op, p.Checksum, p.Parent)
}

// settleOwnAcks gives the own acks of replica i's step the fence of every
// write the step asked for, as the replica does (replica.FencePending), and
// reports those already landed.
func (c *Cluster) settleOwnAcks(i int) {
	d := &c.disks.r[i]
	if len(d.ownAcks) == 0 {
		return
	}
	for k := range d.ownAcks {
		if d.ownAcks[k].Fence == replica.FencePending {
			d.ownAcks[k].Fence = d.fences
		}
	}
	c.releaseOwnAcks(i, d)
}

// releaseOwnAcks reports the own acks of replica i whose writes have landed,
// in the order they were made.
func (c *Cluster) releaseOwnAcks(i int, d *diskOf) {
	landed := d.landedFences()
	kept := 0
	for _, p := range d.ownAcks {
		if p.Fence > landed {
			d.ownAcks[kept] = p
			kept++
			continue
		}
		c.checker.OwnAck(i, p.View, p.Op, p.Checksum, p.Parent)
	}
	d.ownAcks = d.ownAcks[:kept]
}
