package timer

import (
	"testing"
	"vsrsim/vsr/vsrtest"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The countdowns share one clock, each with its own turn, and the clock's next
// tick is never after a running countdown's deadline.
func TestTimersInitAndNext(t *testing.T) {
	var tm Timers
	tm.Init(DefaultTimeouts(), true)
	for i, c := range tm.All() {
		assert.Same(t, &tm.Clk, c.Clk, "timer %d", i)
		assert.Equal(t, i, c.Pos)
		assert.NotEmpty(t, c.Name)
	}
	tm.FindNext()
	assert.Equal(t, uint64(1<<64-1), tm.Clk.Next, "nothing running: nothing due")
	tm.Clk.Now = 10
	tm.Repair.Start(nil)
	tm.Commit.Start(nil)
	tm.FindNext()
	assert.Equal(t, min(tm.Repair.Deadline, tm.Commit.Deadline), tm.Clk.Next)
	tm.Check(0)
}

// Each assertion of the room fires when its rule is broken on purpose.
func TestTimersCheckFires(t *testing.T) {
	var tm Timers
	tm.Init(DefaultTimeouts(), true)
	tm.Commit.Start(nil)
	require.Nil(t, vsrtest.ViolationOf(func() { tm.Check(0) }))

	tm.Clk.Next = tm.Commit.Deadline + 1
	v := vsrtest.ViolationOf(func() { tm.Check(0) })
	require.NotNil(t, v, "a running countdown due before the clock looks")
	assert.Equal(t, "timers_next_at_or_before_deadline", v.Invariant)

	tm.FindNext()
	tm.Probe.Pos = 3
	v = vsrtest.ViolationOf(func() { tm.Check(0) })
	require.NotNil(t, v, "a countdown out of its turn")
	assert.Equal(t, "timers_share_the_clock", v.Invariant)
}
