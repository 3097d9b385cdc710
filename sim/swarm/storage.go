package swarm

import (
	"vsrsim/prng"
	"vsrsim/replica"
	"vsrsim/sim"
)

// drawStorage puts the replicas of most write-ahead seeds on simulated disks
// (docs/storage.md), from a stream of its own drawn after every other swarm
// draw, so no earlier draw of any seed moves. Lost writes stay off: a write
// lost on both copies of a slot leaves stale bytes no checksum can tell from
// a slot never written, which no replica survives (docs/storage.md "Limits").
// One storage seed in fifty turns the atlas off, so storage-beyond-f is
// exercised too. Seeds of a focus (focus.go) keep their disks off.
func drawStorage(seed uint64, c *sim.Config) {
	if c.Durability != replica.DurabilityWAL || c.Focus != "" {
		// A focus aims a seed at one mechanism; disks would only dilute it.
		return
	}
	s := prng.New(seed, prng.StreamSwarmStorage)
	if s.Uint64N(10) < 3 {
		return
	}
	st := sim.Storage{On: true}
	st.LatencyMinTicks = s.Uint64N(3)
	st.LatencyMeanTicks = []uint64{0, 2, 5, 10}[s.Uint64N(4)]
	st.ReadFault = pick(s, 0, 5000, 1000)
	st.WriteFault = pick(s, 0, 2000, 500, 200)
	st.Misdirect = pick(s, 0, 5000, 1000)
	st.Torn = pick(s, 0, 4, 2, 1)
	st.AtlasOff = s.Uint64N(50) == 0
	c.Storage = st
}

// pick draws one of the chances one in den (0: never).
func pick(s *prng.Stream, dens ...uint32) prng.Ratio {
	d := dens[s.Uint64N(uint64(len(dens)))]
	if d == 0 {
		return prng.Ratio{}
	}
	return prng.Ratio{Num: 1, Den: d}
}
