package disksim

import (
	"testing"

	"github.com/stretchr/testify/require"

	"vsrsim/prng"
)

// steadyDisk is a disk of the default geometry in a journal's steady state:
// each step, one tick passes, a prepare and its header are written to the
// next journal slot, the due writes complete and one slot is read.
type steadyDisk struct {
	d       *Disk
	now     uint64
	prepare []byte
	header  []byte
	done    []Completion
	slots   int
}

func newSteadyDisk(t testing.TB, faulty bool) *steadyDisk {
	opts := Options{WriteLatencyMinTicks: 2, WriteLatencyMeanTicks: 8}
	if faulty {
		a, err := NewAtlas(AtlasOptions{Replicas: 3, Quorum: 2}, prng.New(1, prng.StreamDiskAtlas))
		require.NoError(t, err)
		r := prng.Ratio{Num: 1, Den: 1000}
		opts.Atlas = a
		opts.ReadLatent, opts.WriteDamaged, opts.WriteMisdirected, opts.WriteLost = r, r, r, r
	}
	d, err := New(opts, prng.Disk(1, 0))
	require.NoError(t, err)
	s := &steadyDisk{
		d: d, prepare: make([]byte, 1500), header: make([]byte, 128),
		done: make([]Completion, 0, 16), slots: d.Options().Geometry.JournalSlots,
	}
	for i := 0; i < 10_000; i++ {
		s.step()
	}
	return s
}

func (s *steadyDisk) step() {
	s.now++
	slot := int(s.now) % s.slots
	s.prepare[0], s.header[0] = byte(s.now), byte(s.now)
	s.d.Write(s.now, ZonePrepares, slot, s.prepare)
	s.d.Write(s.now, ZoneHeaders, slot, s.header)
	s.done = s.d.Advance(s.now, s.done[:0])
	s.d.Read(s.now, ZonePrepares, (slot+s.slots/2)%s.slots)
}

// BenchmarkDisk measures one steady-state step (two writes, their share of
// completions, one read), fault-free and with every random fault at 1/1000
// under an atlas.
func BenchmarkDisk(b *testing.B) {
	for _, faulty := range []bool{false, true} {
		name := "fault-free"
		if faulty {
			name = "faulty"
		}
		b.Run(name, func(b *testing.B) {
			s := newSteadyDisk(b, faulty)
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				s.step()
			}
		})
	}
}

func TestSteadyStateDoesNotAllocate(t *testing.T) {
	s := newSteadyDisk(t, false)
	if allocs := testing.AllocsPerRun(10_000, s.step); allocs != 0 {
		t.Fatalf("a fault-free steady state allocates %.2f times per step", allocs)
	}
}
