package disksim

import (
	"math/bits"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"vsrsim/prng"
)

func TestNewAtlasRejectsNonsense(t *testing.T) {
	cases := []struct {
		name string
		opts AtlasOptions
	}{
		{"no replicas", AtlasOptions{Quorum: 1}},
		{"too many replicas", AtlasOptions{Replicas: ReplicasMax + 1, Quorum: 1}},
		{"no quorum", AtlasOptions{Replicas: 3}},
		{"quorum above replicas", AtlasOptions{Replicas: 3, Quorum: 4}},
		{"negative chunk", AtlasOptions{Replicas: 3, Quorum: 2, JournalChunkSlots: -1}},
		{"bad geometry", AtlasOptions{Replicas: 3, Quorum: 2, Geometry: Geometry{SuperblockCopies: 1}}},
		{"too many copies", AtlasOptions{Replicas: 3, Quorum: 2, Geometry: Geometry{SuperblockCopies: 65}}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := NewAtlas(tc.opts, prng.New(1, prng.StreamDiskAtlas))
			assert.Error(t, err)
		})
	}
	_, err := NewAtlas(AtlasOptions{Replicas: 3, Quorum: 2}, nil)
	assert.ErrorIs(t, err, errNilStream)
}

// TestAtlasInvariants checks, over many seeds and cluster shapes, what the
// atlas promises: no slot may be faulty on a replication quorum, the two
// journal zones share their chunks, every replica keeps a clean superblock
// copy, and one replica may be faulty only in its superblock.
func TestAtlasInvariants(t *testing.T) {
	for replicas := 1; replicas <= 6; replicas++ {
		for quorum := 1; quorum <= replicas; quorum++ {
			for seed := uint64(1); seed <= 60; seed++ {
				a := newAtlas(t, replicas, quorum, seed)
				checkAtlas(t, a, replicas, quorum)
				if t.Failed() {
					t.Fatalf("replicas %d, quorum %d, seed %d: %s", replicas, quorum, seed, a.Describe())
				}
			}
		}
	}
}

func checkAtlas(t *testing.T, a *Atlas, replicas, quorum int) {
	t.Helper()
	require.False(t, a.Off())
	for _, z := range []Zone{ZoneHeaders, ZonePrepares, ZoneCheckpoint} {
		for slot := 0; slot < testGeometry.Slots(z); slot++ {
			set := a.FaultyReplicas(z, slot)
			assert.Equal(t, quorum-1, bits.OnesCount64(set), "%s/%d faulty on %b", z, slot, set)
			assert.Zero(t, set>>replicas, "a replica outside the cluster")
			if replicas == 1 {
				assert.Zero(t, set, "one replica: only superblock faults")
			}
			if z == ZonePrepares {
				assert.Equal(t, a.FaultyReplicas(ZoneHeaders, slot), set, "journal slot %d", slot)
			}
			for r := 0; r < replicas; r++ {
				assert.Equal(t, set&(1<<r) != 0, a.MayFault(r, z, slot))
			}
		}
	}
	for r := 0; r < replicas; r++ {
		faulty := 0
		for c := 0; c < testGeometry.SuperblockCopies; c++ {
			if a.MayFault(r, ZoneSuperblock, c) {
				faulty++
			}
			assert.Equal(t, a.MayFault(r, ZoneSuperblock, c), a.FaultyReplicas(ZoneSuperblock, c)&(1<<r) != 0)
		}
		assert.Equal(t, testGeometry.SuperblockCopies-1, faulty, "replica %d: exactly one clean superblock copy", r)
	}
}

func TestAtlasOffAllowsEverythingAndDrawsNothing(t *testing.T) {
	rng := prng.New(3, prng.StreamDiskAtlas)
	a, err := NewAtlas(AtlasOptions{Replicas: 5, Quorum: 3, Geometry: testGeometry, Off: true}, rng)
	require.NoError(t, err)
	assert.True(t, a.Off())
	assert.Equal(t, "atlas off", a.Describe())
	assert.Equal(t, prng.New(3, prng.StreamDiskAtlas).Uint64(), rng.Uint64(), "an atlas off drew")
	for z := Zone(0); z < zoneCount; z++ {
		assert.Equal(t, uint64(0b11111), a.FaultyReplicas(z, 0))
		assert.True(t, a.MayFault(4, z, 0))
	}
}

func TestAtlasChunks(t *testing.T) {
	a := newAtlas(t, 3, 2, 1)
	assert.Equal(t, 0, a.Chunk(ZoneHeaders, 7))
	assert.Equal(t, 1, a.Chunk(ZonePrepares, 8))
	assert.Equal(t, 3, a.Chunk(ZoneCheckpoint, 3))
	assert.Equal(t, 2, a.Chunk(ZoneSuperblock, 2))
	assert.Equal(t, a.FaultyReplicas(ZoneHeaders, 0), a.FaultyReplicas(ZoneHeaders, 7), "one chunk, one set")
}

// cluster is the disks of one cluster, faulty, over one atlas.
func cluster(t *testing.T, replicas, quorum int, seed uint64, off bool) []*Disk {
	a, err := NewAtlas(AtlasOptions{Replicas: replicas, Quorum: quorum, Geometry: testGeometry, Off: off},
		prng.New(seed, prng.StreamDiskAtlas))
	require.NoError(t, err)
	var disks []*Disk
	for r := 0; r < replicas; r++ {
		opts := faultyOptions()
		opts.Replica, opts.Atlas = r, a
		disks = append(disks, newDisk(t, opts, seed))
	}
	return disks
}

// TestAtlasBoundsTheDisks runs faulty clusters and checks after every tick
// that the damage stays where the atlas allows: off the crash path, a slot
// is damaged only on replicas the atlas names for it (so never on a
// quorum); with crashes too, no replica ever loses every superblock copy.
func TestAtlasBoundsTheDisks(t *testing.T) {
	for seed := uint64(1); seed <= 40; seed++ {
		for _, crashes := range []bool{false, true} {
			replicas, quorum := 3+int(seed%3), 2+int(seed%2)
			disks := cluster(t, replicas, quorum, seed, false)
			atlas := disks[0].atlas
			w := newWorkload(seed)
			faults := 0
			for i := 0; i < 600; i++ {
				w.step(disks...)
				if crashes && i%50 == 49 {
					disks[i/50%replicas].Crash(w.now)
				}
				for _, d := range disks {
					faults += len(d.Faults())
					assert.True(t, d.superblockSpare(-1, -1), "seed %d: replica %d lost every superblock copy", seed, d.Replica())
				}
				if crashes {
					continue
				}
				for z := Zone(0); z < zoneCount; z++ {
					for slot := 0; slot < testGeometry.Slots(z); slot++ {
						set := DamagedReplicas(disks, z, slot)
						assert.Zero(t, set&^atlas.FaultyReplicas(z, slot), "seed %d: %s/%d damaged outside the atlas", seed, z, slot)
					}
				}
			}
			require.Positive(t, faults, "seed %d: no fault at all", seed)
			if t.Failed() {
				return
			}
		}
	}
}

// TestAtlasOffFaultsLandAnywhere shows the atlas is what bounds the damage:
// off, the same faults soon damage a slot on a quorum of replicas.
func TestAtlasOffFaultsLandAnywhere(t *testing.T) {
	disks := cluster(t, 3, 2, 5, true)
	w := newWorkload(5)
	beyond := false
	for i := 0; i < 2000 && !beyond; i++ {
		w.step(disks...)
		for slot := 0; slot < testGeometry.JournalSlots; slot++ {
			beyond = beyond || bits.OnesCount64(DamagedReplicas(disks, ZonePrepares, slot)) >= 2
		}
	}
	assert.True(t, beyond, "with the atlas off no slot was ever damaged on a quorum")
	assert.True(t, disks[1].AtlasOff())
}

func TestAtlasIsTheSeeds(t *testing.T) {
	a, b := newAtlas(t, 5, 3, 8), newAtlas(t, 5, 3, 8)
	assert.Equal(t, a, b, "the same seed draws the same atlas")
	assert.NotEqual(t, a.journal, newAtlas(t, 5, 3, 9).journal, "another seed, another atlas")
}

// TestLastSuperblockCopyIsSpared leaves one superblock copy intact by script
// and checks that no random fault, nor a crash, takes it while the atlas is
// on, and that with the atlas off they do.
func TestLastSuperblockCopyIsSpared(t *testing.T) {
	cases := []struct {
		name  string
		off   bool
		spare bool
	}{
		{"atlas on", false, true},
		{"atlas off", true, false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			a, err := NewAtlas(AtlasOptions{Replicas: 3, Quorum: 2, Geometry: testGeometry, Off: tc.off},
				prng.New(1, prng.StreamDiskAtlas))
			require.NoError(t, err)
			// last is a copy the atlas lets fail: only the disk's own rule
			// keeps it.
			last := 0
			for c := 0; c < testGeometry.SuperblockCopies; c++ {
				if a.MayFault(0, ZoneSuperblock, c) {
					last = c
				}
			}
			opts := Options{Geometry: testGeometry, Atlas: a, WriteLatencyMinTicks: 1,
				WriteDamaged: always, WriteLost: always, CrashTorn: always}
			d := newDisk(t, opts, 1)
			for c := 0; c < testGeometry.SuperblockCopies; c++ {
				if c != last {
					d.Corrupt(0, ZoneSuperblock, c)
				}
			}
			writeNow(t, d, 1, ZoneSuperblock, last, []byte("seq 7"))
			d.Write(5, ZoneSuperblock, last, []byte("seq 8"))
			d.Crash(5)
			assert.Equal(t, tc.spare, !d.Damaged(ZoneSuperblock, last))
			assert.Equal(t, tc.spare, d.superblockSpare(-1, -1))
		})
	}
}
