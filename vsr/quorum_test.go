package vsr

import (
	"math/bits"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Quorum arithmetic (protocol.md "Cluster and quorums"; VRR Revisited §4 and
// the flexible quorums of TigerBeetle), checked exhaustively against a naive
// twin that derives every quorum by counting subsets instead of by formula.

// naiveReplication is the replication quorum by counting: the smallest k with
// 2k >= n (half the cluster, rounded up), at most 3; a 2-replica cluster needs
// both.
func naiveReplication(n int) int {
	if n == 2 {
		return 2
	}
	k := 1
	for 2*k < n {
		k++
	}
	if k > 3 {
		k = 3
	}
	return k
}

// subsets returns every subset of n replicas of exactly size k, as bit masks.
func subsets(n, k int) []uint32 {
	var s []uint32
	for m := uint32(0); m < 1<<uint(n); m++ {
		if bits.OnesCount32(m) == k {
			s = append(s, m)
		}
	}
	return s
}

// everyPairIntersects reports whether every a in as shares a replica with
// every b in bs.
func everyPairIntersects(as, bs []uint32) bool {
	for _, a := range as {
		for _, b := range bs {
			if a&b == 0 {
				return false
			}
		}
	}
	return true
}

// naiveNack is the smallest k such that every k-subset intersects every
// replication quorum: k nacks prove no replication quorum acked the op.
func naiveNack(n int) int {
	reps := subsets(n, naiveReplication(n))
	for k := 1; k <= n; k++ {
		if everyPairIntersects(subsets(n, k), reps) {
			return k
		}
	}
	return n + 1
}

// naiveViewChange is the smallest k such that every k-subset intersects every
// replication quorum (the new primary hears of every committed op) and every
// other k-subset (two view changes of one view share a voter).
func naiveViewChange(n int) int {
	reps := subsets(n, naiveReplication(n))
	for k := 1; k <= n; k++ {
		ks := subsets(n, k)
		if everyPairIntersects(ks, reps) && everyPairIntersects(ks, ks) {
			return k
		}
	}
	return n + 1
}

func TestQuorumLiteralTable(t *testing.T) {
	// protocol.md: "n = 3 gives 2/2/2; n = 5 gives 3/3/3", and the formulas for
	// the rest (replication = 2 when n == 2, else min(ceil(n/2), 3);
	// view change = n - replication + 1, 2 when n == 2; nack = n - replication + 1).
	table := []struct{ n, replication, viewChange, nack int }{
		{1, 1, 1, 1},
		{2, 2, 2, 1},
		{3, 2, 2, 2},
		{4, 2, 3, 3},
		{5, 3, 3, 3},
		{6, 3, 4, 4},
		{7, 3, 5, 5},
		{8, 3, 6, 6},
		{9, 3, 7, 7},
	}
	for _, row := range table {
		assert.Equal(t, row.replication, QuorumReplication(row.n), "replication quorum n=%d", row.n)
		assert.Equal(t, row.viewChange, QuorumViewChange(row.n), "view-change quorum n=%d", row.n)
		assert.Equal(t, row.nack, QuorumNack(row.n), "nack quorum n=%d", row.n)
	}
}

func TestQuorumMatchesNaiveTwin(t *testing.T) {
	for n := 1; n <= 7; n++ {
		assert.Equal(t, naiveReplication(n), QuorumReplication(n), "replication n=%d", n)
		assert.Equal(t, naiveNack(n), QuorumNack(n), "nack n=%d", n)
		assert.Equal(t, naiveViewChange(n), QuorumViewChange(n), "view change n=%d", n)
	}
}

// TestQuorumIntersectionsExhaustive checks, over every pair of subsets of the
// cluster, the intersections protocol.md relies on.
func TestQuorumIntersectionsExhaustive(t *testing.T) {
	for n := 1; n <= 7; n++ {
		qr, qvc, qn := QuorumReplication(n), QuorumViewChange(n), QuorumNack(n)
		require.True(t, qr >= 1 && qr <= n, "n=%d replication %d out of 1..n", n, qr)
		require.True(t, qvc >= 1 && qvc <= n, "n=%d view change %d out of 1..n", n, qvc)
		require.True(t, qn >= 1 && qn <= n, "n=%d nack %d out of 1..n", n, qn)
		all := uint32(1)<<uint(n) - 1
		for a := uint32(0); a <= all; a++ {
			sa := bits.OnesCount32(a)
			for b := uint32(0); b <= all; b++ {
				sb := bits.OnesCount32(b)
				if a&b != 0 {
					continue
				}
				// "A nack quorum and a replication quorum for the same op must
				// never both exist": a replica cannot both ack and nack an op.
				assert.False(t, sa >= qr && sb >= qn,
					"n=%d: replication quorum %05b and nack quorum %05b are disjoint", n, a, b)
				// A view-change quorum hears from some member of every
				// replication quorum, so no committed op goes unseen.
				assert.False(t, sa >= qr && sb >= qvc,
					"n=%d: replication quorum %05b and view-change quorum %05b are disjoint", n, a, b)
				// Two view-change quorums share a voter.
				assert.False(t, sa >= qvc && sb >= qvc,
					"n=%d: view-change quorums %05b and %05b are disjoint", n, a, b)
			}
		}
	}
}

// TestQuorumMinimal checks that no quorum is larger than it must be: one
// fewer nack, or one fewer view-change vote, admits a disjoint pair, so the
// cluster would lose availability for nothing.
func TestQuorumMinimal(t *testing.T) {
	for n := 2; n <= 7; n++ {
		qr, qvc, qn := QuorumReplication(n), QuorumViewChange(n), QuorumNack(n)
		reps := subsets(n, qr)
		assert.False(t, everyPairIntersects(subsets(n, qn-1), reps),
			"n=%d: a nack quorum of %d would also be safe", n, qn-1)
		smaller := subsets(n, qvc-1)
		assert.False(t, everyPairIntersects(smaller, reps) && everyPairIntersects(smaller, smaller),
			"n=%d: a view-change quorum of %d would also be safe", n, qvc-1)
	}
}

// TestQuorumLiveness checks how many failures a cluster rides out: with
// n - QuorumViewChange(n) replicas down the survivors still hold a view-change
// quorum and a replication quorum, and one more failure leaves no view-change
// quorum. For n = 3 and 5 that is VRR's f = (n-1)/2, which is also the number
// of other replicas' StartViewChanges a replica waits for (QuorumViewChange-1).
func TestQuorumLiveness(t *testing.T) {
	for n := 1; n <= 7; n++ {
		tolerated := n - QuorumViewChange(n)
		assert.GreaterOrEqual(t, n-tolerated, QuorumViewChange(n), "n=%d", n)
		assert.GreaterOrEqual(t, n-tolerated, QuorumReplication(n), "n=%d", n)
		assert.Less(t, n-tolerated-1, QuorumViewChange(n), "n=%d tolerates more than %d", n, tolerated)
		if n >= 3 {
			assert.GreaterOrEqual(t, tolerated, 1, "n=%d tolerates no failure", n)
		}
		if n == 3 || n == 5 {
			assert.Equal(t, (n-1)/2, tolerated, "n=%d", n)
			assert.Equal(t, tolerated, QuorumViewChange(n)-1, "n=%d", n)
		}
	}
}

func TestPrimaryOfRoundRobin(t *testing.T) {
	for n := 1; n <= 7; n++ {
		seen := make([]int, n)
		for v := uint64(0); v < uint64(3*n); v++ {
			p := PrimaryOf(v, n)
			require.True(t, p >= 0 && p < n)
			assert.Equal(t, int(v)%n, p)
			seen[p]++
		}
		for i := range seen {
			assert.Equal(t, 3, seen[i], "n=%d replica %d primary of %d views", n, i, seen[i])
		}
	}
}
