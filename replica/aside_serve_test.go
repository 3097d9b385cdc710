package replica

import (
	"testing"
	"vsrsim/vsr"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestRepairServesSetAsideBodies: a body set aside (no chain here vouches for
// it yet) is served to a repair request like a journaled one: it may be the
// last copy of a committed op, and the requester may hold what vouches for
// it. The requester's own check decides (repairVerdict).
func TestRepairServesSetAsideBodies(t *testing.T) {
	c := newTestCluster(t, 3, nil)
	c.commitRequests(0, 1, 4)
	r2 := c.r(2)
	j, ok := r2.log.journal.Get(3)
	require.True(t, ok)
	require.LessOrEqual(t, j.Op, r2.wm.commitMax)
	r2.fx.Out = &vsr.Output{}
	r2.discard(j, false)
	r2.fx.Out = nil
	_, held := r2.log.journal.Get(3)
	require.False(t, held, "op 3 left the journal")
	_, aside := r2.log.aside.Get(3)
	require.True(t, aside, "op 3 was set aside")

	out := &vsr.Output{}
	r2.Step(msg(vsr.RequestPrepares{From: 2, To: 4}, 1, 2, 0), out)
	var ops []uint64
	for _, h := range repairServed(out) {
		ops = append(ops, h.Op)
		if h.Op == 3 {
			assert.Equal(t, j.Checksum, h.Checksum, "the set-aside body itself")
		}
	}
	assert.Equal(t, []uint64{2, 3, 4}, ops)
	// Only the journal's bodies go with this replica's commit point: the
	// set-aside one is vouched for by nothing here, so it carries none, and
	// the requester's check decides (swarm seed 1592593369 from 0x5eed0000).
	for _, m := range out.Messages {
		if m.Command != vsr.CmdRepairPrepare {
			continue
		}
		p := m.RepairPrepare()
		if p.Header.Op == 3 {
			assert.Zero(t, p.Commit, "op 3 set aside: no commit point")
		} else {
			assert.Equal(t, r2.wm.commitMin, p.Commit, "op %d journaled: the commit point vouches", p.Header.Op)
		}
	}
}
