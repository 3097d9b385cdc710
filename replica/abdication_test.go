package replica

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// The stall watch: a window stalls when the op first in the pipeline when it
// began is still there and no ack it needed came; three in a row abdicate.
func TestAbdicationStallWatch(t *testing.T) {
	var a abdication
	a.watch(0)
	assert.False(t, a.stalledSince(0), "nothing pending: nothing to stall")
	a.watch(5)
	assert.True(t, a.stalledSince(5))
	assert.True(t, a.stalledSince(3), "an op below the window's first is still older work")
	assert.False(t, a.stalledSince(6), "the first op committed within the window")
	assert.False(t, a.stalledSince(0))
	a.progressed()
	assert.False(t, a.stalledSince(5), "an ack it needed came")

	for k := 1; k < stallWindowsMax; k++ {
		assert.False(t, a.closeWindow(true), "window %d", k)
	}
	assert.True(t, a.closeWindow(true), "%d stalled windows in a row", stallWindowsMax)
	assert.False(t, a.closeWindow(false), "a window that progressed starts the count afresh")
	assert.Zero(t, a.stallWindows)
}

// An abdication for want of hearing a quorum ends when one is heard; one for
// stalled replication stays for the view.
func TestAbdicationStepAsideAndResume(t *testing.T) {
	var a abdication
	assert.False(t, a.resume(), "nothing to resume")
	assert.True(t, a.stepAside(false))
	assert.False(t, a.stepAside(true), "already aside: the first reason stands")
	assert.True(t, a.resume())
	assert.False(t, a.abdicated)

	assert.True(t, a.stepAside(true))
	assert.False(t, a.resume(), "hearing a quorum does not cure stalled replication")
	assert.True(t, a.abdicated)

	a.normal(7)
	assert.False(t, a.abdicated || a.stalled)
	assert.Zero(t, a.stallWindows)
	assert.Equal(t, uint64(7), a.stallOp)
}
