package replica

import (
	"testing"
	"vsrsim/vsr"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestTransferAsksPeersWhenPrimarySilent: a backup whose requests for an
// offer never reach its primary (a slow or full link) asks its other peers
// after two unanswered requests, and a caught-up backup offers its
// committed state to it: the transfer installs without the primary. Before,
// only the primary could offer, and a core backup behind a slow link to a
// primary outside the core never caught up.
func TestTransferAsksPeersWhenPrimarySilent(t *testing.T) {
	c, noRepair := retained(t, 140)
	c.removeFilter(noRepair)
	c.dropIf(func(m *vsr.Message) bool {
		return m.Command == vsr.CmdRequestPrepares && m.From == 2 && m.RequestPrepares().From > 1
	})
	c.dropIf(func(m *vsr.Message) bool { return m.From == 2 && m.To == 0 && m.Command == vsr.CmdRequestStateTransfer })

	c.tickUntil(300, func() bool { return c.info(2).CommitMin == 140 }, "r2 catches up without its primary")
	toPrimary := c.sent(func(m *vsr.Message) bool { return m.Command == vsr.CmdRequestStateTransfer && m.From == 2 && m.To == 0 })
	assert.Len(t, toPrimary, offerAsksOfPrimary, "the primary is asked twice, then the peers in turn")
	offers := c.sent(func(m *vsr.Message) bool { return m.Command == vsr.CmdStateTransferOffer && m.To == 2 })
	require.NotEmpty(t, offers)
	assert.Equal(t, 1, offers[0].From, "a caught-up backup offered")
	inst := c.eventsOf(2, vsr.EvTransferInstall)
	require.Len(t, inst, 1)
	assert.Equal(t, c.r(0).sm, c.r(2).sm)
}

// TestOfferRequestsStayWithAnsweringPrimary: while the primary answers, a
// transferring backup asks nobody else.
func TestOfferRequestsStayWithAnsweringPrimary(t *testing.T) {
	c, noRepair := retained(t, 140)
	c.removeFilter(noRepair)
	c.dropIf(func(m *vsr.Message) bool {
		return m.Command == vsr.CmdRequestPrepares && m.From == 2 && m.RequestPrepares().From > 1
	})
	c.tickUntil(200, func() bool { return c.info(2).CommitMin == 140 }, "r2 catches up")
	asked := c.sent(cmdFrom(vsr.CmdRequestStateTransfer, 2))
	require.NotEmpty(t, asked, "r2 transferred")
	for _, m := range asked {
		assert.Equal(t, 0, m.To, "only the primary is asked")
	}
}
