package replica

import (
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// countdown is the timeout as a plain countdown, decremented at its turn in
// every Tick: the behaviour the deadline form must reproduce tick for tick.
type countdown struct {
	ticks   uint64
	running bool
}

func (c *countdown) tick() bool {
	if !c.running {
		return false
	}
	if c.ticks > 0 {
		c.ticks--
	}
	return c.ticks == 0
}

// timerPair drives a set of deadline timeouts and their countdowns through
// the same arms and stops, at the same moments of a Tick.
type timerPair struct {
	clk  timerClock
	ts   []timeout
	refs []countdown
}

func newTimerPair(n int) *timerPair {
	p := &timerPair{clk: timerClock{pos: tickDone}, ts: make([]timeout, n), refs: make([]countdown, n)}
	for i := range p.ts {
		p.ts[i].clk, p.ts[i].pos = &p.clk, i
	}
	return p
}

func (p *timerPair) arm(i int, period uint64) {
	p.ts[i].running = true
	p.ts[i].arm(period)
	p.refs[i] = countdown{ticks: period, running: true}
}

func (p *timerPair) stop(i int) {
	p.ts[i].stop()
	p.refs[i].running = false
}

// act arms or stops a random timeout, or does nothing.
func (p *timerPair) act(rng *rand.Rand) {
	i := rng.IntN(len(p.ts))
	switch rng.IntN(4) {
	case 0:
		p.arm(i, rng.Uint64N(4))
	case 1:
		p.stop(i)
	}
}

// TestTimeoutFiresAsCountdown: arms and stops between Ticks, before the
// timeouts' turns and at each turn fire every timeout on exactly the Ticks a
// countdown does, and no timeout the fast path skips was due.
func TestTimeoutFiresAsCountdown(t *testing.T) {
	for seed := uint64(1); seed <= 200; seed++ {
		rng := rand.New(rand.NewPCG(seed, 7))
		p := newTimerPair(4)
		fired := 0
		for tick := 0; tick < 60; tick++ {
			p.act(rng)
			p.clk.now++
			p.clk.pos = tickBegin
			p.act(rng)
			skipped := p.clk.now < p.clk.next
			for i := range p.ts {
				got, want := p.ts[i].tick(), p.refs[i].tick()
				require.Equal(t, want, got, "seed %d tick %d timeout %d", seed, tick, i)
				if got {
					fired++
					assert.False(t, skipped, "seed %d tick %d: timeout %d fired on a skipped tick", seed, tick, i)
				}
				if !skipped {
					// Handlers run only on a Tick that looks at the
					// timeouts.
					p.act(rng)
				}
			}
			p.clk.next = uint64(1<<64 - 1)
			for i := range p.ts {
				if p.ts[i].running {
					p.clk.next = min(p.clk.next, p.ts[i].deadline)
				}
			}
			p.clk.pos = tickDone
		}
		require.Positive(t, fired, "seed %d: no timeout fired, the test compared nothing", seed)
	}
}
