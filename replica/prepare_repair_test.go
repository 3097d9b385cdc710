package replica

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"vsrsim/vsr"
)

// TestPrepareOfAHollowOp: a backup that adopted a view's head without its
// body (a restart on a memory journal, then the StartView) while its repair
// requests never reach the primary takes the primary's retransmitted
// Prepare of that op as the repair it asks for, and acks it (D83). With the
// source's prepare-repair-off the same Prepare fails the gap check every
// time, and a Prepare the adopted header does not vouch for fails it always.
func TestPrepareOfAHollowOp(t *testing.T) {
	for _, tc := range []struct {
		name   string
		off    bool
		forged bool
		taken  bool
	}{
		{"robust: the body repair waits for", false, false, true},
		{"source: the gap check drops it", true, false, false},
		{"robust, another body at the op: dropped", false, true, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := newTestCluster(t, 3, func(o *Options) {
				starMemory(o)
				o.Protocol.PrepareRepairOff = tc.off
			})
			c.dropIf(cmdTo(vsr.CmdPrepare, 1)) // r1 never holds op 1: r2 alone can ack it
			c.request(0, 0, 1, put(1, 10))
			for c.deliverOne() {
				if len(c.queue) > 0 && c.queue[0].Command == vsr.CmdPrepareOK {
					break
				}
			}
			require.Len(t, c.take(cmdFrom(vsr.CmdPrepareOK, 2)), 1, "r2's ack held: op 1 stays uncommitted")
			c.deliverAll()
			c.crash(2)
			c.restart(2)
			c.dropIf(cmdFrom(vsr.CmdRequestPrepares, 2))
			if tc.forged {
				// Every Prepare r2 gets names another op 1 than the view's.
				c.dropIf(func(m *vsr.Message) bool {
					if m.Command != vsr.CmdPrepare || m.To != 2 {
						return false
					}
					p := m.Prepare()
					p.Header.Body.Value++
					p.Header.Seal()
					*m = p.Message().InView(m.View)
					m.From, m.To = 0, 2
					return false
				})
			}
			c.tickUntil(100, func() bool { return c.info(2).Status == vsr.StatusNormal }, "r2 adopts the view")
			require.Equal(t, uint64(1), c.info(2).Sequencer)
			require.False(t, c.r(2).Journaled(1), "op 1 hollow at r2")
			c.tick(300)
			assert.Equal(t, tc.taken, c.r(2).Journaled(1))
			assert.Equal(t, tc.taken, len(c.drops(2, "gap")) == 0, "the gap check drops what is not taken")
		})
	}
}
