package room

import (
	"testing"
	"vsrsim/vsr/vsrtest"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The watch starts at the commit point known when forwarding, keeps the first
// one while it runs, and ends when the primary commits past it.
func TestForwardingWatch(t *testing.T) {
	var f Forwarding
	f.Forwarded(7)
	assert.True(t, f.Waiting)
	f.Forwarded(9)
	assert.Equal(t, uint64(7), f.Commit, "a running watch keeps its commit point")
	f.PrimaryCommitted(7)
	assert.True(t, f.Waiting, "the primary's commit point has not moved")
	f.PrimaryCommitted(8)
	assert.False(t, f.Waiting)
}

// A backup tells its commit point at most once per period.
func TestForwardingTellCommitDue(t *testing.T) {
	var f Forwarding
	assert.True(t, f.TellCommitDue(100, 50))
	assert.False(t, f.TellCommitDue(120, 50))
	assert.False(t, f.TellCommitDue(150, 50), "one period after tick 101 is tick 151")
	assert.True(t, f.TellCommitDue(151, 50))
	f.Check(0, 151)
	v := vsrtest.ViolationOf(func() { f.Check(0, 100) })
	require.NotNil(t, v, "told at a tick the clock has not reached")
	assert.Equal(t, "forwarding_told_in_the_past", v.Invariant)
}
