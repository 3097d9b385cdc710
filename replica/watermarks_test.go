package replica

import (
	"testing"
	"vsrsim/vsr/vsrtest"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Each rule of the watermarks' order fires when broken on purpose, and a
// replica's positions after a run of commits keep it.
func TestWatermarksCheckFires(t *testing.T) {
	c := newTestCluster(t, 3, nil)
	c.commitRequests(0, 1, 5)
	for i := 0; i < 3; i++ {
		r := c.r(i)
		require.Nil(t, vsrtest.ViolationOf(r.checkWatermarks), "r%d after commits", i)
	}
	for _, tc := range []struct {
		rule      string
		replica   int
		breakRule func(r *Replica)
	}{
		{"commit_min_le_commit_max", 1, func(r *Replica) { r.wm.commitMin = r.wm.commitMax + 1; r.wm.sequencer = r.wm.commitMin }},
		{"commit_min_le_sequencer", 1, func(r *Replica) { r.wm.sequencer = r.wm.commitMin - 1 }},
		{"checkpoint_le_commit_min", 1, func(r *Replica) { r.dur.sb.Checkpoint.Op = r.wm.commitMin + 1 }},
		{"durable_commit_le_commit_max", 1, func(r *Replica) { r.dur.sb.CommitMax = r.wm.commitMax + 1 }},
		{"primary_head_ge_commit_max", 0, func(r *Replica) { r.wm.commitMax = r.wm.sequencer + 1 }},
	} {
		c := newTestCluster(t, 3, nil)
		c.commitRequests(0, 1, 5)
		r := c.r(tc.replica)
		tc.breakRule(r)
		v := vsrtest.ViolationOf(r.checkWatermarks)
		if assert.NotNil(t, v, tc.rule) {
			assert.Equal(t, tc.rule, v.Invariant)
		}
	}
}
