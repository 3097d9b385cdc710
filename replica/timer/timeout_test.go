package timer

import (
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// countdown is the timeout as a plain countdown, decremented at its turn in
// every Tick: the behaviour the deadline form must reproduce tick for tick.
type Countdown struct {
	Ticks   uint64
	Running bool
}

func (c *Countdown) Tick() bool {
	if !c.Running {
		return false
	}
	if c.Ticks > 0 {
		c.Ticks--
	}
	return c.Ticks == 0
}

// timerPair drives a set of deadline timeouts and their countdowns through
// the same arms and stops, at the same moments of a Tick.
type TimerPair struct {
	Clk  TimerClock
	Ts   []Timeout
	Refs []Countdown
}

func NewTimerPair(n int) *TimerPair {
	p := &TimerPair{Clk: TimerClock{Pos: TickDone}, Ts: make([]Timeout, n), Refs: make([]Countdown, n)}
	for i := range p.Ts {
		p.Ts[i].Clk, p.Ts[i].Pos = &p.Clk, i
	}
	return p
}

func (p *TimerPair) Arm(i int, period uint64) {
	p.Ts[i].Running = true
	p.Ts[i].Arm(period)
	p.Refs[i] = Countdown{Ticks: period, Running: true}
}

func (p *TimerPair) Stop(i int) {
	p.Ts[i].Stop()
	p.Refs[i].Running = false
}

// act arms or stops a random timeout, or does nothing.
func (p *TimerPair) Act(rng *rand.Rand) {
	i := rng.IntN(len(p.Ts))
	switch rng.IntN(4) {
	case 0:
		p.Arm(i, rng.Uint64N(4))
	case 1:
		p.Stop(i)
	}
}

// TestTimeoutFiresAsCountdown: arms and stops between Ticks, before the
// timeouts' turns and at each turn fire every timeout on exactly the Ticks a
// countdown does, and no timeout the fast path skips was due.
func TestTimeoutFiresAsCountdown(t *testing.T) {
	for seed := uint64(1); seed <= 200; seed++ {
		rng := rand.New(rand.NewPCG(seed, 7))
		p := NewTimerPair(4)
		fired := 0
		for tick := 0; tick < 60; tick++ {
			p.Act(rng)
			p.Clk.Now++
			p.Clk.Pos = TickBegin
			p.Act(rng)
			skipped := p.Clk.Now < p.Clk.Next
			for i := range p.Ts {
				got, want := p.Ts[i].Tick(), p.Refs[i].Tick()
				require.Equal(t, want, got, "seed %d tick %d timeout %d", seed, tick, i)
				if got {
					fired++
					assert.False(t, skipped, "seed %d tick %d: timeout %d fired on a skipped tick", seed, tick, i)
				}
				if !skipped {
					// Handlers run only on a Tick that looks at the
					// timeouts.
					p.Act(rng)
				}
			}
			p.Clk.Next = uint64(1<<64 - 1)
			for i := range p.Ts {
				if p.Ts[i].Running {
					p.Clk.Next = min(p.Clk.Next, p.Ts[i].Deadline)
				}
			}
			p.Clk.Pos = TickDone
		}
		require.Positive(t, fired, "seed %d: no timeout fired, the test compared nothing", seed)
	}
}
