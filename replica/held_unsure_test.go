package replica

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"vsrsim/vsr"
)

// TestHeldUnsureOnlyForHeadersItMayHaveAcked: a replica that lost what it
// held up to its unsure top, every ack of it then in view 1, and that has
// acked in view 6 since, holds unsure only the headers it may have acked: a
// view-1 header at or below the top, and a header of view 6 or older whose
// body a read gave up since; a view-3 header at or below the top is none it
// lost (its vote counts as a nack of it), nor is a view-7 one (the open
// finding seeds/recorded/robust-disk-unsure-op-outside-core.vsr, where holding such a
// header unsure left an op no merge could cut).
func TestHeldUnsureOnlyForHeadersItMayHaveAcked(t *testing.T) {
	r, _ := walBackup(t)
	r.log.unsureTop, r.log.unsureAckView = 10, 1
	r.dur.sb.AckView = 6
	r.log.unsureOps = []uint64{12}
	for _, c := range []struct {
		op, view uint64
		unsure   bool
		why      string
	}{
		{7, 1, true, "acked in view 1 before the loss, maybe"},
		{8, 3, false, "view 3 is newer than every ack before the loss"},
		{8, 6, false, "acked in view 6 after the loss: it would hold the body"},
		{12, 6, true, "its body given up since, of a view it acked in"},
		{12, 7, false, "a view it never acked in"},
		{11, 1, false, "above the top and no faulty slot"},
	} {
		assert.Equal(t, c.unsure, r.heldUnsure(vsr.Header{Op: c.op, View: c.view}), "op %d view %d: %s", c.op, c.view, c.why)
	}
}
