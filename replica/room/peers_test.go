package room

import (
	"testing"
	"vsrsim/vsr"

	"github.com/stretchr/testify/assert"
)

// peers keeps what a replica knows of the others, never of itself.
func TestPeersRecency(t *testing.T) {
	p := NewPeers(1, 3)
	assert.False(t, p.HeardWithin(0, 10, 500), "never heard")
	assert.False(t, p.Hear(0, 10, 500), "first heard: was not recent")
	assert.True(t, p.HeardWithin(0, 10, 500))
	assert.True(t, p.HeardWithin(0, 510, 500), "heard at 10: recent through tick 510")
	assert.False(t, p.HeardWithin(0, 511, 500))
	assert.True(t, p.Hear(0, 400, 500), "heard again within the window")
	assert.False(t, p.Hear(0, 1000, 500), "heard again after a silence")
	assert.Equal(t, 1, p.CountHeardWithin(1000, 500))
	p.Hear(2, 1000, 500)
	assert.Equal(t, 2, p.CountHeardWithin(1000, 500))
	assert.Equal(t, 0, p.CountHeardWithin(2000, 500))
	assert.PanicsWithValue(t, vsr.Violation{Replica: 1, Invariant: "heard_in_order", Detail: vsr.DetailHolds},
		func() { p.Hear(2, 5, 500) }, "time never runs back")
	assert.Panics(t, func() { p.Hear(1, 2000, 500) }, "a replica never hears itself (peers_only_others)")
	p.LastHeard[1] = 0
	p.Check()
	p.Incarnations[4] = 1
	assert.Panics(t, p.Check, "nothing is known of a replica outside the cluster")
}

func TestPeersIncarnations(t *testing.T) {
	p := NewPeers(0, 3)
	assert.False(t, p.LearnIncarnation(1, 0), "a first life stamps 0: nothing new")
	assert.True(t, p.LearnIncarnation(1, 2))
	assert.False(t, p.LearnIncarnation(1, 1), "never back")
	assert.Equal(t, uint64(2), p.Incarnation(1))
	assert.Panics(t, func() { p.LearnIncarnation(0, 1) }, "a replica learns no incarnation of its own")
}

func TestPeersRelayAndWindow(t *testing.T) {
	p := NewPeers(2, 3)
	assert.True(t, p.MayRelay(0, 100, 50))
	p.Relayed(0, 100)
	assert.False(t, p.MayRelay(0, 149, 50), "one relay per period")
	assert.True(t, p.MayRelay(0, 150, 50))
	assert.True(t, p.MayRelay(1, 100, 50), "each peer its own period")
	assert.Panics(t, func() { p.Relayed(2, 100) }, "never to itself")

	assert.False(t, p.WindowQuorum(2))
	p.HeardInWindow(0)
	assert.True(t, p.InWindow(0))
	assert.True(t, p.WindowQuorum(2), "itself and one peer")
	assert.False(t, p.WindowQuorum(3))
	p.NewWindow()
	assert.False(t, p.InWindow(0))
	assert.Panics(t, func() { p.HeardInWindow(3) }, "no replica 3 in a cluster of three")
	p.Check()
}

// TestPeersMechanisms: relaying and the backoff reset are what the replica
// set, nothing else.
func TestPeersMechanisms(t *testing.T) {
	p := NewPeers(0, 3)
	assert.False(t, p.Relays() || p.ResetsBackoff(), "nothing until set")
	p.SetMechanisms(true, false)
	assert.True(t, p.Relays())
	assert.False(t, p.ResetsBackoff())
	p.SetMechanisms(false, true)
	assert.False(t, p.Relays())
	assert.True(t, p.ResetsBackoff())
}
