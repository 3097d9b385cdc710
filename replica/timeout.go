package replica

// Jitter is the deterministic stream a replica draws its timeout jitter from. The
// harness hands each replica its own; the replica has no randomness of its own.
type Jitter interface {
	Uint64N(n uint64) uint64
}

// timeout counts ticks down to a firing. Backoff doubles the period per attempt
// (capped at 2^4) and adds jitter, so retransmits from several replicas spread out.
type timeout struct {
	name     string
	after    uint64
	ticks    uint64
	attempts uint64
	running  bool
	backoff  bool
	// shiftMax caps the doublings (0: the default of 4, a 16x period).
	shiftMax uint64
}

func (t *timeout) start(j Jitter) {
	t.running = true
	t.attempts = 0
	t.ticks = t.period(j)
}

func (t *timeout) stop() {
	t.running = false
	t.attempts = 0
}

// reset restarts the countdown without touching attempts.
func (t *timeout) reset(j Jitter) {
	t.running = true
	t.ticks = t.period(j)
}

// retry restarts the countdown as the attempts-th retry in a row: with backoff
// the period doubles per attempt; attempts 0 is the base period.
func (t *timeout) retry(j Jitter, attempts uint64) {
	t.running = true
	t.attempts = attempts
	t.ticks = t.period(j)
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
	t.ticks = t.period(j)
}

func (t *timeout) period(j Jitter) uint64 {
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
	return p
}

// tick advances the countdown and reports whether it fired.
func (t *timeout) tick() bool {
	if !t.running {
		return false
	}
	if t.ticks > 0 {
		t.ticks--
	}
	return t.ticks == 0
}
