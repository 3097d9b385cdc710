package replica

import (
	"testing"

	"vsrsim/marks"
	"vsrsim/vsr"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// checkpointAt is a checkpoint of a state whose keys and client rows are
// filled from op.
func checkpointAt(op uint64) vsr.Snapshot {
	s := vsr.Snapshot{Op: op, OpChecksum: op*7 + 1}
	for i := range s.State.KV {
		s.State.KV[i] = op + uint64(i)
	}
	s.State.Clients[3] = vsr.ClientEntry{Request: op, Op: op, Result: op + 1}
	s.StateChecksum = s.State.Checksum()
	return s
}

// zone is a checkpoint zone of two slots, as the harness's disk reads it.
type zone struct {
	buf   [vsr.CheckpointSlots][]byte
	ioErr [vsr.CheckpointSlots]bool
}

func newZone() *zone {
	z := &zone{}
	for i := range z.buf {
		z.buf[i] = make([]byte, vsr.CheckpointRecordBytes)
	}
	return z
}

func (z *zone) read(zn vsr.StorageZone, slot int) ([]byte, bool) {
	if zn != vsr.ZoneCheckpoint {
		panic("only the checkpoint zone")
	}
	return z.buf[slot], z.ioErr[slot]
}

// damage spoils a word of slot's record past its first sector: the record
// still names its checkpoint, its state no longer verifies.
func (z *zone) damage(slot int) { z.buf[slot][200] ^= 0xff }

// TestCheckpointRecordRoundTrip: a record reads back as written, and a
// record that does not verify never does.
func TestCheckpointRecordRoundTrip(t *testing.T) {
	z := newZone()
	cp := checkpointAt(64)
	encodeCheckpoint(z.buf[1], 1, &cp)
	got, ok := decodeCheckpoint(z.buf[1], false, 1, false)
	require.True(t, ok)
	assert.Equal(t, cp, got)

	for name, spoil := range map[string]func() ([]byte, bool, int){
		"an I/O error":    func() ([]byte, bool, int) { return z.buf[1], true, 1 },
		"another slot's":  func() ([]byte, bool, int) { return z.buf[1], false, 0 },
		"a damaged state": func() ([]byte, bool, int) { b := append([]byte(nil), z.buf[1]...); b[200] ^= 1; return b, false, 1 },
		"never written":   func() ([]byte, bool, int) { return make([]byte, vsr.CheckpointRecordBytes), false, 1 },
		"short":           func() ([]byte, bool, int) { return z.buf[1][:100], false, 1 },
	} {
		b, ioErr, slot := spoil()
		_, ok := decodeCheckpoint(b, ioErr, slot, false)
		assert.False(t, ok, name)
	}
}

// TestReadCheckpointFallsBack: the named checkpoint if whole; else the newest
// whole one below it; else genesis; never one above it, never a damaged one
// (but with checkpoint-trusts-unverified).
func TestReadCheckpointFallsBack(t *testing.T) {
	z := newZone()
	older, named := checkpointAt(64), checkpointAt(128)
	encodeCheckpoint(z.buf[0], 0, &older)
	encodeCheckpoint(z.buf[1], 1, &named)

	got := readCheckpoint(z.read, &named, false)
	assert.Equal(t, named, got.snap)
	assert.Equal(t, 1, got.slot)
	assert.Equal(t, marks.Count, got.mark, "the named one: nothing to mark")

	z.damage(1)
	got = readCheckpoint(z.read, &named, false)
	assert.Equal(t, older, got.snap, "the named record is damaged: the older one")
	assert.Equal(t, marks.StorageCheckpointOlder, got.mark)

	z.ioErr[0] = true
	got = readCheckpoint(z.read, &named, false)
	assert.Equal(t, uint64(0), got.snap.Op, "none whole: the genesis state")
	assert.Equal(t, -1, got.slot)
	assert.Equal(t, marks.StorageCheckpointLost, got.mark)

	got = readCheckpoint(z.read, &named, true)
	assert.Equal(t, named.Op, got.snap.Op, "the defect takes the named record as it reads")
	assert.NotEqual(t, named.State, got.snap.State, "and its damaged state")

	z = newZone()
	newer := checkpointAt(192)
	encodeCheckpoint(z.buf[0], 0, &newer)
	got = readCheckpoint(z.read, &named, false)
	assert.Equal(t, uint64(0), got.snap.Op, "a record newer than the superblock names is not restored")

	genesis := genesisSnapshot()
	got = readCheckpoint(z.read, &genesis, false)
	assert.Equal(t, genesis, got.snap)
	assert.Equal(t, marks.Count, got.mark, "no checkpoint named: genesis, nothing lost")
}

// TestCheckpointWrittenInTurn: a replica on a disk writes each new checkpoint
// to the slot its op picks (the other one than its predecessor's), ahead of
// the superblock that names it, and not again while it stands.
func TestCheckpointWrittenInTurn(t *testing.T) {
	o := DefaultOptions(0, 1)
	o.Durability = DurabilityWAL
	o.Storage = true
	r, err := New(o, zeroJitter{})
	require.NoError(t, err)
	every := CheckpointEvery(o.CheckpointInterval, o.JournalSlots)
	var slots []int
	for _, op := range []uint64{every, 2 * every, 2 * every, 3 * every} {
		out := &vsr.Output{}
		r.fx.Out = out
		r.dur.sb.Checkpoint = checkpointAt(op)
		r.writeSuperblockCopies()
		var zones []vsr.StorageZone
		for _, w := range out.Writes {
			zones = append(zones, w.Zone)
			if w.Zone == vsr.ZoneCheckpoint {
				slots = append(slots, w.Slot)
				got, ok := decodeCheckpoint(out.Bytes(&w), false, w.Slot, false)
				require.True(t, ok)
				assert.Equal(t, op, got.Op)
			}
		}
		if len(zones) > 0 && zones[0] == vsr.ZoneCheckpoint {
			assert.Equal(t, vsr.ZoneSuperblock, zones[1], "the superblock after the record it names")
		}
	}
	assert.Equal(t, []int{1, 0, 1}, slots, "in turn by the checkpoint's op, and once per checkpoint")
}

// TestDiskSuperblockSaysAmnesiac: read from outside, a superblock copy
// written while amnesiac says so (the harness then counts no journal record
// of that disk as one a restart can take up), and a whole one does not.
func TestDiskSuperblockSaysAmnesiac(t *testing.T) {
	for _, amnesiac := range []bool{false, true} {
		sb := Superblock{View: 3, LogView: 2, Head: 9, HeadSum: 0x99, Amnesiac: amnesiac}
		var shared recWords
		superblockWords(&shared, 7, &sb)
		w := superblockCopy(shared, checksumFold(shared.w[:shared.n]), 2)
		buf := make([]byte, vsr.SuperblockRecordBytes)
		w.put(buf)
		got, ok := DiskSuperblock(2, buf, false)
		require.True(t, ok)
		assert.Equal(t, amnesiac, got.Amnesiac)
		assert.Equal(t, uint64(7), got.Seq)
		assert.Equal(t, uint64(9), got.Head)
	}
}
