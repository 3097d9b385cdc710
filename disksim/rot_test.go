package disksim

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// rotFaults lists the decays in d's record.
func rotFaults(d *Disk) []Fault {
	var out []Fault
	for _, f := range d.Faults() {
		if f.Kind == FaultRot {
			out = append(out, f)
		}
	}
	return out
}

// TestRotDecaysAtItsTick: with RotMeanTicks a landed write decays at a tick
// drawn when it landed, found by NextDue and put on the media by Advance at
// that tick, whether or not anything reads the slot.
func TestRotDecaysAtItsTick(t *testing.T) {
	slotBytes := testGeometry.SlotBytes(ZonePrepares)
	d := newDisk(t, Options{RotMeanTicks: 100}, 3)
	writeNow(t, d, 1, ZonePrepares, 2, filled('a', slotBytes))
	due, ok := d.NextDue()
	require.True(t, ok, "the decay waits")
	require.Greater(t, due, uint64(1))
	_, damaged := d.Peek(ZonePrepares, 2)
	require.False(t, damaged, "whole until its tick")
	d.Advance(due-1, nil)
	assert.Empty(t, rotFaults(d))
	d.Advance(due, nil)
	rot := rotFaults(d)
	require.Len(t, rot, 1)
	assert.Equal(t, due, rot[0].Tick, "recorded at its own tick")
	assert.True(t, d.Damaged(ZonePrepares, 2))
	_, damaged = d.Read(due+1, ZonePrepares, 2)
	assert.True(t, damaged)
	_, ok = d.NextDue()
	assert.False(t, ok, "nothing else waits")
}

// TestRotDrawnAtLandingNotByReads: reading a slot often does not move its
// decay, a rewrite before it cancels it, and no decay lands while faults
// are off.
func TestRotDrawnAtLandingNotByReads(t *testing.T) {
	slotBytes := testGeometry.SlotBytes(ZonePrepares)
	decayAt := func(read bool) uint64 {
		d := newDisk(t, Options{RotMeanTicks: 100}, 5)
		writeNow(t, d, 1, ZonePrepares, 0, filled('a', slotBytes))
		due, _ := d.NextDue()
		for now := uint64(2); read && now < due; now++ {
			d.Read(now, ZonePrepares, 0)
		}
		d.Advance(due, nil)
		require.Len(t, rotFaults(d), 1)
		return rotFaults(d)[0].Tick
	}
	assert.Equal(t, decayAt(false), decayAt(true), "reads draw nothing of it")

	d := newDisk(t, Options{RotMeanTicks: 100}, 5)
	writeNow(t, d, 1, ZonePrepares, 0, filled('a', slotBytes))
	writeNow(t, d, 2, ZonePrepares, 0, filled('b', slotBytes))
	d.Advance(1_000_000, nil)
	assert.Len(t, rotFaults(d), 1, "the rewrite cancels the first write's decay; its own stands")

	stopped := newDisk(t, Options{RotMeanTicks: 100}, 5)
	writeNow(t, stopped, 1, ZonePrepares, 0, filled('a', slotBytes))
	assert.Equal(t, 1, stopped.StopRot(), "one decay waited")
	stopped.Advance(1_000_000, nil)
	assert.Empty(t, rotFaults(stopped), "stopped: nothing decays")
	assert.Zero(t, stopped.StopRot())

	off := newDisk(t, Options{RotMeanTicks: 100}, 5)
	writeNow(t, off, 1, ZonePrepares, 0, filled('a', slotBytes))
	off.SetFaultsEnabled(false)
	off.Advance(1_000_000, nil)
	assert.Empty(t, rotFaults(off), "faults off: nothing decays")
	_, damaged := off.Peek(ZonePrepares, 0)
	assert.False(t, damaged)
}

// TestNoRotDrawsNothing: without RotMeanTicks a disk draws exactly as
// before: the same latencies and faults, whatever is written.
func TestNoRotDrawsNothing(t *testing.T) {
	slotBytes := testGeometry.SlotBytes(ZonePrepares)
	d := newDisk(t, Options{WriteLatencyMeanTicks: 5}, 9)
	assert.Nil(t, d.rot)
	writeNow(t, d, 1, ZonePrepares, 0, filled('a', slotBytes))
	_, ok := d.NextDue()
	assert.False(t, ok, "no decay waits")
}
