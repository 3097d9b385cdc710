package vsr

// Quorum arithmetic, as pure functions (protocol.md "Cluster and quorums").

// QuorumReplication is the number of replicas that must hold a prepare before it
// commits.
func QuorumReplication(n int) int {
	if n == 2 {
		return 2
	}
	q := (n + 1) / 2
	if q > 3 {
		q = 3
	}
	return q
}

// QuorumViewChange is the number of DoViewChange votes a new primary needs.
func QuorumViewChange(n int) int {
	if n == 2 {
		return 2
	}
	return n - QuorumReplication(n) + 1
}

// QuorumNack is the number of nacks that prove an op never committed. It must
// intersect every replication quorum.
func QuorumNack(n int) int { return n - QuorumReplication(n) + 1 }

// PrimaryOf returns the primary of view for a cluster of n replicas.
func PrimaryOf(view uint64, n int) int { return int(view % uint64(n)) }
