package swarm

import (
	"testing"

	"vsrsim/replica/timer"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// VR's liveness rests on eventual synchrony: a view change completes once its
// timeouts outgrow the delays. The status timeout's longest backoff must
// therefore outwait every link the swarm draws slow, with a view change's
// round trip of ordinary hops on top (D97); a slower link would make a voter
// the core needs late to every round, and the run stall by construction. The
// foci are left out: the transfer race draws a link from r0 to a stale
// offerer slower than any round on purpose (its offers must arrive after the
// transfer they answer), and only r0's messages to it are that late.
func TestSwarmLinksStaySlowerThanNoViewChangeRound(t *testing.T) {
	var tm timer.Timers
	const roundTrip = 3 * 100 // three hops of ordinary latency, generously
	var most uint64
	for seed := uint64(1); seed <= 20000; seed++ {
		c := Unfocused(seed)
		tm.Init(c.Timeouts, !c.Protocol.BackoffOff)
		if c.Protocol.BackoffOff {
			continue // the source without backoff makes no such promise
		}
		for _, d := range c.ExtraDelays {
			most = max(most, d.Ticks)
			assert.Less(t, d.Ticks+roundTrip, tm.VcStatus.Longest(), "seed %d link %d->%d", seed, d.From, d.To)
		}
	}
	require.Greater(t, most, uint64(4000), "the swarm still draws links slower than the old 8x cap")
}
