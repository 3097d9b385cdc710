package disksim

import (
	"errors"
	"fmt"
)

// Zone is a region of the disk. The numbering is append-only: it reaches the
// fault record, which an oracle and a trace may read.
type Zone uint8

const (
	// ZoneSuperblock holds the superblock copies, one sector each. The caller
	// writes them in sequence and puts the sequence number in the bytes.
	ZoneSuperblock Zone = iota
	// ZoneHeaders holds the journal's ring of headers, a slot per journal slot.
	ZoneHeaders
	// ZonePrepares holds the journal's prepares, a slot per journal slot.
	ZonePrepares
	// ZoneCheckpoint holds what a checkpoint or a state transfer installs.
	ZoneCheckpoint
	zoneCount
)

// ZoneCount is the number of zones.
const ZoneCount = int(zoneCount)

var zoneNames = [zoneCount]string{"superblock", "headers", "prepares", "checkpoint"}

func (z Zone) String() string {
	if z < zoneCount {
		return zoneNames[z]
	}
	return fmt.Sprintf("Zone(%d)", uint8(z))
}

// journal reports whether the zone is one of the journal's two copies.
func (z Zone) journal() bool { return z == ZoneHeaders || z == ZonePrepares }

// Geometry defaults, for the zero values of Geometry.
const (
	SectorSizeDefault        = 512
	SuperblockCopiesDefault  = 4
	JournalSlotsDefault      = 64
	HeaderSectorsDefault     = 1
	PrepareSectorsDefault    = 4
	CheckpointSlotsDefault   = 8
	CheckpointSectorsDefault = 4
	// sectorSizeMax and slotSectorsMax bound a slot at 1 MiB, zoneSlotsMax a
	// zone at 1 << 20 slots.
	sectorSizeMax  = 1 << 16
	slotSectorsMax = 1 << 12
	zoneSlotsMax   = 1 << 20
)

// Geometry is the layout of a disk: how many slots each zone holds and how
// many sectors make a slot. The headers and prepares zones have JournalSlots
// slots each, slot i of one and slot i of the other holding the two copies of
// the same journal entry. A zero field takes its default.
type Geometry struct {
	// SectorSize is the bytes of a sector: the unit a fault damages.
	SectorSize int
	// SuperblockCopies is the slots of the superblock zone, one sector each.
	SuperblockCopies int
	// JournalSlots is the slots of each journal zone.
	JournalSlots int
	// HeaderSectors and PrepareSectors are the sectors of a slot in the
	// headers and prepares zones.
	HeaderSectors  int
	PrepareSectors int
	// CheckpointSlots and CheckpointSectors shape the checkpoint zone.
	CheckpointSlots   int
	CheckpointSectors int
}

func (g Geometry) withDefaults() Geometry {
	def := func(v *int, d int) {
		if *v == 0 {
			*v = d
		}
	}
	def(&g.SectorSize, SectorSizeDefault)
	def(&g.SuperblockCopies, SuperblockCopiesDefault)
	def(&g.JournalSlots, JournalSlotsDefault)
	def(&g.HeaderSectors, HeaderSectorsDefault)
	def(&g.PrepareSectors, PrepareSectorsDefault)
	def(&g.CheckpointSlots, CheckpointSlotsDefault)
	def(&g.CheckpointSectors, CheckpointSectorsDefault)
	return g
}

func (g Geometry) validate() error {
	if g.SectorSize < 1 || g.SectorSize > sectorSizeMax {
		return fmt.Errorf("disksim: sector size %d is outside [1, %d]", g.SectorSize, sectorSizeMax)
	}
	if g.SuperblockCopies < 2 {
		// One copy cannot survive a torn write of itself.
		return errors.New("disksim: a superblock needs at least 2 copies")
	}
	for z := Zone(0); z < zoneCount; z++ {
		slots, sectors := g.zone(z)
		if slots < 1 || slots > zoneSlotsMax {
			return fmt.Errorf("disksim: zone %s has %d slots, outside [1, %d]", z, slots, zoneSlotsMax)
		}
		if sectors < 1 || sectors > slotSectorsMax {
			return fmt.Errorf("disksim: a slot of zone %s has %d sectors, outside [1, %d]", z, sectors, slotSectorsMax)
		}
	}
	return nil
}

// zone returns the slots of zone z and the sectors of each.
func (g Geometry) zone(z Zone) (slots, sectors int) {
	switch z {
	case ZoneSuperblock:
		return g.SuperblockCopies, 1
	case ZoneHeaders:
		return g.JournalSlots, g.HeaderSectors
	case ZonePrepares:
		return g.JournalSlots, g.PrepareSectors
	case ZoneCheckpoint:
		return g.CheckpointSlots, g.CheckpointSectors
	}
	panic("disksim: no such zone")
}

// Slots returns the number of slots of zone z (defaults filled in).
func (g Geometry) Slots(z Zone) int {
	slots, _ := g.withDefaults().zone(z)
	return slots
}

// SlotBytes returns the bytes of a slot of zone z (defaults filled in).
func (g Geometry) SlotBytes(z Zone) int {
	g = g.withDefaults()
	_, sectors := g.zone(z)
	return sectors * g.SectorSize
}

// layout places every zone on one array of sectors.
type layout struct {
	sectorSize int
	// firstSlot and firstSector are each zone's first slot and sector in the
	// disk-wide numbering; slots and sectors its slot count and the sectors
	// of one slot.
	firstSlot   [zoneCount]int
	firstSector [zoneCount]int
	slots       [zoneCount]int
	sectors     [zoneCount]int
	slotsTotal  int
	// sectorsTotal and slotBytesMax size the media and the write buffers.
	sectorsTotal int
	slotBytesMax int
}

func newLayout(g Geometry) layout {
	l := layout{sectorSize: g.SectorSize}
	for z := Zone(0); z < zoneCount; z++ {
		slots, sectors := g.zone(z)
		l.firstSlot[z], l.firstSector[z] = l.slotsTotal, l.sectorsTotal
		l.slots[z], l.sectors[z] = slots, sectors
		l.slotsTotal += slots
		l.sectorsTotal += slots * sectors
		l.slotBytesMax = max(l.slotBytesMax, sectors*g.SectorSize)
	}
	return l
}

// check panics on a zone or slot outside the geometry: a caller bug.
func (l *layout) check(z Zone, slot int) {
	expect(z < zoneCount, "no such zone")
	expect(slot >= 0 && slot < l.slots[z], "slot outside its zone")
}

// slotIndex is the disk-wide index of a slot.
func (l *layout) slotIndex(z Zone, slot int) int { return l.firstSlot[z] + slot }

// sectorRange is the disk-wide sectors [lo, hi) of a slot.
func (l *layout) sectorRange(z Zone, slot int) (lo, hi int) {
	lo = l.firstSector[z] + slot*l.sectors[z]
	return lo, lo + l.sectors[z]
}

// slotBytes is the bytes of a slot of zone z.
func (l *layout) slotBytes(z Zone) int { return l.sectors[z] * l.sectorSize }

// bytes is the slot's span of the media.
func (l *layout) bytes(z Zone, slot int) (lo, hi int) {
	s, e := l.sectorRange(z, slot)
	return s * l.sectorSize, e * l.sectorSize
}

func expect(ok bool, msg string) {
	if !ok {
		panic("disksim: " + msg)
	}
}
