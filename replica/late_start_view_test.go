package replica

import (
	"testing"
	"vsrsim/vsr"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// An amnesiac replica refuses a StartView of the view it last acked in whose
// head lies below what it acked there: a view's head only grows, so the
// StartView is an old one, delayed. Adopted, it would set the replica's head
// below acked ops and its next vote would disown them. A StartView of that
// view at or above the acked ops is adopted as before, and an old StartView
// below the checkpoint keeps its own reason (below-commit).
func TestRecoveringRefusesStartViewBelowItsAcks(t *testing.T) {
	for _, tc := range []struct {
		name       string
		checkpoint uint64 // checkpoint interval
		reason     string
	}{
		{"below its acks", 64, "below-ack"},
		{"below its checkpoint", 1, "below-commit"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := newTestCluster(t, 3, func(o *Options) {
				o.Durability = DurabilityMemory
				o.CheckpointInterval = tc.checkpoint
			})
			c.commitRequests(0, 1, 2)

			// r2 restarts and probes; hold back r0's first answer.
			c.crash(2)
			c.restart(2)
			hold := c.dropIf(cmdTo(vsr.CmdStartView, 2))
			since := c.mark()
			c.tickUntil(100, func() bool { return len(c.sentSince(since, cmdTo(vsr.CmdStartView, 2))) > 0 }, "r0 answers r2's probe")
			old := c.sentSince(since, cmdTo(vsr.CmdStartView, 2))[0]
			require.Equal(t, uint64(2), old.StartView().Op)
			c.removeFilter(hold)
			c.tickUntil(100, func() bool { return c.info(2).Status == vsr.StatusNormal }, "r2 recovers")

			// r2 acks ops 3 and 4 of the same view, then loses its journal again.
			c.commitRequests(0, 3, 4)
			require.Equal(t, uint64(4), c.info(2).AckHead)
			c.crash(2)
			c.restart(2)
			require.Equal(t, vsr.StatusRecovering, c.info(2).Status)

			c.inject(old)
			c.deliverAll()
			assert.Len(t, c.drops(2, tc.reason), 1, "the old StartView is refused")
			assert.Equal(t, vsr.StatusRecovering, c.info(2).Status, "nothing adopted")

			c.tickUntil(100, func() bool { return c.info(2).Status == vsr.StatusNormal }, "r2 recovers from a fresh answer")
			assert.GreaterOrEqual(t, c.info(2).Sequencer, uint64(4), "its head covers the ops it acked")
		})
	}
}
