package vsr

// The storage interface between a replica and the harness that simulates its
// disk (docs/storage.md): the zones, the record sizes, the writes a step asks
// for and the read a restart makes. The record formats live in replica/storage.go.

// StorageZone is a zone of the disk, numbered as disksim numbers its zones.
type StorageZone uint8

// The zones a replica writes.
const (
	ZoneSuperblock StorageZone = iota
	ZoneHeaders
	ZonePrepares
	ZoneCheckpoint
)

// CheckpointSlots is how many checkpoint records a replica keeps on its disk:
// two, written in turn, so the one the landed superblock names stays whole
// while the next is written.
const CheckpointSlots = 2

// SuperblockCopies is how many copies of its superblock a replica writes.
const SuperblockCopies = 4

// Record sizes in bytes: a header record fits a 128-byte sector, a prepare two.
const (
	HeaderRecordBytes     = 128
	PrepareRecordBytes    = 256
	SuperblockRecordBytes = 128
	// CheckpointRecordBytes holds a checkpoint record: its op, op checksum
	// and state digest, the state (every key, every client table row) and
	// its checksum, in whole 128-byte sectors.
	CheckpointRecordBytes = 14 * 128
)

// Write is one write a step asks for: Data[Off:Off+Len] of Output.WriteData to
// slot Slot of zone Zone. Fenced: the messages of this step, and of every
// later one, wait until it has landed.
type Write struct {
	Zone     StorageZone
	Slot     int
	Off, Len int
	Fenced   bool
	// AfterSuperblock: the write starts only once every superblock copy
	// asked for before it in the step has landed (a blank of an op the
	// new superblock's log no longer holds).
	AfterSuperblock bool
}

// Bytes returns the data of w, valid until the Output is reset.
func (o *Output) Bytes(w *Write) []byte { return o.WriteData[w.Off : w.Off+w.Len] }

// Read is one read a step asks for in the replica's life (Output.Reads): slot
// Slot of zone Zone, where the replica expects the entry (Op, Checksum). The
// harness reads the disk after the disk's latency and hands the bytes back
// in a ReadDone naming Tag. Op and Checksum are the replica's word; the
// harness proves from the disk's own record whether the entry was there.
type Read struct {
	Zone         StorageZone
	Slot         int
	Op, Checksum uint64
	Tag          uint64
}

// ReadDone completes a Read: the bytes the disk holds at its slot and
// whether a sector of them read damaged. Data is valid for the call only.
type ReadDone struct {
	Read
	Data  []byte
	IOErr bool
}

// ReadFunc reads one slot back from the disk: its bytes and whether a sector
// of it read damaged (an I/O error). The bytes are valid until the next call.
type ReadFunc func(z StorageZone, slot int) ([]byte, bool)
