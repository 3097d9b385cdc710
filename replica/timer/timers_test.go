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

// Longest is the period the backoff ends on, and a backed-off period never
// passes it but by the jitter: the status timeout's is 16x its base (D97).
func TestLongestIsWhereTheBackoffStops(t *testing.T) {
	var tm Timers
	tm.Init(DefaultTimeouts(), true)
	tm.Clk.Now = 1
	st := &tm.VcStatus
	assert.Equal(t, 16*st.After, st.Longest(), "the status timeout outwaits 16 base periods")
	for attempts := uint64(0); attempts < 8; attempts++ {
		st.Retry(nil, attempts)
		assert.LessOrEqual(t, st.Deadline-tm.Clk.Now, st.Longest(), "attempt %d", attempts)
		assert.Equal(t, attempts >= 4, st.Capped(), "attempt %d", attempts)
	}
	assert.Equal(t, st.Longest(), st.Deadline-tm.Clk.Now, "capped, no jitter: the longest period")
	tm.Init(DefaultTimeouts(), false)
	assert.Equal(t, tm.VcStatus.After, tm.VcStatus.Longest(), "without backoff the base is the longest")
}
