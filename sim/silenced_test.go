package sim

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// A replica outside the core counts as silenced only when every link from it
// into the core, or every link from the core into it, is kept down: one link
// left each way lets it hear a request and serve the core.
func TestSilencedNeedsEveryLinkIntoTheCore(t *testing.T) {
	const n, nodes = 3, 5
	core := []int{1, 2}
	link := func(from, to int) int { return from*nodes + to }
	assert.Equal(t, []int{0}, silenced(n, nodes, core, []int{link(0, 1), link(0, 2)}))
	assert.Empty(t, silenced(n, nodes, core, []int{link(0, 1)}), "r0 can still send to r2")
	assert.Equal(t, []int{0}, silenced(n, nodes, core, []int{link(1, 0), link(2, 0)}), "deaf to the core: it hears no request")
	assert.Empty(t, silenced(n, nodes, core, []int{link(1, 0), link(0, 2)}), "r0 hears r2 and speaks to r1: it may still vote, so it is not silenced")
	assert.Empty(t, silenced(n, nodes, nil, []int{link(0, 1)}), "no core, nothing to judge")
}

// A replica outside the core cannot serve it when it has no round trip with
// any core replica: for each, one of the two links is kept down, though it
// may still hear one and speak to another (swarm seed 2124434655).
func TestUnservingHasNoRoundTripWithTheCore(t *testing.T) {
	const n, nodes = 3, 5
	core := []int{0, 2}
	link := func(from, to int) int { return from*nodes + to }
	assert.Equal(t, []int{1}, unserving(n, nodes, core, []int{link(0, 1), link(1, 2)}), "r1 speaks to r0 and hears r2: no round trip")
	assert.Empty(t, silenced(n, nodes, core, []int{link(0, 1), link(1, 2)}), "and is not silenced: it may still vote")
	assert.Empty(t, unserving(n, nodes, core, []int{link(0, 1)}), "a round trip with r2 is left")
	assert.Empty(t, unserving(n, nodes, core, nil))
	assert.Empty(t, unserving(n, nodes, nil, []int{link(0, 1), link(1, 2)}), "no core, nothing to judge")
}
