package replica

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"vsrsim/vsr"
)

// TestBlanksLandAfterTheSuperblock (D71): an op taken out in a step that
// writes the superblock (a view change's truncation) is blanked after the
// superblock and marked to wait for it; taken out alone, it is blanked at
// once. CI's sweep on 870a6e8, seed 12874905672124114957: the blanks of a
// StartView's truncation landed, its superblock did not, and the restart in
// the old log_view held the acked ops it no longer found unsure for good.
func TestBlanksLandAfterTheSuperblock(t *testing.T) {
	for _, tc := range []struct {
		name            string
		superblock      bool
		afterSuperblock bool
	}{
		{"with a new log_view", true, true},
		{"alone", false, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, r2 := readsBackup(t, nil)
			slot := r2.slotOf(5)
			out := &vsr.Output{}
			r2.fx.Out = out
			r2.journalRemove(5)
			if tc.superblock {
				r2.dur.sb.LogView++
			}
			r2.flushStorage()
			sb, blanks := slotWrites(out, slot)
			for _, k := range blanks {
				assert.Equal(t, tc.afterSuperblock, out.Writes[k].AfterSuperblock, "write %d", k)
				if tc.superblock {
					assert.Greater(t, k, sb, "the blank is asked after the superblock")
				}
			}
			assert.Len(t, blanks, 2, "both copies blanked")
			require.Equal(t, tc.superblock, sb >= 0, "a superblock only with the new log_view")
		})
	}
}

// TestDisplacingWriteLandsAfterTheSuperblock (D110): an op written over a
// slot whose op lies above the commit point of the last superblock known to
// have landed is asked after a superblock of its step and waits for it (one
// is asked even where the fields did not change: the superblock that raised
// the point may still be in flight, and a write asked after it may land
// first); over an op a landed superblock covers, it is written at once.
// source-600d-1611517016.vsr: repair journaled op 143 over op 15 at a
// replica of head 15, the write landed and the superblock raising the commit
// point did not, and the restart, back below op 15 without a copy of it,
// nacked it in its vote.
func TestDisplacingWriteLandsAfterTheSuperblock(t *testing.T) {
	for _, tc := range []struct {
		name   string
		cover  func(r *Replica)
		landed bool
	}{
		{"over an op the step's superblock covers first", func(*Replica) {}, false},
		{"over an op a superblock in flight covers", func(r *Replica) {
			r.dur.sb.CommitMax = 5
			r.dur.store.written.commitMax = 5
			r.dur.store.landing.asked(r.dur.fencesAsked+1, 5, true)
		}, false},
		{"over an op a landed superblock covers", func(r *Replica) {
			r.dur.sb.CommitMax = 5
			r.dur.store.written.commitMax = 5
			r.dur.store.landing.commit = 5
		}, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, r2 := readsBackup(t, nil)
			slots := uint64(r2.opts.JournalSlots)
			hs := chainHeaders(int(slots)+5, 1)
			h := hs[slots+5]
			require.Equal(t, r2.slotOf(5), r2.slotOf(h.Op))
			r2.wm.commitMax = h.Op // learned from a peer: far above the head 5
			tc.cover(r2)
			out := &vsr.Output{}
			r2.fx.Out = out
			require.True(t, r2.journalPut(h, false))
			require.Equal(t, uint64(5), r2.log.journal.Moved.Op, "op 5 leaves the live ring")
			r2.flushStorage()
			sb, entries := slotWrites(out, r2.slotOf(h.Op))
			for _, k := range entries {
				assert.Equal(t, !tc.landed, out.Writes[k].AfterSuperblock, "write %d", k)
				if !tc.landed {
					assert.Greater(t, k, sb, "the entry is asked after the superblock")
				}
			}
			assert.Len(t, entries, 2, "both copies written")
			assert.Equal(t, !tc.landed, sb >= 0, "a superblock of the step to wait for")
			r2.Landed(r2.dur.fencesAsked)
			assert.GreaterOrEqual(t, r2.dur.store.landing.commit, uint64(5), "its landing covers op 5")
		})
	}
}

// TestWriteOverAReadLostOpLandsAfterTheSuperblock (D126): a read that gave
// up an op's body takes it off the ring with no write, so the disk's slot
// still holds its copies; the op written there next pushes them off with no
// Moved or Gone, and waits for a superblock as a displacing write does
// (swarm seed 2644367461 from 0x9d9d0000: repair wrote op 132 over a
// read-lost op 4 above the landed commit point, spec/displace_after_superblock).
func TestWriteOverAReadLostOpLandsAfterTheSuperblock(t *testing.T) {
	_, r2 := readsBackup(t, nil)
	slots := uint64(r2.opts.JournalSlots)
	hs := chainHeaders(int(slots)+5, 1)
	h := hs[slots+5]
	r2.wm.commitMax = h.Op
	lost, ok := r2.log.journal.Get(5)
	require.True(t, ok)
	out := &vsr.Output{}
	r2.fx.Out = out
	r2.readLost(lost)
	require.True(t, r2.journalPut(h, false))
	require.Zero(t, r2.log.journal.Moved.Checksum, "the ring held nothing at the slot")
	r2.flushStorage()
	sb, entries := slotWrites(out, r2.slotOf(h.Op))
	require.Len(t, entries, 2, "both copies written")
	assert.GreaterOrEqual(t, sb, 0, "a superblock of the step to wait for")
	for _, k := range entries {
		assert.True(t, out.Writes[k].AfterSuperblock, "write %d", k)
		assert.Greater(t, k, sb, "the entry is asked after the superblock")
	}
}

// slotWrites finds, among a step's writes, the first superblock copy's
// index (-1: none) and the indices of the journal writes at slot.
func slotWrites(out *vsr.Output, slot int) (sb int, journal []int) {
	sb = -1
	for k, w := range out.Writes {
		switch {
		case w.Zone == vsr.ZoneSuperblock && sb < 0:
			sb = k
		case w.Slot == slot && (w.Zone == vsr.ZonePrepares || w.Zone == vsr.ZoneHeaders):
			journal = append(journal, k)
		}
	}
	return sb, journal
}
