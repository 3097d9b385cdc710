package replica

import (
	"testing"
	"vsrsim/vsr"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The watch starts at the commit point known when forwarding, keeps the first
// one while it runs, and ends when the primary commits past it.
func TestForwardingWatch(t *testing.T) {
	var f forwarding
	f.forwarded(7)
	assert.True(t, f.waiting)
	f.forwarded(9)
	assert.Equal(t, uint64(7), f.commit, "a running watch keeps its commit point")
	f.primaryCommitted(7)
	assert.True(t, f.waiting, "the primary's commit point has not moved")
	f.primaryCommitted(8)
	assert.False(t, f.waiting)
}

// A backup tells its commit point at most once per period.
func TestForwardingTellCommitDue(t *testing.T) {
	var f forwarding
	assert.True(t, f.tellCommitDue(100, 50))
	assert.False(t, f.tellCommitDue(120, 50))
	assert.False(t, f.tellCommitDue(150, 50), "one period after tick 101 is tick 151")
	assert.True(t, f.tellCommitDue(151, 50))
	f.check(0, 151)
	v := vsr.ViolationOf(func() { f.check(0, 100) })
	require.NotNil(t, v, "told at a tick the clock has not reached")
	assert.Equal(t, "forwarding_told_in_the_past", v.Invariant)
}
