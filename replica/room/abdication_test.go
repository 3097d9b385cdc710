package room

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// The stall watch: a window stalls when the op first in the pipeline when it
// began is still there and no ack it needed came; three in a row abdicate.
func TestAbdicationStallWatch(t *testing.T) {
	var a Abdication
	a.Watch(0)
	assert.False(t, a.StalledSince(0), "nothing pending: nothing to stall")
	a.Watch(5)
	assert.True(t, a.StalledSince(5))
	assert.True(t, a.StalledSince(3), "an op below the window's first is still older work")
	assert.False(t, a.StalledSince(6), "the first op committed within the window")
	assert.False(t, a.StalledSince(0))
	a.Progressed()
	assert.False(t, a.StalledSince(5), "an ack it needed came")

	for k := 1; k < StallWindowsMax; k++ {
		assert.False(t, a.CloseWindow(true), "window %d", k)
	}
	assert.True(t, a.CloseWindow(true), "%d stalled windows in a row", StallWindowsMax)
	assert.False(t, a.CloseWindow(false), "a window that progressed starts the count afresh")
	assert.Zero(t, a.StallWindows)
}

// An abdication for want of hearing a quorum ends when one is heard; one for
// stalled replication stays for the view.
func TestAbdicationStepAsideAndResume(t *testing.T) {
	var a Abdication
	assert.False(t, a.Resume(), "nothing to resume")
	assert.True(t, a.StepAside(false))
	assert.False(t, a.StepAside(true), "already aside: the first reason stands")
	assert.True(t, a.Resume())
	assert.False(t, a.Abdicated)

	assert.True(t, a.StepAside(true))
	assert.False(t, a.Resume(), "hearing a quorum does not cure stalled replication")
	assert.True(t, a.Abdicated)

	a.Normal(7)
	assert.False(t, a.Abdicated || a.Stalled)
	assert.Zero(t, a.StallWindows)
	assert.Equal(t, uint64(7), a.StallOp)
}

// TestAbdicationModes: the robust mode runs every part; each option turns off
// its own, and stalled replication counts only where abdication goes by more
// than hearing.
func TestAbdicationModes(t *testing.T) {
	var a Abdication
	assert.True(t, a.On() && a.WatchesForwarded() && a.PushesStartView())
	assert.False(t, a.ByHearing())
	a.Watch(5)
	assert.True(t, a.ReplicationStalled(5), "op 5 pending the whole window, no ack it needed")

	a.SetMode(AbdicationMode{ByHearing: true})
	assert.True(t, a.On() && a.ByHearing() && a.PushesStartView())
	assert.False(t, a.WatchesForwarded(), "by hearing: no forwarded-request watch")
	assert.False(t, a.ReplicationStalled(5), "by hearing: stalled replication does not count")

	a.SetMode(AbdicationMode{Off: true, NoPush: true})
	assert.False(t, a.On() || a.WatchesForwarded() || a.PushesStartView())
}
