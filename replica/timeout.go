package replica

// Jitter is the deterministic stream a replica draws its timeout jitter from. The
// harness hands each replica its own; the replica has no randomness of its own.
type Jitter interface {
	Uint64N(n uint64) uint64
}

// timeout counts ticks down to a firing. Backoff doubles the period per attempt
// (capped at 2^4) and adds jitter, so retransmits from several replicas spread out.
//
// The countdown is kept as a deadline on the replica's tick count (timerClock),
// so a tick at which no timeout is due touches none of them: most ticks of a
// run fire nothing, and ten countdowns a replica a tick were a sizeable share
// of a run. It fires on exactly the ticks the countdown did: armed with period
// p, it fires on the p-th Tick after, counting the current Tick when the arming
// comes before the countdown's turn in it (see arm).
type timeout struct {
	name     string
	after    uint64
	deadline uint64 // the clock value at which it fires (while running)
	attempts uint64
	running  bool
	backoff  bool
	// shiftMax caps the doublings (0: the default of 4, a 16x period).
	shiftMax uint64
	clk      *timerClock
	pos      int // its turn in Tick
}

// timerClock is a replica's tick count and what its timeouts need of it.
type timerClock struct {
	now uint64 // Ticks so far, the current one included
	// pos is the turn of the timeout Tick is looking at: timeouts after it
	// still count the current Tick down. Outside the timeouts' turns it is
	// before all of them during a Tick (tickBegin) and after all of them
	// between Ticks (tickDone).
	pos int
	// next is at or below the deadline of every running timeout: until
	// then no timeout can fire.
	next uint64
}

const (
	tickBegin = -1
	tickDone  = 1 << 30
)

// arm starts the countdown of p ticks.
func (t *timeout) arm(p uint64) {
	base := t.clk.now
	if t.pos > t.clk.pos {
		// This Tick's count-down of t is still to come.
		base--
	}
	t.deadline = base + p
	t.clk.next = min(t.clk.next, t.deadline)
}

func (t *timeout) start(j Jitter) {
	t.running = true
	t.attempts = 0
	t.arm(t.period(j))
}

func (t *timeout) stop() {
	t.running = false
	t.attempts = 0
}

// reset restarts the countdown without touching attempts.
func (t *timeout) reset(j Jitter) {
	t.running = true
	t.arm(t.period(j))
}

// retry restarts the countdown as the attempts-th retry in a row: with backoff
// the period doubles per attempt; attempts 0 is the base period.
func (t *timeout) retry(j Jitter, attempts uint64) {
	t.running = true
	t.attempts = attempts
	t.arm(t.period(j))
}

// capped reports whether the backoff reached its longest period.
func (t *timeout) capped() bool {
	most := t.shiftMax
	if most == 0 {
		most = 4
	}
	return t.backoff && t.attempts >= most
}

// backoffNext is called after the timeout fired and was handled.
func (t *timeout) backoffNext(j Jitter) {
	t.attempts++
	t.arm(t.period(j))
}

func (t *timeout) period(j Jitter) uint64 {
	// A period is drawn only to arm the countdown: valid options have every
	// timeout positive, so it never fires the Tick it is armed in, and its
	// turn lies within a Tick, so the clock's position orders it (arm).
	invariant(unowned, t.after > 0, "timeout_base_positive", detailHolds)
	invariant(unowned, tickBegin < t.pos && t.pos < tickDone, "timeout_turn_within_tick", "turn %d", uint64(t.pos))
	p := t.after
	if t.backoff {
		shift, most := t.attempts, t.shiftMax
		if most == 0 {
			most = 4
		}
		if shift > most {
			shift = most
		}
		p <<= shift
	}
	if spread := t.after / 8; spread > 0 && j != nil {
		p += j.Uint64N(spread + 1)
	}
	// A period shorter than the base would mean the shift overflowed.
	invariant(unowned, p >= t.after, "timeout_period_at_least_base", detailHolds)
	return p
}

// tick takes t's turn in the current Tick and reports whether it fires.
func (t *timeout) tick() bool {
	t.clk.pos = t.pos
	return t.running && t.clk.now >= t.deadline
}
