package replica

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"vsrsim/vsr"
)

// stateOf prints what a step may change of r, peers aside: hearing a
// message's sender (recency, incarnations) is the prologue every message
// passes before the gate, refused or not.
func stateOf(r *Replica) string {
	return fmt.Sprintf("%v %v %v %+v %+v %+v %+v %+v %+v %+v %+v %+v %+v %+v %+v %+v %+v",
		r.status, r.view, r.logView, r.wm, r.sm, r.log, *r.log.journal, r.dur, r.pipeline, r.requests,
		r.heartbeat, r.abd, r.fwd, r.vc, r.repair, r.transfer, r.timers)
}

// A message the gate refuses changes nothing of the replica; one admitted
// for a single fact (Reason.Takes) may change what that fact names. Every
// message of a run with a view change and a restart is offered again to every
// replica once the run is over: old views, in-view StartViews, acks to
// backups, probes.
func TestRefusalsNeverAct(t *testing.T) {
	c := newTestCluster(t, 3, nil)
	c.commitRequests(0, 1, 4)
	c.crash(0)
	c.tickUntil(4000, func() bool { return c.info(1).Status == vsr.StatusNormal && c.info(1).View >= 1 }, "a view change without r0")
	c.commitRequests(1, 5, 7)
	c.restart(0)
	c.tickUntil(4000, func() bool { return c.info(0).Status == vsr.StatusNormal }, "r0 rejoins")
	require.NotEmpty(t, c.delivered)

	refused := map[vsr.Reason]int{}
	var out vsr.Output
	for i := 0; i < c.n; i++ {
		r := c.r(i)
		for _, m := range c.delivered {
			if m.From == i || m.Command == vsr.CmdRequest {
				continue
			}
			m.To = i
			r.begin(&out)
			r.noteHeard(&m)
			r.hear(&m)
			r.settle()
			before := stateOf(r)
			reason, _ := r.ignore(&m)
			if reason != vsr.ReasonNone && !reason.Takes() {
				r.pass(&m)
				r.settle()
				assert.Equal(t, before, stateOf(r), "r%d changed by a %s refused as %s", i, m.Command, reason)
				refused[reason]++
			}
			r.checkInvariants()
			r.fx.Out = nil
			out.Reset()
		}
	}
	t.Logf("refusals offered: %v", refused)
	assert.GreaterOrEqual(t, len(refused), 3, "the run offers refusals of several reasons")
}

// The fingerprint sees what a partial admission takes: a relayed StartView
// raises a backup's commit point, which a refusal never would.
func TestStateOfSeesATakenCommit(t *testing.T) {
	c := newTestCluster(t, 3, nil)
	c.commitRequests(0, 1, 3)
	r := c.r(2)
	sv := c.r(1).startViewOf(0)
	sv.Commit = r.wm.commitMax + 1
	m := sv.Message().Routed(1, 2, r.view)
	reason, _ := r.ignore(&m)
	require.Equal(t, vsr.ReasonCommitOnly, reason)
	var out vsr.Output
	r.begin(&out)
	before := stateOf(r)
	r.pass(&m)
	r.settle()
	assert.NotEqual(t, before, stateOf(r), "taking the commit point shows")
	r.fx.Out = nil
}
