package disksim

import "fmt"

// FaultKind is the kind of a fault in the record. The numbering is
// append-only.
type FaultKind uint8

const (
	// FaultLatentRead: a read found a sector damaged; it reads damaged until
	// rewritten.
	FaultLatentRead FaultKind = iota
	// FaultWriteDamaged: a write reported success and left a sector damaged.
	FaultWriteDamaged
	// FaultWriteMisdirected: a write reported success and landed on Target.
	FaultWriteMisdirected
	// FaultWriteLost: a write reported success and never landed.
	FaultWriteLost
	// FaultCrashTorn: a crash tore a pending write.
	FaultCrashTorn
	// FaultCorrupted: a script damaged every sector of a slot (Disk.Corrupt).
	FaultCorrupted
	// FaultRot: a sector of a slot decayed in place, at a tick drawn when
	// its write landed (Options.RotMeanTicks); it reads damaged until
	// rewritten.
	FaultRot
	faultKindCount
)

var faultKindNames = [faultKindCount]string{
	"latent-read", "write-damaged", "write-misdirected", "write-lost", "crash-torn", "corrupted", "rot",
}

func (k FaultKind) String() string {
	if k < faultKindCount {
		return faultKindNames[k]
	}
	return fmt.Sprintf("FaultKind(%d)", uint8(k))
}

// NoSector and NoSlot fill a fault's Sector and Target where they do not
// apply.
const (
	NoSector = -1
	NoSlot   = -1
)

// Fault is one fault the disk injected, as its record keeps it.
type Fault struct {
	Tick    uint64
	Kind    FaultKind
	Replica int
	Zone    Zone
	Slot    int
	// Sector is the damaged sector within the slot (latent, damaged, torn),
	// else NoSector: a lost or misdirected write damages no sector, a
	// Corrupt every one.
	Sector int
	// Target is where a misdirected write landed, else NoSlot.
	Target int
	// Write is the write the fault struck, 0 for a read or a Corrupt.
	Write WriteID
	// Scripted: injected by Corrupt, Misdirect or Lose, not drawn.
	Scripted bool
	// Forbidden: the atlas forbade it and a script injected it anyway. Only a
	// scripted fault can be; such a fault may take a slot beyond what the
	// protocol promises to survive.
	Forbidden bool
}

func (f Fault) String() string {
	s := fmt.Sprintf("%d r%d %s %s/%d", f.Tick, f.Replica, f.Kind, f.Zone, f.Slot)
	if f.Sector != NoSector {
		s += fmt.Sprintf(" sector %d", f.Sector)
	}
	if f.Target != NoSlot {
		s += fmt.Sprintf(" to %d", f.Target)
	}
	if f.Write != 0 {
		s += fmt.Sprintf(" write %d", f.Write)
	}
	if f.Scripted {
		s += " scripted"
	}
	if f.Forbidden {
		s += " forbidden"
	}
	return s
}

// newFault is a fault of the given kind at slot, struck by write w, with no
// sector and no target yet.
func newFault(now uint64, kind FaultKind, z Zone, slot int, w WriteID) Fault {
	return Fault{Tick: now, Kind: kind, Zone: z, Slot: slot, Sector: NoSector, Target: NoSlot, Write: w}
}

// note appends a fault to the record, naming the replica.
func (d *Disk) note(f Fault) {
	expect(len(d.record) < d.opts.RecordMax, "RecordMax exceeded: too many faults")
	f.Replica = d.opts.Replica
	d.record = append(d.record, f)
}

// noteSector notes a fault that damaged one sector.
func (d *Disk) noteSector(f Fault, sector int) {
	f.Sector = sector
	d.note(f)
}

// Faults returns the record of every fault injected so far, in the order
// injected. The slice is the disk's: read it, do not change it.
func (d *Disk) Faults() []Fault { return d.record }

// DamagedReplicas returns the set (bit r for replica r) of the disks' replicas
// whose slot of zone z is faulty now (Disk.Damaged). It draws nothing.
func DamagedReplicas(disks []*Disk, z Zone, slot int) uint64 {
	var set uint64
	for _, d := range disks {
		if d.Damaged(z, slot) {
			set |= 1 << d.opts.Replica
		}
	}
	return set
}

// armedFault is a scripted fault waiting for the next write to its slot to
// complete.
type armedFault struct {
	kind   FaultKind // FaultWriteMisdirected or FaultWriteLost
	zone   Zone
	slot   int
	target int
}

// Scripted faults apply whatever the atlas says and whether or not random
// faults are enabled: a script means them. One the atlas forbids is recorded
// Forbidden, so an oracle can tell a run pushed beyond what the protocol
// promises to survive from one that was not.

// Corrupt damages every sector of slot of zone z at tick now, at once. The
// damage lasts until a write rewrites the slot. It draws nothing.
func (d *Disk) Corrupt(now uint64, z Zone, slot int) {
	d.advance(now)
	d.lay.check(z, slot)
	f := newFault(now, FaultCorrupted, z, slot, 0)
	f.Scripted, f.Forbidden = true, !d.mayFault(z, slot)
	for sector := 0; sector < d.lay.sectors[z]; sector++ {
		d.damage(z, slot, sector)
	}
	d.note(f)
}

// CorruptSector damages one sector of a slot, as a latent error on it would:
// the rest of the slot reads as it was. It draws nothing.
func (d *Disk) CorruptSector(now uint64, z Zone, slot, sector int) {
	d.advance(now)
	d.lay.check(z, slot)
	expect(sector >= 0 && sector < d.lay.sectors[z], "a sector of the slot")
	f := newFault(now, FaultCorrupted, z, slot, 0)
	f.Sector = sector
	f.Scripted, f.Forbidden = true, !d.mayFault(z, slot)
	d.damage(z, slot, sector)
	d.note(f)
}

// Misdirect arms a misdirected write: the next write to slot from of zone z
// to complete lands on slot to, and from keeps its old bytes. It draws
// nothing.
func (d *Disk) Misdirect(z Zone, from, to int) {
	d.lay.check(z, from)
	d.lay.check(z, to)
	expect(from != to, "a write misdirected to its own slot")
	d.arm(armedFault{kind: FaultWriteMisdirected, zone: z, slot: from, target: to})
}

// Lose arms a lost write: the next write to slot of zone z to complete is
// reported done and never lands. It draws nothing.
func (d *Disk) Lose(z Zone, slot int) {
	d.lay.check(z, slot)
	d.arm(armedFault{kind: FaultWriteLost, zone: z, slot: slot, target: NoSlot})
}

// LoseWrite loses write id, pending now, when it completes: reported done,
// it never lands (a scripted lost write, recorded as such). A crash that
// ends it first ends the request too. It draws nothing.
func (d *Disk) LoseWrite(id WriteID) {
	expect(id > 0 && uint64(id) <= uint64(d.written), "a write never asked for")
	d.lose = append(d.lose, id)
}

// DamageWrite lands write id, pending now, with its last sector damaged
// when it completes: reported done, it reads back unreadable (a scripted
// damaged write, recorded as such). A crash that ends it first ends the
// request too. It draws nothing.
func (d *Disk) DamageWrite(id WriteID) {
	expect(id > 0 && uint64(id) <= uint64(d.written), "a write never asked for")
	d.spoil = append(d.spoil, id)
}

// landDamaged lands w and damages its last sector: the scripted
// WriteDamaged of DamageWrite.
func (d *Disk) landDamaged(now uint64, w pendingWrite, data []byte) {
	z, slot := w.zone, int(w.slot)
	d.land(z, slot, data)
	sector := d.lay.sectors[z] - 1
	d.damage(z, slot, sector)
	f := newFault(now, FaultWriteDamaged, z, slot, w.id)
	f.Scripted, f.Forbidden = true, !d.mayFault(z, slot)
	d.noteSector(f, sector)
}

// Armed is the number of scripted faults waiting for their write.
func (d *Disk) Armed() int { return len(d.armed) }

// ArmedMax is the most scripted faults that may wait at once.
const ArmedMax = armedMax

func (d *Disk) arm(a armedFault) {
	expect(len(d.armed) < armedMax, "too many scripted faults waiting")
	d.armed = append(d.armed, a)
}

// takeArmed removes and returns the first scripted fault waiting for a write
// to slot of zone z, if any.
func (d *Disk) takeArmed(z Zone, slot int) (armedFault, bool) {
	for i, a := range d.armed {
		if a.zone == z && a.slot == slot {
			d.armed = append(d.armed[:i], d.armed[i+1:]...)
			return a, true
		}
	}
	return armedFault{}, false
}

// applyArmed completes write w with the scripted fault a.
func (d *Disk) applyArmed(now uint64, w pendingWrite, a armedFault, data []byte) {
	f := newFault(now, a.kind, a.zone, a.slot, w.id)
	f.Scripted = true
	switch a.kind {
	case FaultWriteLost:
		f.Forbidden = !d.mayFault(a.zone, a.slot)
		d.slots[d.lay.slotIndex(a.zone, a.slot)].stale = true
	case FaultWriteMisdirected:
		f.Forbidden = !d.mayFaultBoth(a.zone, a.slot, a.target)
		d.misdirect(a.zone, a.slot, a.target, data)
		f.Target = a.target
	}
	d.note(f)
}
