package disksim

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"vsrsim/prng"
)

// TestNewFromIsNew: a disk made on a finished disk's memory, after writes,
// faults of every kind, rot and a crash on it, reads and draws as a new disk
// does over the same workload.
func TestNewFromIsNew(t *testing.T) {
	r := prng.Ratio{Num: 1, Den: 8}
	opts := Options{Geometry: testGeometry, WriteLatencyMeanTicks: 3, ReadLatent: r, WriteDamaged: r,
		WriteMisdirected: r, WriteLost: r, CrashTorn: r, CrashWritten: r, RotMeanTicks: 20}
	used := newDisk(t, opts, 7)
	w := newWorkload(7)
	for range 300 {
		w.step(used)
	}
	used.Corrupt(w.now, ZonePrepares, 3)
	used.Crash(w.now)
	require.NotEmpty(t, used.Faults())

	fresh := newDisk(t, opts, 9)
	reused, err := NewFrom(opts, prng.Disk(9, opts.Replica), used)
	require.NoError(t, err)
	assert.Equal(t, make([]byte, len(fresh.media)), reused.media, "the media read zero, as a new disk's")
	assert.Equal(t, fresh.damaged, reused.damaged)
	assert.Equal(t, fresh.slots, reused.slots)
	assert.Equal(t, fresh.landed, reused.landed)
	a, b := newWorkload(11), newWorkload(11)
	for i := range 60 {
		a.step(fresh)
		b.step(reused)
		require.Equal(t, a.done, b.done)
		if i%3 == 2 {
			// A torn write keeps the old bytes past its tear: the
			// media's, which must be a new disk's zeroes.
			fresh.Crash(a.now)
			reused.Crash(b.now)
		}
	}
	assert.Equal(t, fresh.Faults(), reused.Faults())
	for z := Zone(0); z < zoneCount; z++ {
		for slot := 0; slot < testGeometry.Slots(z); slot++ {
			want, wantDamaged := peekCopy(fresh, z, slot)
			got, gotDamaged := peekCopy(reused, z, slot)
			assert.Equal(t, want, got, "%s/%d", z, slot)
			assert.Equal(t, wantDamaged, gotDamaged, "%s/%d", z, slot)
		}
	}
	// Another layout takes none of the memory, and still works.
	other := opts
	other.Geometry.JournalSlots = 8
	d, err := NewFrom(other, prng.Disk(9, 0), reused)
	require.NoError(t, err)
	buf, _ := d.Peek(ZonePrepares, 7)
	assert.Equal(t, make([]byte, testGeometry.SlotBytes(ZonePrepares)), buf)
}
