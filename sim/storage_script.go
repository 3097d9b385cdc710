package sim

import (
	"fmt"

	"vsrsim/disksim"
	"vsrsim/vsr"
)

// Storage actions of scenario scripts and files: damage a slot's copies or a
// superblock, arm a misdirected write. They apply whatever the atlas says,
// and the disk records one it forbade as such.

// errNoDisk is the one-line error of a storage action in a run without disks.
var errNoDisk = fmt.Errorf("no disks: storage actions need storage on (a storage setting) and a write-ahead journal")

// CorruptEntry damages the copies of op's journal slot on replica i's disk
// (which may be down): the header ring's, the prepare's, or both. The damage
// lasts until the slot is written again.
func (c *Cluster) CorruptEntry(i int, op uint64, which EntryCopy) error {
	if c.disks == nil {
		return errNoDisk
	}
	d := c.disks.r[i].disk
	slot := int(op % uint64(c.cfg.JournalSlots))
	if which&EntryHeader != 0 {
		d.Corrupt(c.now, disksim.ZoneHeaders, slot)
	}
	if which&EntryBody != 0 {
		d.Corrupt(c.now, disksim.ZonePrepares, slot)
	}
	c.traceFaults(i)
	return nil
}

// CorruptSuperblock damages every superblock copy of replica i's disk but the
// last, which a script may then leave for a torn or later write to spoil.
func (c *Cluster) CorruptSuperblock(i int) error {
	if c.disks == nil {
		return errNoDisk
	}
	for s := 0; s < diskSuperblocks-1; s++ {
		c.disks.r[i].disk.Corrupt(c.now, disksim.ZoneSuperblock, s)
	}
	c.traceFaults(i)
	return nil
}

// CorruptCheckpoints damages the second sector of both checkpoint records
// of replica i's disk: the part of the state past the first keys, so a
// record still names its checkpoint while its state no longer hashes to
// its digest.
func (c *Cluster) CorruptCheckpoints(i int) error {
	if c.disks == nil {
		return errNoDisk
	}
	for s := 0; s < vsr.CheckpointSlots; s++ {
		c.disks.r[i].disk.CorruptSector(c.now, disksim.ZoneCheckpoint, s, 1)
	}
	c.traceFaults(i)
	return nil
}

// MisdirectEntry arms replica i's disk so that the next write of op's prepare
// lands on target's slot instead, leaving op's slot as it was.
func (c *Cluster) MisdirectEntry(i int, op, target uint64) error {
	if c.disks == nil {
		return errNoDisk
	}
	n := uint64(c.cfg.JournalSlots)
	if op%n == target%n {
		return fmt.Errorf("misdirect op %d -> op %d: both ops share a journal slot", op, target)
	}
	c.disks.r[i].disk.Misdirect(disksim.ZonePrepares, int(op%n), int(target%n))
	return nil
}

// LoseEntry arms replica i's disk so that the next n writes of op's prepare
// copy are reported done and never land: the slot keeps what it held.
func (c *Cluster) LoseEntry(i int, op uint64, n int) error {
	if c.disks == nil {
		return errNoDisk
	}
	if n < 1 || n > disksim.ArmedMax {
		return fmt.Errorf("lose %d writes: 1..%d may wait at once", n, disksim.ArmedMax)
	}
	slot := int(op % uint64(c.cfg.JournalSlots))
	for k := 0; k < n; k++ {
		c.disks.r[i].disk.Lose(disksim.ZonePrepares, slot)
	}
	return nil
}
