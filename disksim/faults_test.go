package disksim

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"vsrsim/prng"
)

var always = prng.Ratio{Num: 1, Den: 1}

// TestEachFaultKindObserved makes each random fault certain, in turn, and
// checks what a read then sees and what the record says.
func TestEachFaultKindObserved(t *testing.T) {
	size := testGeometry.SectorSize
	slotBytes := testGeometry.SlotBytes(ZonePrepares)
	old, fresh := filled('o', size), filled('n', size)
	bad := filled(damageByte, size)
	// oneBad reads base in every sector but the fault's, which reads damaged.
	oneBad := func(base []byte) func(int, Fault) []byte {
		return func(i int, f Fault) []byte {
			if i == f.Sector {
				return bad
			}
			return base
		}
	}
	writeFresh := func(t *testing.T, d *Disk) { writeNow(t, d, 10, ZonePrepares, 3, filled('n', slotBytes)) }
	cases := []struct {
		name string
		opts Options
		// act runs after old is on prepares slot 3, at tick 10.
		act  func(t *testing.T, d *Disk)
		kind FaultKind
		// damaged and sector are how the slot then reads: whether damaged, and
		// each sector's bytes given the fault.
		damaged bool
		sector  func(i int, f Fault) []byte
	}{
		{
			name: "latent read error",
			opts: Options{ReadLatent: always},
			act: func(t *testing.T, d *Disk) {
				_, damaged := d.Read(10, ZonePrepares, 3)
				require.True(t, damaged)
				d.SetFaultsEnabled(false)
				_, damaged = d.Read(11, ZonePrepares, 3)
				assert.True(t, damaged, "a latent error reads damaged every time")
			},
			kind:    FaultLatentRead,
			damaged: true,
			sector:  oneBad(old),
		},
		{
			name:    "damaged write",
			opts:    Options{WriteDamaged: always},
			act:     writeFresh,
			kind:    FaultWriteDamaged,
			damaged: true,
			sector:  oneBad(fresh),
		},
		{
			// A lost write reads clean: only its old bytes say so.
			name:   "lost write",
			opts:   Options{WriteLost: always},
			act:    writeFresh,
			kind:   FaultWriteLost,
			sector: func(int, Fault) []byte { return old },
		},
		{
			name: "torn write",
			opts: Options{CrashTorn: always, WriteLatencyMinTicks: 5},
			act: func(t *testing.T, d *Disk) {
				d.Write(10, ZonePrepares, 3, filled('n', slotBytes))
				d.Crash(12)
				assert.Zero(t, d.Pending())
				assert.Empty(t, d.Advance(100, nil), "a write ended by a crash never completes")
			},
			kind:    FaultCrashTorn,
			damaged: true,
			sector: func(i int, f Fault) []byte {
				if i < f.Sector {
					return fresh
				}
				return oneBad(old)(i, f)
			},
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			d := newDisk(t, Options{WriteLatencyMinTicks: tc.opts.WriteLatencyMinTicks}, 3)
			writeNow(t, d, 1, ZonePrepares, 3, filled('o', slotBytes))
			faulty := tc.opts
			faulty.Geometry = testGeometry
			d.opts = faulty.withDefaults()
			tc.act(t, d)

			require.Len(t, d.Faults(), 1)
			f := d.Faults()[0]
			assert.Equal(t, tc.kind, f.Kind)
			assert.Equal(t, ZonePrepares, f.Zone)
			assert.Equal(t, 3, f.Slot)
			assert.Equal(t, NoSlot, f.Target)
			assert.False(t, f.Scripted)
			assert.Equal(t, tc.damaged, f.Sector != NoSector, "a sector named for damage")
			assert.True(t, d.Damaged(ZonePrepares, 3))
			got, damaged := d.Peek(ZonePrepares, 3)
			assert.Equal(t, tc.damaged, damaged)
			for i, s := range sectorsOf(got, size) {
				assert.Equal(t, tc.sector(i, f), s, "sector %d", i)
			}
		})
	}
}

func TestMisdirectedWriteLandsElsewhereInItsZone(t *testing.T) {
	d := newDisk(t, Options{}, 5)
	tag := func(z Zone, slot int) []byte { return filled(byte(int(z)*40+slot+1), testGeometry.SlotBytes(z)) }
	for z := Zone(0); z < zoneCount; z++ {
		for slot := 0; slot < testGeometry.Slots(z); slot++ {
			writeNow(t, d, 1, z, slot, tag(z, slot))
		}
	}
	d.opts.WriteMisdirected = always
	payload := filled('X', testGeometry.SlotBytes(ZonePrepares))
	done := writeNow(t, d, 2, ZonePrepares, 3, payload)
	assert.Equal(t, 3, done.Slot, "the disk reports the write done where it was meant")

	require.Len(t, d.Faults(), 1)
	f := d.Faults()[0]
	assert.Equal(t, FaultWriteMisdirected, f.Kind)
	assert.Equal(t, 3, f.Slot)
	require.NotEqual(t, 3, f.Target)
	for z := Zone(0); z < zoneCount; z++ {
		for slot := 0; slot < testGeometry.Slots(z); slot++ {
			got, damaged := d.Peek(z, slot)
			assert.False(t, damaged, "a misdirected write damages no sector")
			want := tag(z, slot)
			if z == ZonePrepares && slot == f.Target {
				want = payload
			}
			assert.Equal(t, want, got, "%s/%d", z, slot)
			faulty := z == ZonePrepares && (slot == 3 || slot == f.Target)
			assert.Equal(t, faulty, d.Damaged(z, slot), "%s/%d", z, slot)
		}
	}
	d.opts.WriteMisdirected = prng.Ratio{}
	writeNow(t, d, 3, ZonePrepares, 3, payload)
	writeNow(t, d, 3, ZonePrepares, f.Target, tag(ZonePrepares, f.Target))
	assert.Zero(t, DamagedReplicas([]*Disk{d}, ZonePrepares, 3)|DamagedReplicas([]*Disk{d}, ZonePrepares, f.Target),
		"rewriting both slots heals them")
}

func TestCrashEndsPendingWrites(t *testing.T) {
	cases := []struct {
		name    string
		opts    Options
		want    byte // what slot 2's first sector holds after the crash
		damaged bool
	}{
		{"lost", Options{}, 'o', false},
		{"written", Options{CrashWritten: always}, 'n', false},
		{"torn", Options{CrashTorn: always}, 0, true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			opts := tc.opts
			opts.WriteLatencyMinTicks = 4
			d := newDisk(t, opts, 1)
			writeNow(t, d, 0, ZoneHeaders, 2, filled('o', 16))
			d.Write(10, ZoneHeaders, 2, filled('n', 16))
			d.Write(10, ZoneHeaders, 3, filled('n', 16))
			d.Crash(11)
			assert.Zero(t, d.Pending())
			assert.Empty(t, d.Advance(20, nil))
			got, damaged := d.Peek(ZoneHeaders, 2)
			assert.Equal(t, tc.damaged, damaged)
			assert.Equal(t, tc.damaged, d.Damaged(ZoneHeaders, 2))
			if !tc.damaged {
				assert.Equal(t, filled(tc.want, 16), got)
				assert.Empty(t, d.Faults(), "losing or finishing an unacknowledged write is no fault")
			} else {
				assert.Len(t, d.Faults(), 2, "both pending writes torn")
			}
			// The disk goes on after a crash: a new write lands and heals.
			writeNow(t, d, 30, ZoneHeaders, 2, filled('a', 16))
			got, damaged = d.Peek(ZoneHeaders, 2)
			assert.False(t, damaged)
			assert.Equal(t, filled('a', 16), got)
			assert.False(t, d.Damaged(ZoneHeaders, 2))
		})
	}
}

func TestScriptedFaults(t *testing.T) {
	d := newDisk(t, Options{ReadLatent: always}, 9)
	d.SetFaultsEnabled(false) // scripted faults apply regardless
	for slot := 0; slot < 4; slot++ {
		writeNow(t, d, 1, ZoneCheckpoint, slot, filled(byte('a'+slot), 32))
	}
	d.Corrupt(2, ZoneCheckpoint, 0)
	d.Misdirect(ZoneCheckpoint, 1, 2)
	d.Lose(ZoneCheckpoint, 3)
	writeNow(t, d, 3, ZoneCheckpoint, 1, filled('M', 32))
	writeNow(t, d, 3, ZoneCheckpoint, 3, filled('L', 32))
	writeNow(t, d, 3, ZoneCheckpoint, 3, filled('K', 32)) // armed faults are one-shot

	want := []struct {
		bytes   []byte
		damaged bool
	}{
		{filled(damageByte, 32), true},
		{filled('b', 32), false},
		{filled('M', 32), false},
		{filled('K', 32), false},
	}
	for slot, w := range want {
		got, damaged := d.Peek(ZoneCheckpoint, slot)
		assert.Equal(t, w.bytes, got, "slot %d", slot)
		assert.Equal(t, w.damaged, damaged, "slot %d", slot)
	}
	kinds := []FaultKind{FaultCorrupted, FaultWriteMisdirected, FaultWriteLost}
	require.Len(t, d.Faults(), len(kinds))
	for i, f := range d.Faults() {
		assert.Equal(t, kinds[i], f.Kind)
		assert.True(t, f.Scripted)
		assert.False(t, f.Forbidden, "no atlas forbids nothing")
	}
	assert.Equal(t, 2, d.Faults()[1].Target)
	assert.True(t, sameNext(d.rng, 9, 0), "scripted faults and fault-free writes drew nothing")
}

func TestScriptedFaultForbiddenByTheAtlasIsRecordedSo(t *testing.T) {
	atlas := newAtlas(t, 3, 2, 4)
	clean := -1
	for c := 0; c < testGeometry.SuperblockCopies; c++ {
		if !atlas.MayFault(0, ZoneSuperblock, c) {
			clean = c
		}
	}
	require.NotEqual(t, -1, clean, "the atlas keeps a superblock copy clean")
	d := newDisk(t, Options{Geometry: testGeometry, Atlas: atlas}, 1)
	d.Corrupt(1, ZoneSuperblock, clean)
	assert.True(t, d.Damaged(ZoneSuperblock, clean), "a script overrides the atlas")
	require.Len(t, d.Faults(), 1)
	assert.True(t, d.Faults()[0].Forbidden)
	assert.Contains(t, d.Faults()[0].String(), "corrupted superblock/")
	assert.Contains(t, d.Faults()[0].String(), "forbidden")
}

func TestDamagedReplicas(t *testing.T) {
	var disks []*Disk
	for r := 0; r < 3; r++ {
		disks = append(disks, newDisk(t, Options{Replica: r}, 1))
	}
	disks[0].Corrupt(1, ZonePrepares, 7)
	disks[2].Lose(ZonePrepares, 7)
	writeNow(t, disks[2], 2, ZonePrepares, 7, []byte("x"))
	assert.Equal(t, uint64(0b101), DamagedReplicas(disks, ZonePrepares, 7))
	assert.Zero(t, DamagedReplicas(disks, ZoneHeaders, 7))
	assert.Equal(t, 2, disks[2].Faults()[0].Replica)
	assert.True(t, disks[0].AtlasOff(), "no atlas is an atlas off")
}

// TestZeroFaultDiskDrawsOnlyLatency drives disks with every fault ratio zero
// through writes, reads and crashes: a disk draws one exponential per write,
// and nothing at all with a zero latency mean.
func TestZeroFaultDiskDrawsOnlyLatency(t *testing.T) {
	cases := []struct {
		name  string
		opts  Options
		draws func(writes int) int
	}{
		{"no latency", Options{}, func(int) int { return 0 }},
		{"least latency only", Options{WriteLatencyMinTicks: 3}, func(int) int { return 0 }},
		{"exponential latency", Options{WriteLatencyMinTicks: 1, WriteLatencyMeanTicks: 6}, func(w int) int { return w }},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			d := newDisk(t, tc.opts, 11)
			w := newWorkload(11)
			writes := 0
			for i := 0; i < 2000; i++ {
				if d.Pending() < d.Options().PendingMax {
					writes++
				}
				w.step(d)
				if i%300 == 299 {
					d.Crash(w.now)
				}
			}
			assert.Empty(t, d.Faults())
			assert.True(t, sameNext(d.rng, 11, tc.draws(writes)), "the disk drew beyond its latencies")
		})
	}
}

// sameNext reports whether s is where replica 0's disk stream of seed is
// after skip exponential draws (one raw value each).
func sameNext(s *prng.Stream, seed uint64, skip int) bool {
	fresh := prng.Disk(seed, 0)
	for i := 0; i < skip; i++ {
		fresh.Uint64()
	}
	return s.Uint64() == fresh.Uint64()
}

// faultyOptions makes every fault likely, so a short run sees each kind.
func faultyOptions() Options {
	r := prng.Ratio{Num: 1, Den: 20}
	return Options{
		Geometry: testGeometry, WriteLatencyMinTicks: 1, WriteLatencyMeanTicks: 4,
		ReadLatent: r, WriteDamaged: r, WriteMisdirected: r, WriteLost: r, CrashTorn: prng.Ratio{Num: 1, Den: 2},
	}
}

// runFaulty drives a faulty disk of seed for a while, crashing it now and
// then, and returns its record.
func runFaulty(t *testing.T, seed uint64) []Fault {
	d := newDisk(t, faultyOptions(), seed)
	w := newWorkload(seed)
	for i := 0; i < 3000; i++ {
		w.step(d)
		if i%250 == 249 {
			d.Crash(w.now)
		}
	}
	return d.Faults()
}

func TestDeterminism(t *testing.T) {
	a, b := runFaulty(t, 21), runFaulty(t, 21)
	require.NotEmpty(t, a)
	assert.Equal(t, a, b, "the same seed gives the same record")
	seen := map[FaultKind]bool{}
	for _, f := range a {
		seen[f.Kind] = true
	}
	for k := FaultLatentRead; k <= FaultCrashTorn; k++ {
		assert.True(t, seen[k], "no %s in a faulty run", k)
	}
	assert.NotEqual(t, a, runFaulty(t, 22), "another seed, another record")
}

// CorruptSector damages the one sector asked for: the rest of the slot reads
// as it was, the fault names the sector, and a sector outside the slot is
// the caller's bug.
func TestCorruptSector(t *testing.T) {
	d := newDisk(t, Options{}, 3)
	writeNow(t, d, 1, ZoneCheckpoint, 1, filled('c', 32))
	d.CorruptSector(2, ZoneCheckpoint, 1, 1)
	got, damaged := d.Peek(ZoneCheckpoint, 1)
	assert.True(t, damaged)
	assert.Equal(t, append(filled('c', 16), filled(damageByte, 16)...), got, "sector 0 whole, sector 1 damaged")
	assert.True(t, d.Damaged(ZoneCheckpoint, 1))
	f := d.Faults()
	require.Len(t, f, 1)
	assert.Equal(t, FaultCorrupted, f[0].Kind)
	assert.Equal(t, 1, f[0].Sector)
	assert.True(t, f[0].Scripted)
	assert.Panics(t, func() { d.CorruptSector(3, ZoneCheckpoint, 1, 2) })
}

// LoseWrite loses the one pending write it names (reported done, never
// landed: the slot keeps what it held), DamageWrite lands it with its last
// sector damaged (reported done, read back unreadable); each is recorded as
// a scripted fault of its kind, and a crash ends the request with the
// write, so the next write to the slot lands whole.
func TestScriptedWriteFaults(t *testing.T) {
	for _, tc := range []struct {
		kind   FaultKind
		script func(d *Disk, id WriteID)
		check  func(t *testing.T, got []byte, ioErr bool, f Fault)
	}{
		{FaultWriteLost, (*Disk).LoseWrite, func(t *testing.T, got []byte, ioErr bool, _ Fault) {
			assert.False(t, ioErr)
			assert.Equal(t, filled('a', 32), got, "the slot keeps what it held")
		}},
		{FaultWriteDamaged, (*Disk).DamageWrite, func(t *testing.T, _ []byte, ioErr bool, f Fault) {
			assert.True(t, ioErr, "the slot reads back damaged")
			assert.Equal(t, testGeometry.CheckpointSectors-1, f.Sector, "the last sector")
		}},
	} {
		d := newDisk(t, Options{}, 9)
		writeNow(t, d, 1, ZoneCheckpoint, 0, filled('a', 32))
		id := d.Write(2, ZoneCheckpoint, 0, filled('b', 32))
		tc.script(d, id)
		due, ok := d.NextDue()
		require.True(t, ok)
		done := d.Advance(due, nil)
		require.Len(t, done, 1, "%v: reported done", tc.kind)
		got, ioErr := d.Peek(ZoneCheckpoint, 0)
		require.Len(t, d.Faults(), 1)
		f := d.Faults()[0]
		assert.Equal(t, tc.kind, f.Kind)
		assert.True(t, f.Scripted)
		tc.check(t, got, ioErr, f)

		id = d.Write(due, ZoneCheckpoint, 0, filled('c', 32))
		tc.script(d, id)
		d.Crash(due + 1)
		writeNow(t, d, due+2, ZoneCheckpoint, 0, filled('d', 32))
		got, ioErr = d.Peek(ZoneCheckpoint, 0)
		assert.False(t, ioErr)
		assert.Equal(t, filled('d', 32), got, "%v: the crash ended the request: the next write lands whole", tc.kind)
		assert.Len(t, d.Faults(), 1, "%v: nothing more", tc.kind)
	}
}

// A latent error is drawn once per write of a slot, at its first read: a
// slot read again draws nothing, so a reader that reads more (a scrubber)
// meets no more latent errors than one that reads once; a write lands new
// bytes and the next read draws again.
func TestLatentErrorDrawnOncePerWrite(t *testing.T) {
	slotBytes := testGeometry.SlotBytes(ZonePrepares)
	d := newDisk(t, Options{ReadLatent: prng.Ratio{Num: 1, Den: 2}}, 7)
	reads := func(slot int) {
		for range 20 {
			d.Read(10, ZonePrepares, slot)
		}
	}
	for slot := 0; slot < 4; slot++ {
		writeNow(t, d, 1, ZonePrepares, slot, filled('a', slotBytes))
	}
	for slot := 0; slot < 4; slot++ {
		reads(slot)
	}
	first := len(d.Faults())
	require.LessOrEqual(t, first, 4, "at most one latent error a slot, however often read")
	for slot := 0; slot < 4; slot++ {
		reads(slot)
	}
	assert.Len(t, d.Faults(), first, "reading again draws nothing")

	always := newDisk(t, Options{ReadLatent: prng.Ratio{Num: 1, Den: 1}}, 7)
	writeNow(t, always, 1, ZonePrepares, 0, filled('a', slotBytes))
	_, damaged := always.Read(2, ZonePrepares, 0)
	require.True(t, damaged)
	writeNow(t, always, 3, ZonePrepares, 0, filled('b', slotBytes))
	got, damaged := always.Peek(ZonePrepares, 0)
	require.False(t, damaged, "a write heals the slot")
	require.Equal(t, filled('b', slotBytes), got)
	_, damaged = always.Read(4, ZonePrepares, 0)
	assert.True(t, damaged, "new bytes: the next read draws again")
	assert.Len(t, always.Faults(), 2)
}

// A read that drew no latent error leaves its slot whole: the draw being
// spent is no fault. (Damaged once counted it one, so every superblock copy a
// restart had read back looked faulty to the oracle, which took the replica
// for one that lost its superblock and excused a stall by it.)
func TestCleanReadLeavesSlotWhole(t *testing.T) {
	never := prng.Ratio{Num: 1, Den: 1 << 30}
	d := newDisk(t, Options{ReadLatent: never}, 3)
	for slot := 0; slot < 4; slot++ {
		now := uint64(10 * (slot + 1))
		writeNow(t, d, now, ZoneSuperblock, slot, filled('s', testGeometry.SlotBytes(ZoneSuperblock)))
		_, damaged := d.Read(now+5, ZoneSuperblock, slot)
		require.False(t, damaged)
		assert.False(t, d.Damaged(ZoneSuperblock, slot), "superblock copy %d read clean", slot)
	}
	assert.Empty(t, d.Faults())
	assert.True(t, d.superblockSpare(0, 1), "copies read clean are spares")
}
