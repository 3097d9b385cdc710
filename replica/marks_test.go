package replica

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"vsrsim/marks"
	"vsrsim/replica/outbox"
	"vsrsim/vsr"
)

// A drop counts its reason's mark from the one drop path, wherever the
// refusal happened; a reason with no mark counts nothing. Counting allocates
// nothing, since it runs on every dropped message.
func TestDropCountsItsReasonsMark(t *testing.T) {
	tests := []struct {
		reason vsr.Reason
		want   marks.Mark // marks.Count: none
	}{
		{vsr.ReasonGap, marks.DropGap},
		{vsr.ReasonOldView, marks.DropOldView},
		{vsr.ReasonBadChecksum, marks.DropBadChecksum},
		{vsr.ReasonBelowCommit, marks.DropBelowCommit},
		{vsr.ReasonDVCGap, marks.DropDVCUnreadable},
		{vsr.ReasonOfferNotNewer, marks.TransferOfferRefusedNotNewer},
		{vsr.ReasonInFlight, marks.Count},
		{vsr.ReasonNotPrimary, marks.Count},
	}
	for _, tc := range tests {
		t.Run(tc.reason.String(), func(t *testing.T) {
			r, err := New(DefaultOptions(1, 3), zeroJitter{})
			require.NoError(t, err)
			var out vsr.Output
			r.fx.Out = &out
			r.fx.Drop(&vsr.Envelope{Command: vsr.CmdPrepare, From: 0}, 0, tc.reason, 0)
			var want marks.Counts
			if tc.want != marks.Count {
				want.Hit(tc.want)
			}
			assert.Equal(t, want, out.Marks)
			allocs := testing.AllocsPerRun(10, func() { r.fx.MarkReason(tc.reason) })
			assert.Zero(t, allocs, "counting a mark allocates")
		})
	}
}

// Every mark the drop table names is a real mark, and no reason maps to a
// mark of another family by a slip in the table.
func TestDropTableNamesRealMarks(t *testing.T) {
	for reason := vsr.ReasonNone; reason < vsr.ReasonCount; reason++ {
		m := outbox.DropMarks[reason]
		if m == outbox.NoMark {
			continue
		}
		assert.Less(t, m, marks.Count, "reason %s", reason)
		name := m.String()
		assert.True(t, strings.HasPrefix(name, "drop-") || strings.HasPrefix(name, "transfer-offer-refused-"),
			"reason %s maps to %s", reason, name)
	}
}
