package replica

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The countdowns share one clock, each with its own turn, and the clock's next
// tick is never after a running countdown's deadline.
func TestTimersInitAndNext(t *testing.T) {
	var tm timers
	tm.init(DefaultOptions(0, 3))
	for i, c := range tm.all() {
		assert.Same(t, &tm.clk, c.clk, "timer %d", i)
		assert.Equal(t, i, c.pos)
		assert.NotEmpty(t, c.name)
	}
	tm.findNext()
	assert.Equal(t, uint64(1<<64-1), tm.clk.next, "nothing running: nothing due")
	tm.clk.now = 10
	tm.repair.start(nil)
	tm.commit.start(nil)
	tm.findNext()
	assert.Equal(t, min(tm.repair.deadline, tm.commit.deadline), tm.clk.next)
	tm.check(0)
}

// Each assertion of the room fires when its rule is broken on purpose.
func TestTimersCheckFires(t *testing.T) {
	var tm timers
	tm.init(DefaultOptions(0, 3))
	tm.commit.start(nil)
	require.Nil(t, violationOf(func() { tm.check(0) }))

	tm.clk.next = tm.commit.deadline + 1
	v := violationOf(func() { tm.check(0) })
	require.NotNil(t, v, "a running countdown due before the clock looks")
	assert.Equal(t, "timers_next_at_or_before_deadline", v.Invariant)

	tm.findNext()
	tm.probe.pos = 3
	v = violationOf(func() { tm.check(0) })
	require.NotNil(t, v, "a countdown out of its turn")
	assert.Equal(t, "timers_share_the_clock", v.Invariant)
}
