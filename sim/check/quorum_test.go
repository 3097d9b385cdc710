package check

import (
	"math/bits"
	"testing"

	"github.com/stretchr/testify/assert"
)

// naiveIntersects reports whether every a-subset of n replicas meets every
// b-subset, by enumerating them all.
func naiveIntersects(n, a, b int) bool {
	for x := 0; x < 1<<n; x++ {
		if bits.OnesCount(uint(x)) != a {
			continue
		}
		for y := 0; y < 1<<n; y++ {
			if bits.OnesCount(uint(y)) == b && x&y == 0 {
				return false
			}
		}
	}
	return true
}

// TestQuorumsAgainstNaiveTwin checks the closed forms against enumeration for
// every supported cluster size: the view-change quorum is the smallest that
// meets every replication quorum, and a replication quorum is half the
// cluster rounded up, capped at 3, except at n=2 where both replicas ack.
func TestQuorumsAgainstNaiveTwin(t *testing.T) {
	for n := 1; n <= ReplicasMax; n++ {
		qr, qv := quorumReplication(n), quorumViewChange(n)
		wantQR := 0
		for q := 1; q <= n; q++ {
			if 2*q >= n { // half the cluster, rounded up
				wantQR = q
				break
			}
		}
		if wantQR > 3 {
			wantQR = 3
		}
		if n == 2 {
			wantQR = 2
		}
		assert.Equal(t, wantQR, qr, "replication quorum n=%d", n)
		smallest := 0
		for q := 1; q <= n; q++ {
			if naiveIntersects(n, q, qr) {
				smallest = q
				break
			}
		}
		if n == 2 {
			smallest = 2 // both must vote: one replica alone never elects at n=2
		}
		assert.Equal(t, smallest, qv, "view-change quorum n=%d", n)
		assert.True(t, naiveIntersects(n, qv, qr), "n=%d: quorums must intersect", n)
		assert.Equal(t, n-qv, faultsTolerated(n), "n=%d", n)
	}
}
