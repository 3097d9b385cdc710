package replica

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"vsrsim/prng"
	"vsrsim/replica/journal"
	"vsrsim/replica/room"
	"vsrsim/vsr"
)

// TestReleasedMemoryComesBackEmpty: a replica made after another was
// released starts with an empty journal, empty header rings and an empty
// pipeline of full capacity, whatever the released one held.
func TestReleasedMemoryComesBackEmpty(t *testing.T) {
	opts := DefaultOptions(0, 3)
	opts.Spare = &Spare{}
	for round := 0; round < 3; round++ {
		old, err := New(opts, prng.ReplicaJitter(1, 0))
		require.NoError(t, err)
		for op := uint64(1); op <= 8; op++ {
			h := vsr.Header{Op: op, Checksum: op}
			old.log.journal.Put(h, true)
			old.log.adopted.Put(h)
			old.log.aside.Put(h)
			old.pipeline = append(old.pipeline, room.PipelineEntry{Header: h})
		}
		old.Release()
		fresh, err := New(opts, prng.ReplicaJitter(1, 0))
		require.NoError(t, err)
		for op := uint64(1); op <= 8; op++ {
			_, inJournal := fresh.log.journal.Get(op)
			_, adopted := fresh.log.adopted.Get(op)
			_, aside := fresh.log.aside.Get(op)
			assert.False(t, inJournal || adopted || aside, "round %d: op %d survived a release", round, op)
		}
		if round > 0 {
			require.NotEmpty(t, opts.Spare.headers.Slots, "round %d: nothing was recycled", round)
		}
		assert.Empty(t, fresh.pipeline)
		assert.Equal(t, vsr.SuffixMax, cap(fresh.pipeline))
		fresh.Release()
		fresh.Release() // twice is harmless
	}
}

// A spare keeps as many header rings as it keeps pipelines: a cluster's worth.
func TestSpareKeepsAClustersWorth(t *testing.T) {
	assert.Equal(t, spareMax, journal.SlotPoolMax)
}
