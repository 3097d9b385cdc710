package replica

import (
	"testing"
	"vsrsim/vsr"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The view change room starts each view afresh but for what spans views.
func TestViewChangeEnter(t *testing.T) {
	var v viewChange
	v.vcRounds, v.probeNonce, v.dvcCacheOK = 3, 7, true
	v.leave, v.leaveTo, v.svcFrom = 0b101, 9, 0b011
	v.vote(0, 3, 2, dvcVote{valid: true, op: 5})
	v.merged, v.dvcSent, v.oldPrimaryHB = true, true, true
	v.mergeSources = append(v.mergeSources, 0b11)
	v.awaitBody = vsr.Header{Op: 5}
	require.Equal(t, 1, v.votes())

	v.enter(0, 3)
	assert.Zero(t, v.votes())
	assert.Zero(t, v.leave|v.svcFrom)
	assert.Zero(t, v.leaveTo)
	assert.False(t, v.merged || v.dvcSent || v.oldPrimaryHB)
	assert.Empty(t, v.mergeSources)
	assert.Equal(t, vsr.Header{}, v.awaitBody)
	assert.Equal(t, uint64(3), v.vcRounds, "rounds count views entered in a row")
	assert.Equal(t, uint64(7), v.probeNonce, "a probe's nonce never repeats")
	assert.True(t, v.dvcCacheOK, "the cached vote is tagged, not tied to a view")
}

// Votes and requests come from the cluster only; a merge is made of votes.
func TestViewChangeCheck(t *testing.T) {
	var v viewChange
	assert.Panics(t, func() { v.vote(0, 3, 3, dvcVote{valid: true}) }, "no replica 3 in a cluster of three")
	assert.Panics(t, func() { v.vote(0, 3, 1, dvcVote{}) }, "a vote recorded is a vote")
	v.svcFrom = 1 << 4
	assert.Panics(t, func() { v.check(0, 3) })
	v.svcFrom = 0
	v.merged = true
	assert.Panics(t, func() { v.check(0, 3) }, "a merge of no vote")
	v.vote(0, 3, 1, dvcVote{valid: true})
	assert.NotPanics(t, func() { v.check(0, 3) })
	v.dvcs[4] = dvcVote{valid: true}
	assert.Panics(t, func() { v.check(0, 3) }, "a vote from no replica of the cluster (view_change_votes_in_cluster)")
}
