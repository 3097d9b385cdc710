package replica

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"vsrsim/marks"
	"vsrsim/replica/timer"
	"vsrsim/vsr"
	"vsrsim/vsr/vsrtest"
)

// The scrubber (docs/storage.md "The scrubber"): a replica on a disk reads
// its journal back in the background and mends what it finds.

// scrubBackup is readsBackup's backup with its scrubber on (the test
// cluster's timeouts leave it off).
func scrubBackup(t *testing.T) (*testCluster, *Replica) {
	return readsBackupWith(t, func(o *Options) { o.Timeouts.ScrubTicks = timer.ScrubTicksDefault })
}

// scrubTurn ticks r until its scrubber asks for a read, and returns it.
func scrubTurn(t *testing.T, r *Replica) vsr.Read {
	t.Helper()
	for range 2 * timer.ScrubTicksDefault {
		out := &vsr.Output{}
		r.Tick(out)
		if len(out.Reads) > 0 {
			require.Len(t, out.Reads, 1, "one read at a time")
			return out.Reads[0]
		}
	}
	require.Fail(t, "the scrubber asked for no read")
	return vsr.Read{}
}

// writesTo lists the zones of out's writes to slot.
func writesTo(out *vsr.Output, slot int) []vsr.StorageZone {
	var zs []vsr.StorageZone
	for _, w := range out.Writes {
		if w.Slot == slot && w.Zone != vsr.ZoneSuperblock {
			zs = append(zs, w.Zone)
		}
	}
	return zs
}

func TestScrubReadsBothCopiesAndMovesOn(t *testing.T) {
	_, r2 := scrubBackup(t)
	h1, ok := r2.log.journal.Get(1)
	require.True(t, ok)
	rd := scrubTurn(t, r2)
	assert.Equal(t, vsr.ZonePrepares, rd.Zone, "the prepare copy first")
	assert.Equal(t, uint64(1), rd.Op, "from the first op above the checkpoint")
	out := &vsr.Output{}
	r2.ReadDone(&vsr.ReadDone{Read: rd, Data: diskCopy(r2, vsr.ZonePrepares, h1)}, out)
	next, ok := readOf(out, 1)
	require.True(t, ok, "then the header ring's copy")
	assert.Equal(t, vsr.ZoneHeaders, next.Zone)
	out = &vsr.Output{}
	r2.ReadDone(&vsr.ReadDone{Read: next, Data: diskCopy(r2, vsr.ZoneHeaders, h1)}, out)
	assert.Empty(t, out.Writes, "both copies whole: nothing to mend")
	assert.Empty(t, out.Reads)
	assert.Zero(t, out.Marks[marks.StorageScrubRewritten]+out.Marks[marks.StorageScrubLost])
	assert.Equal(t, uint64(2), scrubTurn(t, r2).Op, "the next turn reads the next op")
}

func TestScrubRewritesFromTheWholeCopy(t *testing.T) {
	for name, bad := range map[string]vsr.StorageZone{"prepare damaged": vsr.ZonePrepares, "header copy damaged": vsr.ZoneHeaders} {
		t.Run(name, func(t *testing.T) {
			_, r2 := scrubBackup(t)
			h1, _ := r2.log.journal.Get(1)
			rd := scrubTurn(t, r2)
			for _, z := range []vsr.StorageZone{vsr.ZonePrepares, vsr.ZoneHeaders} {
				require.Equal(t, z, rd.Zone)
				done := &vsr.ReadDone{Read: rd, Data: diskCopy(r2, z, h1)}
				if z == bad {
					done.IOErr = true
				}
				out := &vsr.Output{}
				r2.ReadDone(done, out)
				if z == vsr.ZonePrepares {
					rd, _ = readOf(out, 1)
					continue
				}
				assert.EqualValues(t, 1, out.Marks[marks.StorageScrubRewritten])
				assert.Equal(t, []vsr.StorageZone{bad}, writesTo(out, r2.slotOf(1)),
					"only the copy that failed is written again: the whole one read clean")
				assert.True(t, r2.log.journal.Has(1, h1.Checksum), "the entry stays")
				for _, w := range out.Writes {
					if w.Slot == r2.slotOf(1) && w.Zone != vsr.ZoneSuperblock {
						assert.False(t, w.Fenced, "nothing waits for a mend of a copy the other still holds")
					}
				}
			}
		})
	}
}

func TestScrubGivesABodyBothCopiesLostToRepair(t *testing.T) {
	_, r2 := scrubBackup(t)
	h5, ok := r2.log.journal.Get(5)
	require.True(t, ok)
	r2.dur.store.scrub.Next = 5
	rd := scrubTurn(t, r2)
	require.Equal(t, uint64(5), rd.Op)
	out := &vsr.Output{}
	r2.ReadDone(&vsr.ReadDone{Read: rd, IOErr: true, Data: make([]byte, vsr.PrepareRecordBytes)}, out)
	rd, ok = readOf(out, 5)
	require.True(t, ok)
	out = &vsr.Output{}
	r2.ReadDone(&vsr.ReadDone{Read: rd, IOErr: true, Data: make([]byte, vsr.HeaderRecordBytes)}, out)
	assert.EqualValues(t, 1, out.Marks[marks.StorageScrubLost])
	assert.False(t, r2.log.journal.Has(5, h5.Checksum), "the body left the journal")
	assert.Contains(t, r2.log.unsureOps, uint64(5), "held unsure, never voted absent")
	assert.GreaterOrEqual(t, r2.log.repairArmedTo, uint64(5), "repair fetches it")
	assert.Empty(t, writesTo(out, r2.slotOf(5)), "no blank over the faulty slot")
}

func TestScrubSkipsASlotWrittenSinceItsRead(t *testing.T) {
	_, r2 := scrubBackup(t)
	h1, _ := r2.log.journal.Get(1)
	rd := scrubTurn(t, r2)
	r2.dur.store.slotFence[r2.slotOf(1)] = r2.dur.fencesLanded + 1 // a write of the slot went out
	out := &vsr.Output{}
	r2.ReadDone(&vsr.ReadDone{Read: rd, IOErr: true, Data: diskCopy(r2, vsr.ZonePrepares, h1)}, out)
	assert.Empty(t, out.Reads, "the bytes may predate the write: nothing more of this op")
	assert.Empty(t, out.Writes)
	assert.Zero(t, r2.dur.store.scrub.Tag, "the scrubber is free for its next turn")
}

func TestScrubOffReadsNothing(t *testing.T) {
	c := newTestCluster(t, 3, func(o *Options) { onDisk(o); o.Timeouts.ScrubTicks = 0 })
	c.commitRequests(0, 1, 3)
	r2 := c.r(2)
	r2.Landed(r2.dur.fencesAsked)
	for range 5 * timer.ScrubTicksDefault {
		out := &vsr.Output{}
		r2.Tick(out)
		require.Empty(t, out.Reads)
	}
	assert.False(t, r2.timers.Scrub.Running)
}

// The scrubber's and the lost superblock's invariants fire when their state
// is planted wrong: each is a check that can fail.
func TestScrubAndAmnesiaInvariantsFire(t *testing.T) {
	for _, c := range []struct {
		name  string
		plant func(t *testing.T) func()
	}{
		{"scrub_one_read_at_a_time", func(t *testing.T) func() {
			_, r2 := scrubBackup(t)
			rd := scrubTurn(t, r2)
			r2.dur.store.scrub.Tag = rd.Tag + 1 // another read believed in flight
			h, _ := r2.log.journal.Get(rd.Op)
			return func() { r2.ReadDone(&vsr.ReadDone{Read: rd, Data: diskCopy(r2, vsr.ZonePrepares, h)}, &vsr.Output{}) }
		}},
		{"rewrite_the_journal_entry", func(t *testing.T) func() {
			_, r2 := scrubBackup(t)
			h, _ := r2.log.journal.Get(1)
			h.Body.Value++
			h.Seal() // an entry the journal does not hold
			return func() {
				r2.fx.Out = &vsr.Output{}
				r2.rewriteCopy(vsr.ZonePrepares, r2.slotOf(1), h)
			}
		}},
		{"unsure_ops_sorted", func(t *testing.T) func() {
			_, r2 := scrubBackup(t)
			r2.log.unsureOps = []uint64{9, 7}
			return func() { r2.unsureOp(8) }
		}},
		{"amnesiac_superblock_says_so", func(t *testing.T) func() {
			_, r2 := scrubBackup(t)
			r2.dur.sb.Amnesiac = false
			return func() { r2.comeBackAmnesiac() }
		}},
	} {
		t.Run(c.name, func(t *testing.T) {
			v := vsrtest.ViolationOf(c.plant(t))
			require.NotNil(t, v)
			assert.Equal(t, c.name, v.Invariant)
		})
	}
}
