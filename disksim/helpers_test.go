package disksim

import (
	"testing"

	"github.com/stretchr/testify/require"

	"vsrsim/prng"
)

// testGeometry is small enough to read whole in a test: sectors of 16 bytes,
// prepares of 4 sectors.
var testGeometry = Geometry{
	SectorSize: 16, SuperblockCopies: 4, JournalSlots: 16,
	HeaderSectors: 1, PrepareSectors: 4, CheckpointSlots: 4, CheckpointSectors: 2,
}

// newDisk builds a disk over opts (testGeometry if it names none) on the
// replica's disk stream of seed.
func newDisk(t testing.TB, opts Options, seed uint64) *Disk {
	t.Helper()
	if opts.Geometry == (Geometry{}) {
		opts.Geometry = testGeometry
	}
	d, err := New(opts, prng.Disk(seed, opts.Replica))
	require.NoError(t, err)
	return d
}

// newAtlas builds an atlas over testGeometry from seed.
func newAtlas(t testing.TB, replicas, quorum int, seed uint64) *Atlas {
	t.Helper()
	a, err := NewAtlas(AtlasOptions{Replicas: replicas, Quorum: quorum, Geometry: testGeometry},
		prng.New(seed, prng.StreamDiskAtlas))
	require.NoError(t, err)
	return a
}

// filled is n bytes of tag.
func filled(tag byte, n int) []byte {
	b := make([]byte, n)
	for i := range b {
		b[i] = tag
	}
	return b
}

// sectorsOf splits a slot's bytes into its sectors.
func sectorsOf(b []byte, size int) [][]byte {
	var out [][]byte
	for at := 0; at < len(b); at += size {
		out = append(out, b[at:at+size])
	}
	return out
}

// writeNow writes data to a slot at now and completes it at its due tick;
// no other write may be pending.
func writeNow(t testing.TB, d *Disk, now uint64, z Zone, slot int, data []byte) Completion {
	t.Helper()
	require.Zero(t, d.Pending())
	id := d.Write(now, z, slot, data)
	due, ok := d.NextDue()
	require.True(t, ok)
	done := d.Advance(due, nil)
	require.Len(t, done, 1)
	require.Equal(t, id, done[0].ID)
	return done[0]
}

// peekCopy is Peek with the bytes copied out of the disk's buffer.
func peekCopy(d *Disk, z Zone, slot int) ([]byte, bool) {
	b, damaged := d.Peek(z, slot)
	return append([]byte(nil), b...), damaged
}

// workload drives a disk with random writes and reads, from a stream of its
// own so that the disk's draws are the disk's alone.
type workload struct {
	rng  *prng.Stream
	now  uint64
	buf  []byte
	done []Completion
}

func newWorkload(seed uint64) *workload {
	return &workload{rng: prng.New(seed, prng.StreamWorkload), buf: make([]byte, 64)}
}

// step is one tick on every disk: each writes one drawn slot with drawn bytes
// and reads another, then completes what is due. The same draws go to every
// disk, so disks of one cluster see the same writes.
func (w *workload) step(disks ...*Disk) {
	w.now++
	z := Zone(w.rng.IntN(ZoneCount))
	slot := w.rng.IntN(testGeometry.Slots(z))
	data := w.buf[:w.rng.IntN(testGeometry.SlotBytes(z)+1)]
	for i := range data {
		data[i] = byte(w.rng.Uint64())
	}
	rz := Zone(w.rng.IntN(ZoneCount))
	rslot := w.rng.IntN(testGeometry.Slots(rz))
	for _, d := range disks {
		if d.Pending() < d.Options().PendingMax {
			d.Write(w.now, z, slot, data)
		}
		d.Read(w.now, rz, rslot)
		w.done = d.Advance(w.now, w.done[:0])
	}
}
