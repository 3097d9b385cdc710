package replica

import (
	"testing"
	"vsrsim/vsr"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestSettleAppliesBeforeNextPrepare: three requests wait in a lone
// replica's queue when the driver runs. Its own ack is a quorum, so the
// driver must walk the commit and apply each op before it prepares the next
// (a primary prepares only on a log it has applied): the events alternate
// append, commit, and each prepare carries the op before it as its commit.
func TestSettleAppliesBeforeNextPrepare(t *testing.T) {
	c := newTestCluster(t, 1, nil)
	r := c.r(0)
	for client := 0; client < 3; client++ {
		node := uint64(c.clientNode(client))
		r.requests = append(r.requests, vsr.Request{Client: node, Request: 1, Body: put(uint32(client), 7)})
	}
	var out vsr.Output
	r.fx.Out = &out
	r.due |= dueDrain
	r.settle()
	r.fx.Out = nil

	var kinds []vsr.EventKind
	for _, e := range out.Events {
		if e.Kind == vsr.EvJournalAppend || e.Kind == vsr.EvCommit {
			kinds = append(kinds, e.Kind)
		}
	}
	require.Len(t, kinds, 6)
	for i, k := range kinds {
		want := vsr.EvJournalAppend
		if i%2 == 1 {
			want = vsr.EvCommit
		}
		assert.Equal(t, want, k, "event %d of %v", i, kinds)
	}
	for op := uint64(1); op <= 3; op++ {
		h, ok := r.log.journal.Get(op)
		require.True(t, ok)
		assert.Equal(t, op-1, h.Commit, "op %d prepared on an applied log", op)
	}
	assert.Empty(t, r.requests)
	assert.Zero(t, r.due, "nothing left due")
}
