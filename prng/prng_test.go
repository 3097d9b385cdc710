package prng

import (
	"math/bits"
	"testing"
)

// TestGolden pins the raw output of two streams. Every trace hash in the
// project is a function of these values: a change here (to New, mix, or the
// PCG underneath) changes every recorded trace hash and every seed's run, so
// it must be deliberate and announced.
func TestGolden(t *testing.T) {
	cases := []struct {
		name string
		seed uint64
		id   StreamID
		want [5]uint64
	}{
		{
			name: "seed 1 network",
			seed: 1,
			id:   StreamNetwork,
			want: [5]uint64{
				0x3fdde33863b918f0,
				0xb7ade54b240f0f57,
				0xc437a18b35aa06bf,
				0x1281115ee298bcad,
				0x356fcb180bbec11d,
			},
		},
		{
			name: "seed 42 replica 2 jitter",
			seed: 42,
			id:   StreamReplicaJitterBase + 2,
			want: [5]uint64{
				0xc3a488c9d3582b35,
				0x798363c5c1be2e05,
				0xc9e0f903bef24f68,
				0xe819fd962cd45e79,
				0xbbb4e73f4ffa7a94,
			},
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			s := New(tc.seed, tc.id)
			for i, want := range tc.want {
				if got := s.Uint64(); got != want {
					t.Fatalf("draw %d = %#016x, want %#016x", i, got, want)
				}
			}
		})
	}
}

// TestPerReplicaStreams checks that each per-replica helper is its stream.
func TestPerReplicaStreams(t *testing.T) {
	cases := []struct {
		name string
		got  *Stream
		id   StreamID
	}{
		{"ReplicaJitter", ReplicaJitter(42, 2), StreamReplicaJitterBase + 2},
		{"Disk", Disk(42, 2), StreamDiskBase + 2},
	}
	for _, tc := range cases {
		want := New(42, tc.id)
		for i := 0; i < 8; i++ {
			if x, y := tc.got.Uint64(), want.Uint64(); x != y {
				t.Fatalf("%s draw %d: %#x != New %#x", tc.name, i, x, y)
			}
		}
	}
}

// TestStreamIDsAppendOnly pins every stream id's number: a stream renumbered
// moves every recorded trace that draws from it.
func TestStreamIDsAppendOnly(t *testing.T) {
	want := []struct {
		id   StreamID
		want uint64
	}{
		{StreamNetwork, 1}, {StreamFaults, 2}, {StreamWorkload, 3}, {StreamSwarm, 4},
		{StreamScenario, 5}, {StreamAimed, 6}, {StreamWeather, 7}, {StreamSwarmReach, 8},
		{StreamSwarmDetect, 9}, {StreamSwarmFocus, 10}, {StreamDiskAtlas, 11},
		{StreamSwarmStorage, 12}, {StreamDiskAimed, 13}, {StreamFuzz, 14},
		{StreamDiskSecond, 15}, {StreamDiskRead, 16}, {StreamDiskRewrite, 17},
		{StreamDiskSuperblockLoss, 18}, {StreamDiskRewriteBoth, 19}, {StreamDiskQuiet, 20},
		{StreamDiskStaleAsk, 21}, {StreamDiskRewriteSpoil, 22},
		{StreamReplicaJitterBase, 1000}, {StreamDiskBase, 2000},
	}
	for _, w := range want {
		if uint64(w.id) != w.want {
			t.Errorf("stream id %d, want %d", uint64(w.id), w.want)
		}
	}
}

// TestChildStreamsDiffer checks that the streams of one seed, and one stream of
// neighbouring seeds, do not start alike: a shared prefix would correlate the
// network with the workload.
func TestChildStreamsDiffer(t *testing.T) {
	ids := []StreamID{
		StreamNetwork, StreamFaults, StreamWorkload, StreamSwarm, StreamScenario,
		StreamReplicaJitterBase, StreamReplicaJitterBase + 1, StreamReplicaJitterBase + 2,
		StreamDiskAtlas, StreamDiskBase, StreamDiskBase + 1, StreamDiskBase + 2,
		StreamSwarmStorage, StreamDiskAimed, StreamFuzz, StreamDiskSecond,
		StreamDiskRead, StreamDiskRewrite, StreamDiskSuperblockLoss, StreamDiskRewriteBoth,
		StreamDiskQuiet, StreamDiskStaleAsk, StreamDiskRewriteSpoil,
	}
	var firsts []uint64
	for _, seed := range []uint64{0, 1, 2, 42} {
		for _, id := range ids {
			firsts = append(firsts, New(seed, id).Uint64())
		}
	}
	for i := range firsts {
		for j := i + 1; j < len(firsts); j++ {
			if firsts[i] == firsts[j] {
				t.Fatalf("streams %d and %d start with the same value %#x", i, j, firsts[i])
			}
		}
	}
}

func TestUint64NBounds(t *testing.T) {
	s := New(7, StreamScenario)
	for _, n := range []uint64{1, 2, 3, 7, 10, 1000, 1<<63 + 5, ^uint64(0)} {
		for i := 0; i < 2000; i++ {
			if v := s.Uint64N(n); v >= n {
				t.Fatalf("Uint64N(%d) = %d", n, v)
			}
		}
	}
	// Every value of a small range shows up: the bound is not off by one.
	var seen [5]int
	for i := 0; i < 5000; i++ {
		seen[s.Uint64N(5)]++
	}
	for v, c := range seen {
		if c == 0 {
			t.Fatalf("Uint64N(5) never returned %d", v)
		}
	}
	for i := 0; i < 1000; i++ {
		if v := s.Range(10, 12); v < 10 || v > 12 {
			t.Fatalf("Range(10, 12) = %d", v)
		}
	}
	if v := s.Range(9, 9); v != 9 {
		t.Fatalf("Range(9, 9) = %d", v)
	}
}

func TestUint64NZeroPanics(t *testing.T) {
	defer func() {
		if recover() == nil {
			t.Fatal("Uint64N(0) did not panic")
		}
	}()
	New(1, StreamNetwork).Uint64N(0)
}

// sameNext reports whether s is still in the same state as a fresh stream of
// (seed, id) that has had skip draws taken: the next values must agree.
func sameNext(s *Stream, seed uint64, id StreamID, skip int) bool {
	fresh := New(seed, id)
	for i := 0; i < skip; i++ {
		fresh.Uint64()
	}
	return s.Uint64() == fresh.Uint64()
}

// TestChanceZeroDrawsNothing checks the promise a fault-free run relies on: a
// fault that is off consumes nothing from its stream.
func TestChanceZeroDrawsNothing(t *testing.T) {
	for _, r := range []Ratio{{}, {Num: 0, Den: 100}, {Num: 5, Den: 0}} {
		s := New(3, StreamFaults)
		for i := 0; i < 100; i++ {
			if s.Chance(r) {
				t.Fatalf("Chance(%+v) fired", r)
			}
		}
		if !sameNext(s, 3, StreamFaults, 0) {
			t.Fatalf("Chance(%+v) drew from the stream", r)
		}
	}
}

func TestChanceCertain(t *testing.T) {
	for _, r := range []Ratio{{Num: 1, Den: 1}, {Num: 100, Den: 100}, {Num: 7, Den: 3}} {
		s := New(3, StreamFaults)
		for i := 0; i < 1000; i++ {
			if !s.Chance(r) {
				t.Fatalf("Chance(%+v) did not fire", r)
			}
		}
		// A certain event needs no draw either.
		if !sameNext(s, 3, StreamFaults, 0) {
			t.Fatalf("Chance(%+v) drew from the stream", r)
		}
	}
}

func TestChanceRate(t *testing.T) {
	s := New(11, StreamFaults)
	const draws = 100_000
	hits := 0
	for i := 0; i < draws; i++ {
		if s.Chance(Percent(10)) {
			hits++
		}
	}
	// 10% of 100k is 10000; sigma is ~95, so 500 is over five sigma.
	if hits < 9500 || hits > 10500 {
		t.Fatalf("Chance(10%%) fired %d times in %d", hits, draws)
	}
}

func TestExponentialMean(t *testing.T) {
	for _, mean := range []uint64{10, 1000} {
		s := New(5, StreamNetwork)
		const draws = 100_000
		var sum uint64
		for i := 0; i < draws; i++ {
			v := s.Exponential(mean)
			if v > 20*mean {
				t.Fatalf("Exponential(%d) = %d, above the 20*mean cap", mean, v)
			}
			sum += v
		}
		// Within 5% of the mean, in integers: |sum - draws*mean| * 20 <= draws*mean.
		want := draws * mean
		diff := sum - want
		if sum < want {
			diff = want - sum
		}
		if diff*20 > want {
			t.Fatalf("Exponential(%d): mean of %d draws is %d/%d, more than 5%% off", mean, draws, sum, draws)
		}
	}
}

func TestExponentialZero(t *testing.T) {
	s := New(5, StreamNetwork)
	for i := 0; i < 10; i++ {
		if v := s.Exponential(0); v != 0 {
			t.Fatalf("Exponential(0) = %d", v)
		}
	}
	if !sameNext(s, 5, StreamNetwork, 0) {
		t.Fatal("Exponential(0) drew from the stream")
	}
}

func TestShuffleIsPermutation(t *testing.T) {
	s := New(9, StreamSwarm)
	xs := []int{0, 1, 2, 3, 4, 5, 6, 7, 8, 9}
	s.Shuffle(len(xs), func(i, j int) { xs[i], xs[j] = xs[j], xs[i] })
	var seen [10]bool
	for _, x := range xs {
		if seen[x] {
			t.Fatalf("Shuffle duplicated %d: %v", x, xs)
		}
		seen[x] = true
	}
}

// TestLog2Fixed16Golden pins the fixed-point log2 behind Exponential, whose
// every value feeds packet delays and so every trace hash: a digest over
// small inputs, the powers of two, and a million inputs as Exponential
// draws them, taken from the branching form this one replaced.
func TestLog2Fixed16Golden(t *testing.T) {
	var digest uint64 = 14695981039346656037
	add := func(x uint64) {
		digest = (digest ^ log2Fixed16(x)) * 1099511628211
	}
	for x := uint64(1); x <= 1<<16; x++ {
		add(x)
	}
	for k := 0; k < 64; k++ {
		add(1 << k)
		add(1<<k | 1<<k - 1)
	}
	s := New(7, StreamNetwork)
	for i := 0; i < 1_000_000; i++ {
		add((s.Uint64() >> 32) + 1)
	}
	if digest != 0x5625d1d9f271766e {
		t.Fatalf("log2Fixed16 digest = %#016x, want 0x5625d1d9f271766e", digest)
	}
}

// TestExponentialGolden pins Exponential's values, which set every packet's
// delay and so every trace hash: a digest over draws at means from 1 to 2^50,
// taken from the form that computed all 16 bits of every log.
func TestExponentialGolden(t *testing.T) {
	var digest uint64 = 14695981039346656037
	s := New(9, StreamNetwork)
	for _, mean := range []uint64{1, 2, 3, 5, 8, 21, 100, 173, 1000, 1767, 65536, 1 << 39, 1<<40 + 7, 1 << 50} {
		for i := 0; i < 100_000; i++ {
			digest = (digest ^ s.Exponential(mean)) * 1099511628211
		}
	}
	if digest != 0x8dfe78df76ba37d7 {
		t.Fatalf("Exponential digest = %#016x, want 0x8dfe78df76ba37d7", digest)
	}
}

// expReference is Exponential's value for the draw x as first written: all
// 16 fraction bits of the log, each taken by a branch.
func expReference(x, mean uint64) uint64 {
	top := uint64(bits.Len64(x) - 1)
	var m uint64
	if top >= 31 {
		m = x >> (top - 31)
	} else {
		m = x << (31 - top)
	}
	frac := uint64(0)
	for i := 0; i < 16; i++ {
		m = (m * m) >> 31
		frac <<= 1
		if m >= 1<<32 {
			m >>= 1
			frac |= 1
		}
	}
	neg := (32 << 16) - (top<<16 | frac)
	lnFixed := (neg * 45426) >> 16
	v := (lnFixed*mean + (1 << 15)) >> 16
	if v > 20*mean {
		v = 20 * mean
	}
	return v
}

// TestExpOfMatchesWholeLog: stopping at the log's first bits that settle the
// result gives the result of all 16 bits, for every small draw, every power
// of two and its neighbours, and random draws, at means on both sides of the
// 2^40 above which the whole log is always taken.
func TestExpOfMatchesWholeLog(t *testing.T) {
	s := New(11, StreamNetwork)
	for _, mean := range []uint64{1, 2, 3, 5, 8, 21, 100, 173, 1000, 1767, 65536, 1<<40 - 1, 1 << 40, 1 << 50} {
		xs := []uint64{}
		for x := uint64(1); x <= 1<<12; x++ {
			xs = append(xs, x)
		}
		for k := 1; k <= 32; k++ {
			xs = append(xs, 1<<k-1, 1<<k, 1<<k+1)
		}
		for i := 0; i < 100_000; i++ {
			xs = append(xs, (s.Uint64()>>32)+1)
		}
		for _, x := range xs {
			if x > 1<<32 {
				continue
			}
			if got, want := expOf(x, mean), expReference(x, mean); got != want {
				t.Fatalf("expOf(%d, %d) = %d, want %d", x, mean, got, want)
			}
		}
	}
}
