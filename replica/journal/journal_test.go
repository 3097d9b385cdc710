package journal

import (
	"testing"

	"vsrsim/vsr"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The journal's own rules: bounded retention (the live ring and the evicted
// one), displacement, truncation, and the slots a disk replica writes back.

func hdr(op uint64) vsr.Header {
	h := vsr.Header{Op: op, Timestamp: op}
	h.Seal()
	return h
}

// TestJournalRingEviction: the journal keeps the last `slots` ops; an op
// displaced by a newer one moves to the evicted ring, which repair still
// reads but commit and votes do not.
func TestJournalRingEviction(t *testing.T) {
	j := NewJournal(4, nil)
	for op := uint64(1); op <= 6; op++ {
		j.Put(hdr(op), false)
	}
	assert.Equal(t, uint64(6), j.Head)
	for op := uint64(3); op <= 6; op++ {
		h, ok := j.Get(op)
		require.True(t, ok, "op %d live", op)
		assert.Equal(t, hdr(op).Checksum, h.Checksum)
	}
	for op := uint64(1); op <= 2; op++ {
		_, ok := j.Get(op)
		assert.False(t, ok, "op %d evicted from the live ring", op)
		h, ok := j.GetForRepair(op)
		require.True(t, ok, "op %d still served by repair", op)
		assert.Equal(t, hdr(op).Checksum, h.Checksum)
	}
	assert.True(t, j.Has(6, hdr(6).Checksum))
	assert.False(t, j.Has(6, hdr(5).Checksum), "has checks the checksum")
	assert.False(t, j.Has(1, hdr(1).Checksum), "has reads only the live ring")
}

// TestJournalOlderOpDisplacesOnlyWhenAllowed: an old op never silently
// replaces the newer op in its slot unless the caller asks for it.
func TestJournalOlderOpDisplacesOnlyWhenAllowed(t *testing.T) {
	j := NewJournal(4, nil)
	for op := uint64(5); op <= 8; op++ {
		require.True(t, j.Put(hdr(op), false))
	}
	assert.Equal(t, uint64(5), j.LowestHoldable())
	assert.False(t, j.Put(hdr(4), false), "op 4 would displace op 8")
	assert.True(t, j.Has(8, hdr(8).Checksum), "op 8 kept")
	assert.True(t, j.Put(hdr(4), true), "displace on request")
	assert.True(t, j.Has(4, hdr(4).Checksum))
	assert.False(t, j.Has(8, hdr(8).Checksum), "op 8 displaced")
}

// TestJournalFirstRetained: repair can serve the live ring and the evicted
// ring, 2*slots ops below the head; below that the requester must transfer.
func TestJournalFirstRetained(t *testing.T) {
	j := NewJournal(4, nil)
	assert.Equal(t, uint64(1), j.FirstRetained(), "empty")
	for op := uint64(1); op <= 7; op++ {
		j.Put(hdr(op), false)
		assert.Equal(t, uint64(1), j.FirstRetained(), "head %d < 2*slots", op)
	}
	for op := uint64(8); op <= 20; op++ {
		j.Put(hdr(op), false)
		first := op - 2*4 + 1
		assert.Equal(t, first, j.FirstRetained(), "head %d", op)
		_, ok := j.GetForRepair(first)
		assert.True(t, ok, "head %d: first retained op %d is served", op, first)
		_, ok = j.GetForRepair(first - 1)
		assert.False(t, ok, "head %d: op %d below it is gone", op, first-1)
	}
}

// TestJournalTruncateAbove removes every op above the cut from both rings and
// reports each live one.
func TestJournalTruncateAbove(t *testing.T) {
	j := NewJournal(4, nil)
	for op := uint64(1); op <= 6; op++ {
		j.Put(hdr(op), false)
	}
	var removed []uint64
	j.TruncateAbove(4, func(h vsr.Header) { removed = append(removed, h.Op) })
	assert.Equal(t, []uint64{6, 5}, removed)
	assert.Equal(t, uint64(4), j.Head)
	_, ok := j.Get(5)
	assert.False(t, ok)
	_, ok = j.Get(4)
	assert.True(t, ok)
	j.TruncateAbove(9, func(vsr.Header) { t.Fatal("nothing above the head") })
	assert.Equal(t, uint64(4), j.Head)

	j.Wipe()
	assert.Equal(t, uint64(0), j.Head)
	_, ok = j.GetForRepair(1)
	assert.False(t, ok, "a wipe clears the evicted ring too")
}

// TestDirtySlotsListsEachChangeOnce: a put or a remove notes its slot for
// the next flush once, however often it changes; a ring with no store notes
// nothing.
func TestDirtySlotsListsEachChangeOnce(t *testing.T) {
	d := NewDirtySlots(4)
	j := NewJournal(4, nil)
	j.Live.Store = &d
	j.Put(hdr(1), false)
	j.Put(hdr(5), true) // same slot, displacing op 1
	j.Put(hdr(2), false)
	j.Remove(2)
	assert.Equal(t, []int32{1, 2}, d.List)
	assert.True(t, d.Marked[1] && d.Marked[2])
	assert.False(t, d.Marked[0] || d.Marked[3])
	var none *DirtySlots
	none.Touch(1) // a nil store notes nothing, and does not panic
}

// TestSlotPoolRecyclesCleared: a released ring's slots come back cleared, to a
// ring of their own size only, and the pool keeps at most SlotPoolMax.
func TestSlotPoolRecyclesCleared(t *testing.T) {
	var p SlotPool
	r := NewRing(4, &p)
	r.Put(hdr(3))
	first := &r.Slots[0]
	r.Release()
	require.Len(t, p.Slots, 1)
	assert.Nil(t, r.Slots, "a released ring is empty")
	other := NewRing(8, &p)
	other.Put(hdr(1))
	assert.Len(t, p.Slots, 1, "a ring of another size takes none")
	again := NewRing(4, &p)
	again.Put(hdr(1))
	assert.Same(t, first, &again.Slots[0], "the same memory, reused")
	_, ok := again.Get(3)
	assert.False(t, ok, "cleared: nothing of the released ring is read back")
	for i := 0; i < SlotPoolMax+2; i++ {
		x := NewRing(2, &p)
		x.Put(hdr(1))
		x.Release()
	}
	assert.LessOrEqual(t, len(p.Slots), SlotPoolMax)
}

// TestJournalPutPushesItsOwnOlderVersionOffTheEvictedRing: the evicted ring
// shares the live ring's slots, so an op put over an older op of its slot may
// push off the evicted ring a copy of itself (op 6 evicted by op 10, op 10
// truncated, op 2 put back in its slot, op 6 repaired): another version of
// the op is let go (Gone), the very entry put is not, and neither trips the
// journal's own assertion (swarm seed 3520017557 from 0xd1ce0000).
func TestJournalPutPushesItsOwnOlderVersionOffTheEvictedRing(t *testing.T) {
	other := vsr.Header{Op: 6, Timestamp: 99}
	other.Seal()
	for _, tc := range []struct {
		name    string
		evicted vsr.Header
		gone    vsr.Header
	}{
		{"another version of op 6", other, other},
		{"the very entry put", hdr(6), vsr.Header{}},
	} {
		j := NewJournal(4, nil)
		require.True(t, j.Put(tc.evicted, false))
		require.True(t, j.Put(hdr(10), false), "op 10 moves op 6 to the evicted ring")
		j.TruncateAbove(9, func(vsr.Header) {})
		require.True(t, j.Put(hdr(2), true), "op 2 back in the slot")
		_, evicted := j.GetForRepair(6)
		require.True(t, evicted, "op 6 still on the evicted ring")
		require.NotPanics(t, func() { j.Put(hdr(6), false) }, tc.name)
		assert.True(t, j.Has(6, hdr(6).Checksum), tc.name)
		assert.Equal(t, tc.gone, j.Gone, tc.name)
		assert.Equal(t, uint64(2), j.Moved.Op, "op 2 moved to the evicted ring: %s", tc.name)
	}
}
