package sim

import (
	"fmt"

	"vsrsim/disksim"
	"vsrsim/replica"
	"vsrsim/vsr"
)

// The storage ledger: what each replica's disk should hold and what it does
// hold, from the disk's own record, for the oracle. A copy counts as held
// once the write of it landed (reported done), never when the replica says
// it journaled it; a write a crash caught in flight, lost or torn, holds
// nothing; a copy with either record (prepare or header ring, each carrying
// the body) intact is held. The disks are re-examined after every crash,
// restart and fault on a down replica's disk, torn and lost writes
// included, so the order of faults never matters.

// entryID is the journal entry a record holds: op 0 for none (a blank, a
// slot never written).
type entryID struct{ op, sum uint64 }

// ledger is one replica's: per journal zone and slot, the entry of the last
// write reported done there (what the replica believes the slot holds). The
// entry each write in flight carries is in diskOf.inFlight.
type ledger struct {
	want [2][]entryID // headers, prepares
	// checkpoint is the checkpoint each record of the checkpoint zone was
	// last reported written with.
	checkpoint [vsr.CheckpointSlots]entryID
}

func newLedger(slots int) ledger {
	return ledger{want: [2][]entryID{make([]entryID, slots), make([]entryID, slots)}}
}

// zoneIndex is the ledger's index of a journal zone; false for the
// superblock.
func zoneIndex(z disksim.Zone) (int, bool) {
	switch z {
	case disksim.ZoneHeaders:
		return 0, true
	case disksim.ZonePrepares:
		return 1, true
	}
	return 0, false
}

// entryIn decodes the entry a journal record's bytes hold.
func (c *Cluster) entryIn(z disksim.Zone, slot int, data []byte, ioErr bool) entryID {
	op, sum, ok := replica.DiskEntry(vsr.StorageZone(z), slot, c.cfg.JournalSlots, data, ioErr)
	if !ok {
		return entryID{}
	}
	return entryID{op, sum}
}

// entryOf is the entry a write's bytes carry: the op of a journal record or
// of a checkpoint record; none for the superblock.
func (c *Cluster) entryOf(z disksim.Zone, slot int, data []byte) entryID {
	if z == disksim.ZoneCheckpoint {
		op, sum, _ := replica.DiskCheckpoint(slot, data, false)
		return entryID{op, sum}
	}
	if _, journal := zoneIndex(z); !journal {
		return entryID{}
	}
	return c.entryIn(z, slot, data, false)
}

// noteLanded: the disk reported write f done; the replica now believes its
// slot holds its entry (the disk may have lost or misplaced it: the ledger
// compares what it wants with what the media holds).
func (d *diskOf) noteLanded(f inFlightWrite) {
	if zi, journal := zoneIndex(f.key.zone); journal {
		d.ledger.want[zi][f.key.slot] = f.entry
	}
	if f.key.zone == disksim.ZoneCheckpoint {
		d.ledger.checkpoint[f.key.slot] = f.entry
	}
}

// checkpointLoss is what a restart of a replica lost with its checkpoint
// records: the state that applied the ops (from, to], on the slots whose
// landed records its disk no longer holds whole (the faults that prove it).
type checkpointLoss struct {
	from, to uint64
	slots    [vsr.CheckpointSlots]bool
}

// checkpointLost finds, as replica i restarts at checkpoint restored, the
// records of its checkpoint zone that held a newer checkpoint when their
// write landed and no longer hold it whole (the disk's record: damaged,
// lost or misplaced since): the restart lost to the disk the state that
// applied every op up to the newest of them. ok false: none lost.
func (c *Cluster) checkpointLost(i int, restored uint64) (l checkpointLoss, ok bool) {
	d := &c.disks.r[i]
	l.from = restored
	// With no superblock copy whole, no record can be placed: the restart
	// comes back with the genesis state however whole the records are
	// (swarm seed 3238056940: three replicas' applied op 1 went with
	// their superblocks, and the oracle called it lost within f).
	_, placed := c.newestSuperblock(i)
	for s, want := range d.ledger.checkpoint {
		if want.op <= restored {
			continue
		}
		buf, ioErr := d.disk.Peek(disksim.ZoneCheckpoint, s)
		if op, sum, whole := replica.DiskCheckpoint(s, buf, ioErr); !placed || !whole || (entryID{op, sum}) != want {
			l.slots[s], l.to, ok = true, max(l.to, want.op), true
		}
	}
	return l, ok
}

// noteCrashed settles the writes a crash caught in flight: one that landed
// whole anyway (the disk may finish a write as power fails) is what its slot
// holds now; a torn or lost one leaves the slot's earlier entry wanted, torn
// or intact as the media shows.
func (c *Cluster) noteCrashed(d *diskOf) {
	for _, f := range d.inFlight {
		if f.key.zone == disksim.ZoneCheckpoint {
			buf, ioErr := d.disk.Peek(f.key.zone, f.key.slot)
			if op, sum, ok := replica.DiskCheckpoint(f.key.slot, buf, ioErr); ok && (entryID{op, sum}) == f.entry {
				d.ledger.checkpoint[f.key.slot] = f.entry
			}
			continue
		}
		zi, journal := zoneIndex(f.key.zone)
		if !journal {
			continue
		}
		buf, ioErr := d.disk.Peek(f.key.zone, f.key.slot)
		if c.entryIn(f.key.zone, f.key.slot, buf, ioErr) == f.entry {
			d.ledger.want[zi][f.key.slot] = f.entry
		}
	}
}

// intact reports whether replica i's disk holds (op, sum) intact in either
// record of its slot, and whether a write of it was reported done there.
func (c *Cluster) intact(d *diskOf, op, sum uint64) (ok, landed bool) {
	slot := int(op % uint64(c.cfg.JournalSlots))
	want := entryID{op, sum}
	for zi, z := range [2]disksim.Zone{disksim.ZoneHeaders, disksim.ZonePrepares} {
		if d.ledger.want[zi][slot] != want {
			continue
		}
		landed = true
		buf, ioErr := d.disk.Peek(z, slot)
		if c.entryIn(z, slot, buf, ioErr) == want {
			return true, true
		}
	}
	return false, landed
}

// examineDisk re-examines replica i's copies against its disk for the
// oracle, and its superblock: at its crash, while it is down, and at its
// restart (after the restart's reads, which may draw latent errors).
func (c *Cluster) examineDisk(i int) {
	d := &c.disks.r[i]
	// A newest superblock written while amnesiac (after every copy was
	// lost, before a view was adopted) places no journal record: the
	// restart takes none of them up, whatever the slots still hold.
	// A record above the newest superblock's head is placed by no restart
	// either (dropAboveHead): its write landed, the superblock naming it
	// did not before the crash, so no ack of it left this life; it is
	// withdrawn as a write the crash caught, not a copy a fault took (a
	// 100,000-seed sweep on issue 38's seventh round: r2 counted as holding
	// an older view's op 87 its restart had dropped, and the stall that
	// r2's lost copy of the newer op 87 caused went unexcused).
	sb, whole := c.newestSuperblock(i)
	placed := !whole || !sb.Amnesiac
	c.checker.DiskCopies(c.now, i, func(op, sum uint64) (bool, bool) {
		if whole && op > sb.Head {
			return false, false
		}
		ok, landed := c.intact(d, op, sum)
		return ok && placed, landed
	})
	c.examineSuperblock(i)
	if c.replicas[i] == nil {
		c.checker.DurableState(i, c.durableCheckpoint(i))
	}
}

// examineSuperblock tells the oracle when every superblock copy of replica
// i's disk is faulty (none holds the version last written there): asked only
// while the replica is down and as it restarts (a live replica holds its
// superblock in memory). If no copy holds a whole version at all, the
// restart comes back with nothing (SuperblockLost); if one holds an older
// version, the restart comes back from it, below what it promised since, and
// drops the journal's entries above that version's head
// (SuperblockRegressed). The disk's own bytes say which, read through the
// on-disk format (replica.DiskSuperblock), never through the replica.
func (c *Cluster) examineSuperblock(i int) {
	d := &c.disks.r[i]
	for s := 0; s < diskSuperblocks; s++ {
		if !d.disk.Damaged(disksim.ZoneSuperblock, s) {
			return
		}
	}
	sb, whole := c.newestSuperblock(i)
	if !whole {
		c.checker.SuperblockLost(c.now, i)
		return
	}
	c.checker.SuperblockRegressed(c.now, i, sb.Head)
}

// newestSuperblock is the newest whole superblock copy on replica i's disk:
// what its restart reads back (false: none).
func (c *Cluster) newestSuperblock(i int) (replica.SuperblockOnDisk, bool) {
	d := &c.disks.r[i]
	var newest replica.SuperblockOnDisk
	whole := false
	for s := 0; s < diskSuperblocks; s++ {
		buf, ioErr := d.disk.Peek(disksim.ZoneSuperblock, s)
		if sb, ok := replica.DiskSuperblock(s, buf, ioErr); ok && (!whole || sb.Seq > newest.Seq) {
			newest, whole = sb, true
		}
	}
	return newest, whole
}

// durableCheckpoint is the op of the checkpoint a restart of replica i would
// restore, from its disk's bytes: the one its newest whole superblock names
// if that record is whole, else the newest whole record below it (0: the
// genesis state). A down replica's state covers every op up to it.
func (c *Cluster) durableCheckpoint(i int) uint64 {
	if c.disks == nil {
		return c.durable[i].Superblock.Checkpoint.Op
	}
	sb, ok := c.newestSuperblock(i)
	if !ok || sb.CheckpointOp == 0 {
		return 0
	}
	d := &c.disks.r[i]
	best := uint64(0)
	for s := 0; s < vsr.CheckpointSlots; s++ {
		buf, ioErr := d.disk.Peek(disksim.ZoneCheckpoint, s)
		op, sum, whole := replica.DiskCheckpoint(s, buf, ioErr)
		switch {
		case !whole:
		case op == sb.CheckpointOp && sum == sb.CheckpointSum:
			return op
		case op < sb.CheckpointOp:
			best = max(best, op)
		}
	}
	return best
}

// faultProof lists the faults the disks' record holds on op's slot of the
// given replicas, as the proof of a storage excuse, and says whether the
// atlas allows the loss they prove: with the atlas on, only a scripted fault
// it forbade or a write a crash tore (outside the atlas, as the caller never
// saw it complete) can take an op past what it promises.
func (c *Cluster) faultProof(op uint64, replicas []int) (string, bool) {
	slot := int(op % uint64(c.cfg.JournalSlots))
	s, past := "", c.disks.atlas.Off()
	for _, i := range replicas {
		for _, f := range c.disks.r[i].disk.Faults() {
			if _, journal := zoneIndex(f.Zone); (journal && (f.Slot == slot || f.Target == slot)) || c.checkpointFault(i, op, &f) {
				s += "; disk " + f.String()
				past = past || f.Forbidden || f.Kind == disksim.FaultCrashTorn
			}
		}
	}
	return s, past
}

// checkpointFault reports whether fault f of replica i's disk is on a
// checkpoint record whose loss took op from it (a restart's
// checkpointLoss covering op).
func (c *Cluster) checkpointFault(i int, op uint64, f *disksim.Fault) bool {
	if f.Zone != disksim.ZoneCheckpoint {
		return false
	}
	for _, l := range c.disks.r[i].cpLost {
		if op > l.from && op <= l.to && (l.slots[f.Slot] || (f.Target != disksim.NoSlot && l.slots[f.Target])) {
			return true
		}
	}
	return false
}

// superblockProof lists the faults on the superblock copies of the given
// replicas, and says whether the atlas allows them to take every copy: with
// it on, only a scripted fault it forbade can (a crash never tears a
// replica's last intact copy).
func (c *Cluster) superblockProof(replicas []int) (string, bool) {
	s, past := "", c.disks.atlas.Off()
	for _, i := range replicas {
		for _, f := range c.disks.r[i].disk.Faults() {
			if f.Zone == disksim.ZoneSuperblock {
				s += fmt.Sprintf("; disk %s", f)
				past = past || f.Forbidden
			}
		}
	}
	return s, past
}
