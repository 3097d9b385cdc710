package replica

import (
	"testing"
	"vsrsim/vsr"

	"github.com/stretchr/testify/assert"
)

// peers keeps what a replica knows of the others, never of itself.
func TestPeersRecency(t *testing.T) {
	p := newPeers(1, 3)
	assert.False(t, p.heardWithin(0, 10, 500), "never heard")
	assert.False(t, p.hear(0, 10, 500), "first heard: was not recent")
	assert.True(t, p.heardWithin(0, 10, 500))
	assert.True(t, p.heardWithin(0, 510, 500), "heard at 10: recent through tick 510")
	assert.False(t, p.heardWithin(0, 511, 500))
	assert.True(t, p.hear(0, 400, 500), "heard again within the window")
	assert.False(t, p.hear(0, 1000, 500), "heard again after a silence")
	assert.Equal(t, 1, p.countHeardWithin(1000, 500))
	p.hear(2, 1000, 500)
	assert.Equal(t, 2, p.countHeardWithin(1000, 500))
	assert.Equal(t, 0, p.countHeardWithin(2000, 500))
	assert.PanicsWithValue(t, vsr.Violation{Replica: 1, Invariant: "heard_in_order", Detail: vsr.DetailHolds},
		func() { p.hear(2, 5, 500) }, "time never runs back")
	assert.Panics(t, func() { p.hear(1, 2000, 500) }, "a replica never hears itself (peers_only_others)")
	p.lastHeard[1] = 0
	p.check()
	p.incarnations[4] = 1
	assert.Panics(t, p.check, "nothing is known of a replica outside the cluster")
}

func TestPeersIncarnations(t *testing.T) {
	p := newPeers(0, 3)
	assert.False(t, p.learnIncarnation(1, 0), "a first life stamps 0: nothing new")
	assert.True(t, p.learnIncarnation(1, 2))
	assert.False(t, p.learnIncarnation(1, 1), "never back")
	assert.Equal(t, uint64(2), p.incarnation(1))
	assert.Panics(t, func() { p.learnIncarnation(0, 1) }, "a replica learns no incarnation of its own")
}

func TestPeersRelayAndWindow(t *testing.T) {
	p := newPeers(2, 3)
	assert.True(t, p.mayRelay(0, 100, 50))
	p.relayed(0, 100)
	assert.False(t, p.mayRelay(0, 149, 50), "one relay per period")
	assert.True(t, p.mayRelay(0, 150, 50))
	assert.True(t, p.mayRelay(1, 100, 50), "each peer its own period")
	assert.Panics(t, func() { p.relayed(2, 100) }, "never to itself")

	assert.False(t, p.windowQuorum(2))
	p.heardInWindow(0)
	assert.True(t, p.inWindow(0))
	assert.True(t, p.windowQuorum(2), "itself and one peer")
	assert.False(t, p.windowQuorum(3))
	p.newWindow()
	assert.False(t, p.inWindow(0))
	assert.Panics(t, func() { p.heardInWindow(3) }, "no replica 3 in a cluster of three")
	p.check()
}
