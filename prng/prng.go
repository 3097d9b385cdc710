// Package prng provides the deterministic random streams of a simulation run.
//
// One root seed is split into child streams in a fixed, append-only order (see
// Stream IDs below), so that adding draws to one consumer never shifts the draws
// of another. Every decision inside a run is an integer comparison: there is no
// floating point anywhere in this package.
package prng

import (
	"math/bits"
	"math/rand/v2"
)

// StreamID names a child stream. The numbering is append-only: never reorder or
// reuse a value, or every recorded trace hash changes.
type StreamID uint64

// Child streams, in their fixed order.
const (
	StreamNetwork StreamID = iota + 1
	StreamFaults
	StreamWorkload
	StreamSwarm
	StreamScenario
	// StreamAimed drives the harness's aimed faults (sim.AimedFaults).
	StreamAimed
	// StreamWeather drives the network's per-tick weather: random partitions
	// and clogs. Apart from the per-packet fates (StreamNetwork), a recorded
	// run that replays its partitions and clogs as explicit actions, with
	// the random ones off, keeps every packet's fate.
	StreamWeather
	// StreamSwarmReach draws the swarm's later widenings, aimed at the
	// protocol's rarest branches (sim/swarm/reach.go), so they shift no
	// earlier swarm draw and none of StreamSwarmDetect's.
	StreamSwarmReach
	// StreamSwarmDetect draws the swarm's widenings aimed at the failure
	// shapes and planted defects a sweep was slow to find (sim/swarm/detect.go).
	StreamSwarmDetect
	// StreamSwarmFocus picks a seed's focus slice (sim/swarm/focus.go) and
	// draws that focus's conditions.
	StreamSwarmFocus
	// StreamDiskAtlas draws a cluster's storage fault atlas
	// (disksim.NewAtlas): which replicas may be faulty in each zone chunk.
	StreamDiskAtlas
	// StreamSwarmStorage draws a swarm seed's storage faults
	// (sim/swarm/storage.go), after every other swarm draw.
	StreamSwarmStorage
	// StreamDiskAimed drives the harness's aimed storage faults
	// (sim.Storage.AimedCorrupt, AimedMisdirect).
	StreamDiskAimed
	// StreamFuzz is a guided search's own randomness (fuzz): which parent it
	// picks and how it mutates it. No simulation draws from it.
	StreamFuzz
	// StreamDiskSecond drives the second events aimed at storage faults
	// (sim.Storage.AimedWindowCrash, AimedSecond): crashes at an open write
	// window, a recrash or a view change before a restarted replica repairs.
	StreamDiskSecond
	// StreamDiskRead draws the latency of the reads replicas make in
	// their life (a repair served from the disk).
	StreamDiskRead
	// StreamDiskRewrite draws the lost writes aimed at a rewrite of an
	// op's prepare copy (sim.Storage.AimedLostRewrite).
	StreamDiskRewrite
	// StreamDiskSuperblockLoss draws the aimed loss of a crashing replica's
	// superblock (sim.Storage.AimedSuperblockLoss).
	StreamDiskSuperblockLoss
	// StreamDiskRewriteBoth draws whether an aimed lost rewrite of a prepare
	// copy takes the slot's header copy rewrite with it.
	StreamDiskRewriteBoth
	// StreamDiskQuiet draws the corruption aimed at a crashing replica
	// whose disk met no fault yet (sim.Storage.AimedQuietCorrupt).
	StreamDiskQuiet
	// StreamDiskStaleAsk draws the peer steered at a replica whose disk
	// kept a stale entry (sim.Storage.AimedStaleAsk).
	StreamDiskStaleAsk
	// StreamDiskRewriteSpoil draws whether an aimed lost rewrite of a
	// prepare copy whose header copy rewrite is not lost lands that header
	// copy damaged instead (D123).
	StreamDiskRewriteSpoil
	// StreamReplicaJitterBase + replica id is each replica's timeout jitter.
	StreamReplicaJitterBase StreamID = 1000
	// StreamDiskBase + replica id is the stream of that replica's simulated
	// disk (disksim): write latencies and storage faults.
	StreamDiskBase StreamID = 2000
)

// Stream is a deterministic PCG stream. The zero value is not usable; build one
// with New or Root.Child.
type Stream struct {
	pcg rand.PCG
}

// New returns a stream seeded from (seed, id). Two different ids give
// independent streams for the same seed.
func New(seed uint64, id StreamID) *Stream {
	s := &Stream{}
	s.pcg.Seed(mix(seed), mix(seed^mix(uint64(id)+0x9e3779b97f4a7c15)))
	return s
}

// ReplicaJitter is the jitter stream handed to replica id.
func ReplicaJitter(seed uint64, replica int) *Stream {
	return New(seed, StreamReplicaJitterBase+StreamID(replica))
}

// Disk is the stream of replica id's simulated disk.
func Disk(seed uint64, replica int) *Stream {
	return New(seed, StreamDiskBase+StreamID(replica))
}

// mix is the splitmix64 finaliser: it spreads nearby seeds (1, 2, 3, ...) over
// the whole state space.
func mix(x uint64) uint64 {
	x += 0x9e3779b97f4a7c15
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9
	x = (x ^ (x >> 27)) * 0x94d049bb133111eb
	return x ^ (x >> 31)
}

// Uint64 returns the next raw 64-bit value.
func (s *Stream) Uint64() uint64 { return s.pcg.Uint64() }

// IntN returns a uniform value in [0, n). n must be > 0.
func (s *Stream) IntN(n int) int {
	if n <= 0 {
		panic("prng: IntN with n <= 0")
	}
	return int(s.Uint64N(uint64(n)))
}

// Uint64N returns a uniform value in [0, n) without modulo bias (Lemire).
// n must be > 0.
func (s *Stream) Uint64N(n uint64) uint64 {
	if n == 0 {
		panic("prng: Uint64N with n == 0")
	}
	hi, lo := bits.Mul64(s.Uint64(), n)
	if lo < n {
		hi = s.redraw(n, hi, lo)
	}
	return hi
}

// redraw finishes Uint64N's rare case: lo below n may fall in the biased
// band, and then the draw is repeated.
func (s *Stream) redraw(n, hi, lo uint64) uint64 {
	thresh := -n % n
	for lo < thresh {
		hi, lo = bits.Mul64(s.Uint64(), n)
	}
	return hi
}

// Range returns a uniform value in [lo, hi]. hi must be >= lo.
func (s *Stream) Range(lo, hi uint64) uint64 {
	if hi < lo {
		panic("prng: Range with hi < lo")
	}
	return lo + s.Uint64N(hi-lo+1)
}

// Bool returns a fair coin.
func (s *Stream) Bool() bool { return s.Uint64()&1 == 1 }

// Ratio is a probability as an integer fraction Num/Den. The zero value is
// "never". Num > Den is treated as "always".
type Ratio struct {
	Num uint32
	Den uint32
}

// Percent returns the ratio p/100.
func Percent(p uint32) Ratio { return Ratio{Num: p, Den: 100} }

// Zero reports whether the ratio can never fire.
func (r Ratio) Zero() bool { return r.Num == 0 || r.Den == 0 }

// Chance draws one event with probability r. A zero ratio draws nothing, so a
// fault that is off for a run consumes nothing from its stream.
func (s *Stream) Chance(r Ratio) bool {
	if r.Zero() {
		return false
	}
	if r.Num >= r.Den {
		return true
	}
	// Uint64N's draw, spelled out: the harness draws several chances every
	// tick, and a second call per draw was a few percent of a run.
	n := uint64(r.Den)
	hi, lo := bits.Mul64(s.Uint64(), n)
	if lo < n {
		hi = s.redraw(n, hi, lo)
	}
	return hi < uint64(r.Num)
}

// Exponential draws from an exponential distribution with the given mean, in
// integer arithmetic: -ln(u) is computed from a fixed-point log2. A zero mean
// draws nothing and returns 0. The result is capped at 20*mean so one draw can
// never stall a run.
func (s *Stream) Exponential(mean uint64) uint64 {
	if mean == 0 {
		return 0
	}
	// u in (0, 1] as a 32.32 fixed-point fraction: u = (x+1) / 2^32.
	return expOf((s.Uint64()>>32)+1, mean)
}

// expOf is Exponential's value for the draw x in [1, 2^32]: the value of
// expFromLog2 at log2Fixed16(x). The result only falls as the log grows, and
// most draws are settled by the first few of the log's 16 fraction bits: so
// the bits are made four at a time, and once the smallest and the largest
// log they may still end in give the same result, that is the result. Each
// fraction bit costs a dependent multiply; two packet delays a message were
// spending most of a run's exponential draws on bits that changed nothing.
func expOf(x, mean uint64) uint64 {
	top := uint64(bits.Len64(x) - 1)
	// x = 2^32 has top 32, and a mean from 2^40 could overflow the product
	// the monotonicity rests on: both take the whole log.
	if top > 31 || mean >= 1<<40 {
		return expFromLog2(log2Fixed16(x), mean)
	}
	m := x << (31 - top) // as log2Fixed16 normalises it
	frac := uint64(0)
	for k := uint64(1); k <= 16; k++ {
		m = (m * m) >> 31
		bit := m >> 32
		m >>= bit
		frac = frac<<1 | bit
		if k%4 == 0 && k < 16 {
			low := top<<16 | frac<<(16-k)
			high := low | (1<<(16-k) - 1)
			if v := expFromLog2(high, mean); v == expFromLog2(low, mean) {
				return v
			}
		}
	}
	return expFromLog2(top<<16|frac, mean)
}

// expFromLog2 turns log2(x) in 16.16 fixed point into the draw's value:
// mean * -ln(x / 2^32), rounded, capped at 20*mean.
func expFromLog2(log2x, mean uint64) uint64 {
	// -log2(u) = 32 - log2(x), in 16.16 fixed point.
	neg := (32 << 16) - log2x
	// ln(u) = log2(u) * ln 2; ln 2 in 16.16 is 45426.
	lnFixed := (neg * 45426) >> 16
	v := (lnFixed*mean + (1 << 15)) >> 16
	if v > 20*mean {
		v = 20 * mean
	}
	return v
}

// log2Fixed16 returns log2(x) in 16.16 fixed point for x >= 1, using the
// position of the top bit and 16 rounds of squaring for the fraction.
func log2Fixed16(x uint64) uint64 {
	top := uint64(bits.Len64(x) - 1)
	// Normalise the mantissa to [1, 2) in 1.31 fixed point.
	var m uint64
	if top >= 31 {
		m = x >> (top - 31)
	} else {
		m = x << (31 - top)
	}
	// Without a branch: each fraction bit is a coin flip, and a mispredicted
	// jump per bit cost more than the squaring. m stays in [2^31, 2^32), so
	// m*m fits and, shifted, is below 2^33: its bit 32 is the next bit.
	frac := uint64(0)
	for i := 0; i < 16; i++ {
		m = (m * m) >> 31
		bit := m >> 32
		m >>= bit
		frac = frac<<1 | bit
	}
	return top<<16 | frac
}

// Shuffle permutes n elements through swap, Fisher-Yates.
func (s *Stream) Shuffle(n int, swap func(i, j int)) {
	for i := n - 1; i > 0; i-- {
		j := s.IntN(i + 1)
		swap(i, j)
	}
}
