package timer

import "vsrsim/vsr"

// Jitter is the deterministic stream a replica draws its timeout jitter from. The
// harness hands each replica its own; the replica has no randomness of its own.
type Jitter interface {
	Uint64N(n uint64) uint64
}

// Timeout counts ticks down to a firing. Backoff doubles the period per attempt
// (capped at 2^4) and adds jitter, so retransmits from several replicas spread out.
//
// The countdown is kept as a deadline on the replica's tick count (timerClock),
// so a tick at which no timeout is due touches none of them: most ticks of a
// run fire nothing, and ten countdowns a replica a tick were a sizeable share
// of a run. It fires on exactly the ticks the countdown did: armed with period
// p, it fires on the p-th Tick after, counting the current Tick when the arming
// comes before the countdown's turn in it (see arm).
type Timeout struct {
	Name     string
	After    uint64
	Deadline uint64 // the clock value at which it fires (while running)
	Attempts uint64
	Running  bool
	Backoff  bool
	Clk      *TimerClock
	Pos      int // its turn in Tick
}

// TimerClock is a replica's tick count and what its timeouts need of it.
type TimerClock struct {
	Now uint64 // Ticks so far, the current one included
	// Pos is the turn of the timeout Tick is looking at: timeouts after it
	// still count the current Tick down. Outside the timeouts' turns it is
	// before all of them during a Tick (tickBegin) and after all of them
	// between Ticks (tickDone).
	Pos int
	// Next is at or below the deadline of every running timeout: until
	// then no timeout can fire.
	Next uint64
}

const (
	TickBegin = -1
	TickDone  = 1 << 30
)

// Arm starts the countdown of p ticks.
func (t *Timeout) Arm(p uint64) {
	base := t.Clk.Now
	if t.Pos > t.Clk.Pos {
		// This Tick's count-down of t is still to come.
		base--
	}
	t.Deadline = base + p
	t.Clk.Next = min(t.Clk.Next, t.Deadline)
}

func (t *Timeout) Start(j Jitter) {
	t.Running = true
	t.Attempts = 0
	t.Arm(t.Period(j))
}

func (t *Timeout) Stop() {
	t.Running = false
	t.Attempts = 0
}

// Reset restarts the countdown without touching attempts.
func (t *Timeout) Reset(j Jitter) {
	t.Running = true
	t.Arm(t.Period(j))
}

// Retry restarts the countdown as the attempts-th retry in a row: with backoff
// the period doubles per attempt; attempts 0 is the base period.
func (t *Timeout) Retry(j Jitter, attempts uint64) {
	t.Running = true
	t.Attempts = attempts
	t.Arm(t.Period(j))
}

// Capped reports whether the backoff reached its longest period.
func (t *Timeout) Capped() bool { return t.Backoff && t.Attempts >= shiftMax }

// shiftMax is the most doublings of a backed-off period: 16x for every
// timeout (D97 gave the view-change status timeout the same cap).
const shiftMax = 4

// Longest is the longest period the countdown can wait, jitter aside: the
// base doubled as often as the backoff allows.
func (t *Timeout) Longest() uint64 {
	if !t.Backoff {
		return t.After
	}
	return t.After << shiftMax
}

// BackoffNext is called after the timeout fired and was handled.
func (t *Timeout) BackoffNext(j Jitter) {
	t.Attempts++
	t.Arm(t.Period(j))
}

func (t *Timeout) Period(j Jitter) uint64 {
	// A period is drawn only to arm the countdown: valid options have every
	// timeout positive, so it never fires the Tick it is armed in, and its
	// turn lies within a Tick, so the clock's position orders it (arm).
	vsr.Assert(vsr.Unowned, t.After > 0, "timeout_base_positive", vsr.DetailHolds)
	vsr.Assert(vsr.Unowned, TickBegin < t.Pos && t.Pos < TickDone, "timeout_turn_within_tick", "turn %d", uint64(t.Pos))
	p := t.After
	if t.Backoff {
		p <<= min(t.Attempts, shiftMax)
	}
	if spread := t.After / 8; spread > 0 && j != nil {
		p += j.Uint64N(spread + 1)
	}
	// A period shorter than the base would mean the shift overflowed.
	vsr.Assert(vsr.Unowned, p >= t.After, "timeout_period_at_least_base", vsr.DetailHolds)
	return p
}

// Tick takes t's turn in the current Tick and reports whether it fires.
func (t *Timeout) Tick() bool {
	t.Clk.Pos = t.Pos
	return t.Running && t.Clk.Now >= t.Deadline
}
