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
			sb, blanks := -1, 0
			for k, w := range out.Writes {
				switch {
				case w.Zone == vsr.ZoneSuperblock && sb < 0:
					sb = k
				case w.Slot == slot && w.Zone != vsr.ZoneSuperblock && w.Zone != vsr.ZoneCheckpoint:
					blanks++
					assert.Equal(t, tc.afterSuperblock, w.AfterSuperblock, "write %d", k)
					if tc.superblock {
						assert.Greater(t, k, sb, "the blank is asked after the superblock")
					}
				}
			}
			assert.Equal(t, 2, blanks, "both copies blanked")
			require.Equal(t, tc.superblock, sb >= 0, "a superblock only with the new log_view")
		})
	}
}
