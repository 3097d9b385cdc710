package check

// The oracle's own quorum arithmetic. It is written here, not imported from
// the replica, so a slip in the replica's arithmetic cannot also slip into the
// check that judges it (quorum_test.go holds a brute-force twin).

// ReplicasMax is the largest cluster the oracle judges.
const ReplicasMax = 9

// quorumReplication is how many replicas must hold a prepare before a primary
// may commit it: all of them at n=2, else a majority capped at 3 (flexible
// quorums: the view-change quorum grows to intersect it).
func quorumReplication(n int) int {
	switch {
	case n <= 1:
		return 1
	case n == 2:
		return 2
	}
	q := n/2 + n%2
	if q > 3 {
		q = 3
	}
	return q
}

// quorumViewChange is how many votes a view change needs: enough to meet every
// replication quorum in at least one replica.
func quorumViewChange(n int) int {
	if n == 2 {
		return 2
	}
	return n - quorumReplication(n) + 1
}

// faultsTolerated is f: how many replicas may be down, or up without their
// journal, while a view-change quorum remains whole.
func faultsTolerated(n int) int { return n - quorumViewChange(n) }
