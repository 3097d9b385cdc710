package sim

import (
	"fmt"

	"vsrsim/disksim"
	"vsrsim/prng"
	"vsrsim/vsr"
)

// Aimed storage faults (Storage.AimedCorrupt, AimedMisdirect): faults the
// swarm points at the copies a wrong recovery would lose, where the atlas
// allows them: the op a backup alone acknowledged, damaged at its crash, or
// the next op's prepare landed on it.

const ackRing = 256

type ackedOp struct {
	op      uint64
	backups uint16
}

// aimMisdirect notes op as replica i's last acknowledged op and, with chance
// AimedMisdirect and where the atlas allows, arms its disk to land the next
// op's prepare on op's slot.
func (c *Cluster) aimMisdirect(i int, op uint64) {
	d := &c.disks.r[i]
	d.acked = op
	a := &c.disks.ackedBy[op%ackRing]
	if a.op != op {
		*a = ackedOp{op: op}
	}
	a.backups |= 1 << uint(i)
	if !c.disks.aimed.Chance(c.cfg.Storage.AimedMisdirect) || d.disk.Armed() >= disksim.ArmedMax/2 {
		return
	}
	if a.backups != 1<<uint(i) {
		// Another backup holds op already: the copy this would spoil is
		// not one the cluster may be left without.
		return
	}
	n := uint64(c.cfg.JournalSlots)
	from, to := int((op+1)%n), int(op%n)
	if c.disks.atlas.Off() || (c.disks.atlas.MayFault(i, disksim.ZonePrepares, from) && c.disks.atlas.MayFault(i, disksim.ZonePrepares, to)) {
		d.disk.Misdirect(disksim.ZonePrepares, from, to)
		c.Note(fmt.Sprintf("aimed misdirect r%d: op %d's prepare will land on op %d's slot", i, op+1, op))
	}
}

// aimCorrupt, with chance AimedCorrupt and where the atlas allows, damages
// both copies of the slot of the op below replica i's last acknowledged one
// as it crashes.
func (c *Cluster) aimCorrupt(i int) {
	d := &c.disks.r[i]
	if d.acked < 2 || !(c.disks.aimed.Chance(c.cfg.Storage.AimedCorrupt) || c.aimQuiet(i)) {
		return
	}
	op := c.aimedOp(i)
	slot := int(op % uint64(c.cfg.JournalSlots))
	a := c.disks.atlas
	if !a.Off() && (!a.MayFault(i, disksim.ZoneHeaders, slot) || !a.MayFault(i, disksim.ZonePrepares, slot)) {
		return
	}
	c.Note(fmt.Sprintf("aimed corrupt r%d: op %d, acknowledged just before its last ack", i, op))
	d.disk.Corrupt(c.now, disksim.ZoneHeaders, slot)
	d.disk.Corrupt(c.now, disksim.ZonePrepares, slot)
}

// aimQuiet draws, with chance AimedQuietCorrupt, whether replica i's crash
// takes the aimed corruption because its disk met no fault yet in the run.
func (c *Cluster) aimQuiet(i int) bool {
	q := c.cfg.Storage.AimedQuietCorrupt
	if q.Zero() || len(c.disks.r[i].disk.Faults()) > 0 {
		return false
	}
	if c.disks.quiet == nil {
		c.disks.quiet = prng.New(c.cfg.Seed, prng.StreamDiskQuiet)
	}
	return c.disks.quiet.Chance(q)
}

// aimedOp is the op an aimed corruption of replica i hits: below its last
// acknowledged op (so its head stays one it can describe), preferring, within
// the last 32, one that no other backup acknowledged, so that its primary and
// this replica may be the only copies: the copy a restart must not vote away.
func (c *Cluster) aimedOp(i int) uint64 {
	d := &c.disks.r[i]
	bit := uint16(1) << uint(i)
	for op := d.acked - 1; op >= 1 && op+32 >= d.acked; op-- {
		if a := &c.disks.ackedBy[op%ackRing]; a.op == op && a.backups == bit {
			return op
		}
	}
	return d.acked - 1
}

// aimCheckpoint, with chance AimedCheckpoint and where the atlas allows,
// damages a sector of the state in replica i's newest landed checkpoint
// record as it crashes (not the first, which names the checkpoint): the
// restart must not restore it.
func (c *Cluster) aimCheckpoint(i int) {
	if c.cfg.Storage.AimedCheckpoint.Zero() || !c.disks.aimed.Chance(c.cfg.Storage.AimedCheckpoint) {
		return
	}
	d := &c.disks.r[i]
	slot, top := -1, uint64(0)
	for s, w := range d.ledger.checkpoint {
		if w.op > top {
			slot, top = s, w.op
		}
	}
	if slot < 0 {
		return
	}
	if a := c.disks.atlas; !a.Off() && !a.MayFault(i, disksim.ZoneCheckpoint, slot) {
		return
	}
	sectors := uint64(vsr.CheckpointRecordBytes / diskSectorSize)
	sector := 1 + int(c.disks.aimed.Uint64N(sectors-1))
	c.Note(fmt.Sprintf("aimed checkpoint r%d: op %d's record, sector %d", i, top, sector))
	d.disk.CorruptSector(c.now, disksim.ZoneCheckpoint, slot, sector)
}

// aimSuperblockLoss, with chance AimedSuperblockLoss and only with the atlas
// off, damages every superblock copy of replica i's disk as it crashes: a
// fault past what the protocol promises to survive (the atlas keeps one copy
// whole), so the oracle judges what follows under storage-beyond-f. The
// restart finds no copy and comes back amnesiac. Once a run: a second
// replica's loss, before the first caught up, would leave more than f
// amnesiac, and every replica recovering waits for a StartView none can
// send (swarm seed 93 while the aim was per crash).
func (c *Cluster) aimSuperblockLoss(i int) {
	if c.disks.superblockLoss == nil || c.disks.superblockLost || !c.disks.superblockLoss.Chance(c.cfg.Storage.AimedSuperblockLoss) {
		return
	}
	c.disks.superblockLost = true
	d := c.disks.r[i].disk
	c.Note(fmt.Sprintf("aimed superblock loss r%d: every copy damaged", i))
	for s := 0; s < diskSuperblocks; s++ {
		d.Corrupt(c.now, disksim.ZoneSuperblock, s)
	}
}
