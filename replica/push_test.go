package replica

import (
	"testing"
	"vsrsim/vsr"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestPrimaryPushesStartView: r2 missed view 1's StartView and then lost its
// link to r1, the new primary, while still hearing it. Its probes and votes
// never arrive, so r1 sends the StartView unasked once a heartbeat timeout
// passes without a word from r2, and r2 joins the view and its commits.
// With the push off, r0 (a backup of view 1 once it restarts, following it
// well) relays the view to r2 when r2 asks to leave its old view; with the
// relay off too, r2 waits outside the view for good.
func TestPrimaryPushesStartView(t *testing.T) {
	tests := []struct {
		name     string
		protocol Protocol
		joins    bool
	}{
		{"robust", Protocol{}, true},
		{"push off, a backup relays", Protocol{PushStartViewOff: true}, true},
		{"push and relay off", Protocol{PushStartViewOff: true, RelayStartViewOff: true}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := newTestCluster(t, 3, func(o *Options) { o.Protocol = tt.protocol })
			c.commitRequests(0, 1, 2)
			hold := c.dropIf(cmdTo(vsr.CmdStartView, 2))
			c.crash(0)
			hb := int(smallTimeouts().HeartbeatTicks)
			c.tickUntil(8*hb, func() bool { return c.info(1).Status == vsr.StatusNormal && c.info(1).View == 1 }, "r1 leads view 1")
			require.NotEqual(t, vsr.StatusNormal, c.info(2).Status, "r2 missed the StartView")
			c.restart(0) // a quorum for view 1 without r2's acks
			c.removeFilter(hold)
			c.cutLink(2, 1)
			since := c.mark()
			c.tick(4 * hb)
			c.commitRequests(1, 3, 4)
			c.tick(2 * hb)
			assert.Equal(t, tt.joins, c.info(2).Status == vsr.StatusNormal && c.info(2).View == 1, "r2 joins view 1")
			assert.Equal(t, tt.joins, c.info(2).CommitMin == 4, "r2 applies view 1's commits")
			assert.Equal(t, tt.joins, len(c.sentSince(since, cmdTo(vsr.CmdStartView, 2))) > 0, "r1 pushed its StartView, or r0 relayed it")
		})
	}
}

// TestPushedStartViewLeavesAFollowerAlone: a backup already Normal in the
// view refuses the pushed StartView at the gate, so a primary that merely
// cannot hear it rewinds nothing: r1 keeps every op it journaled and applies
// the commits r2's acks make.
func TestPushedStartViewLeavesAFollowerAlone(t *testing.T) {
	c := newTestCluster(t, 3, nil)
	c.commitRequests(0, 1, 2)
	c.cutLink(1, 0)
	hb := int(smallTimeouts().HeartbeatTicks)
	c.tick(2 * hb)
	c.commitRequests(0, 3, 5)
	c.tick(2 * hb)
	require.NotEmpty(t, c.sent(cmdTo(vsr.CmdStartView, 1)), "r0 pushed its StartView to r1")
	assert.NotEmpty(t, c.drops(1, vsr.ReasonInView.String()))
	assert.Empty(t, c.eventsOf(1, vsr.EvJournalTruncate))
	assert.Equal(t, uint64(5), c.info(1).CommitMin)
	assert.Equal(t, uint64(0), c.info(1).View)
}
