package disksim

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"vsrsim/prng"
)

func TestNewRejectsNonsense(t *testing.T) {
	atlas := newAtlas(t, 3, 2, 1)
	cases := []struct {
		name string
		opts Options
	}{
		{"negative sector size", Options{Geometry: Geometry{SectorSize: -1}}},
		{"one superblock copy", Options{Geometry: Geometry{SuperblockCopies: 1}}},
		{"huge slot", Options{Geometry: Geometry{PrepareSectors: slotSectorsMax + 1}}},
		{"negative journal", Options{Geometry: Geometry{JournalSlots: -3}}},
		{"replica outside the atlas", Options{Geometry: testGeometry, Atlas: atlas, Replica: 3}},
		{"geometry not the atlas's", Options{Geometry: Geometry{JournalSlots: 8}, Atlas: atlas}},
		{"negative replica", Options{Replica: -1}},
		{"negative pending bound", Options{PendingMax: -1}},
		{"latency too long", Options{WriteLatencyMeanTicks: ticksMax + 1}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := New(tc.opts, prng.Disk(1, 0))
			assert.Error(t, err)
		})
	}
	_, err := New(Options{}, nil)
	assert.ErrorIs(t, err, errNilStream)
	d, err := New(Options{}, prng.Disk(1, 0))
	require.NoError(t, err)
	assert.Equal(t, Geometry{}.withDefaults(), d.Options().Geometry, "zero options take the defaults")
}

func TestZonesDoNotOverlap(t *testing.T) {
	d := newDisk(t, Options{}, 1)
	tag := func(z Zone, slot int) byte { return byte(int(z)*50 + slot + 1) }
	for z := Zone(0); z < zoneCount; z++ {
		for slot := 0; slot < testGeometry.Slots(z); slot++ {
			writeNow(t, d, 1, z, slot, filled(tag(z, slot), testGeometry.SlotBytes(z)))
		}
	}
	for z := Zone(0); z < zoneCount; z++ {
		for slot := 0; slot < testGeometry.Slots(z); slot++ {
			got, damaged := d.Peek(z, slot)
			assert.False(t, damaged)
			assert.Equal(t, filled(tag(z, slot), testGeometry.SlotBytes(z)), got, "%s/%d", z, slot)
		}
	}
}

func TestWriteCompletesAfterItsLatency(t *testing.T) {
	d := newDisk(t, Options{WriteLatencyMinTicks: 3}, 1)
	old := filled(1, testGeometry.SlotBytes(ZonePrepares))
	writeNow(t, d, 0, ZonePrepares, 5, old)

	data := []byte("new bytes")
	id := d.Write(10, ZonePrepares, 5, data)
	data[0] = 'X' // the disk copied it
	due, ok := d.NextDue()
	require.True(t, ok)
	assert.Equal(t, uint64(13), due)
	assert.Equal(t, 1, d.Pending())

	assert.Empty(t, d.Advance(12, nil))
	got, _ := d.Peek(ZonePrepares, 5)
	assert.Equal(t, old, got, "a pending write is not on the media")

	done := d.Advance(13, nil)
	require.Len(t, done, 1)
	assert.Equal(t, Completion{ID: id, Zone: ZonePrepares, Slot: 5, Tick: 13}, done[0])
	want := make([]byte, testGeometry.SlotBytes(ZonePrepares))
	copy(want, "new bytes")
	got, damaged := d.Peek(ZonePrepares, 5)
	assert.False(t, damaged)
	assert.Equal(t, want, got, "the write lands whole, zero-padded")
	_, ok = d.NextDue()
	assert.False(t, ok)
}

func TestCompletionsInDueOrder(t *testing.T) {
	d := newDisk(t, Options{WriteLatencyMinTicks: 2, WriteLatencyMeanTicks: 10}, 7)
	var ids []WriteID
	for now := uint64(1); now <= 50; now++ {
		ids = append(ids, d.Write(now, ZoneHeaders, int(now)%16, []byte{byte(now)}))
	}
	done := d.Advance(10_000, nil)
	require.Len(t, done, len(ids))
	late := 0
	for i, c := range done {
		assert.GreaterOrEqual(t, c.Tick, uint64(c.ID)+2, "write %d fell due before its least latency", c.ID)
		if c.Tick > uint64(c.ID)+2 {
			late++
		}
		if i > 0 {
			prev := done[i-1]
			assert.True(t, prev.Tick < c.Tick || prev.Tick == c.Tick && prev.ID < c.ID, "%+v before %+v", prev, c)
		}
	}
	assert.Positive(t, late, "the exponential part never added a tick")
	assert.Zero(t, d.Pending())
}

func TestCallerBugsPanic(t *testing.T) {
	cases := []struct {
		name string
		call func(d *Disk)
	}{
		{"time goes back", func(d *Disk) { d.Write(5, ZoneHeaders, 0, nil); d.Advance(4, nil) }},
		{"write larger than its slot", func(d *Disk) { d.Write(1, ZoneHeaders, 0, make([]byte, 17)) }},
		{"slot outside its zone", func(d *Disk) { d.Write(1, ZoneSuperblock, 4, nil) }},
		{"negative slot", func(d *Disk) { d.Read(1, ZoneHeaders, -1) }},
		{"no such zone", func(d *Disk) { d.Peek(zoneCount, 0) }},
		{"too many pending", func(d *Disk) {
			for i := 0; i <= 4; i++ {
				d.Write(1, ZoneHeaders, 0, nil)
			}
		}},
		{"misdirect to itself", func(d *Disk) { d.Misdirect(ZoneHeaders, 2, 2) }},
		{"too many armed", func(d *Disk) {
			for i := 0; i <= armedMax; i++ {
				d.Lose(ZoneHeaders, 0)
			}
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			d := newDisk(t, Options{WriteLatencyMinTicks: 1, PendingMax: 4}, 1)
			assert.Panics(t, func() { tc.call(d) })
		})
	}
}

func TestRecordBounded(t *testing.T) {
	d := newDisk(t, Options{RecordMax: 2}, 1)
	d.Corrupt(1, ZoneHeaders, 0)
	d.Corrupt(1, ZoneHeaders, 1)
	assert.Panics(t, func() { d.Corrupt(1, ZoneHeaders, 2) })
}
