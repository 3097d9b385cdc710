package replica

import (
	"testing"
	"vsrsim/vsr/vsrtest"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Landed fences are news once, never more than were asked for.
func TestDurabilityFenceLanded(t *testing.T) {
	d := durability{fencesAsked: 3}
	assert.True(t, d.fenceLanded(0, 2))
	assert.False(t, d.fenceLanded(0, 2), "the same count again is no news")
	assert.False(t, d.fenceLanded(0, 1), "an older count is no news")
	v := vsrtest.ViolationOf(func() { d.fenceLanded(0, 4) })
	require.NotNil(t, v)
	assert.Equal(t, "landed_were_asked", v.Invariant)
}

// Each rule of the room's check fires when broken on purpose.
func TestDurabilityCheckFires(t *testing.T) {
	whole := func() durability {
		return durability{sb: Superblock{View: 4, LogView: 3, AckHead: 9, Incarnation: 2}, incarnation: 2, ackHead: 9, fencesAsked: 5, fencesLanded: 5}
	}
	d := whole()
	require.Nil(t, vsrtest.ViolationOf(func() { d.check(1) }))
	for _, c := range []struct {
		rule      string
		breakRule func(*durability)
	}{
		{"ack_head_durable", func(d *durability) { d.ackHead = 10 }},
		{"landed_were_asked", func(d *durability) { d.fencesLanded = 6 }},
		{"superblock_log_view_le_view", func(d *durability) { d.sb.LogView = 5 }},
		{"incarnation_is_the_superblocks", func(d *durability) { d.incarnation = 3 }},
	} {
		d := whole()
		c.breakRule(&d)
		v := vsrtest.ViolationOf(func() { d.check(1) })
		require.NotNil(t, v, c.rule)
		assert.Equal(t, c.rule, v.Invariant)
		assert.Equal(t, 1, v.Replica)
	}
}
