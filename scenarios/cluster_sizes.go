package scenarios

import (
	"strconv"

	"vsrsim/packetsim"
	"vsrsim/replica"
	"vsrsim/sim"
)

// The asymmetric faults on 4, 5 and 6 replicas, where the replication and
// view-change quorums differ from 3's (4: 2 and 3; 5: 3 and 3; 6: 3 and 4).
// r0 is the first primary; the faulty backup is the last replica. Clients
// stop at the liveness phase: a backup at the end of a long chain that fell
// behind under sustained writes catches up only at its repair cadence.
func init() {
	for _, n := range []int{4, 5, 6} {
		sizes := quietLiveness(livenessCluster(n, replica.DurabilityWAL))
		all := make([]int, n)
		for i := range all {
			all[i] = i
		}
		last := n - 1
		livenessScenario("primary-send-only-"+strconv.Itoa(n),
			"primary-send-only on "+strconv.Itoa(n)+" replicas",
			faultTick, withCore(sizes, all[1:]...),
			timeline(timed{faultTick, cutFrom(nil, []int{0})}))
		livenessScenario("backup-send-only-"+strconv.Itoa(n),
			"backup-send-only on "+strconv.Itoa(n)+" replicas",
			faultTick, withCore(sizes, all[:last]...),
			timeline(timed{faultTick, cutFrom(nil, []int{last})}))
	}
}

// duel-of-primaries: the view-0 primary is cut off from its backups (not from
// its clients) while they elect view 1, then the cut heals: for a while two
// replicas believe they are primary, each with clients. The old one must
// learn of view 1 and follow it; no write may be lost or doubled.
func init() {
	livenessScenario("duel-of-primaries",
		"an isolated old primary and the newly elected one both serve clients until the cut heals",
		2600, livenessCluster(3, replica.DurabilityWAL),
		timeline(
			timed{1000, do(note("duel-of-primaries: r0 is cut off from r1 and r2"), cut(true, []int{0}, []int{1, 2}))},
			timed{2500, do(note("duel-of-primaries: the cut heals"), cut(false, []int{0}, []int{1, 2}))},
		))
}

// rejoin-from-old-view: r2 is down while r0 and r1 go through several view
// changes (each time the primary's outbound link to the other is cut, the
// backup and the then deaf primary agree to leave), then r2 restarts from its
// write-ahead journal many views behind.
func init() {
	var acts []timed
	acts = append(acts, timed{500, do(note("rejoin-from-old-view: r2 crashes"), crash(2))})
	for k := uint64(0); k < 6; k++ {
		at := 1000 + k*900
		acts = append(acts,
			timed{at, cutPrimaryOut(true)},
			timed{at + 700, cutPrimaryOut(false)},
		)
	}
	acts = append(acts, timed{6600, do(note("rejoin-from-old-view: r2 restarts"), restart(2))})
	livenessScenario("rejoin-from-old-view",
		"a replica restarts from its journal after the others moved several views on",
		6600, longer(livenessCluster(3, replica.DurabilityWAL), 9000),
		timeline(acts...))
}

// cutPrimaryOut cuts (or restores) every link out of the current primary of
// the pair r0, r1 (whichever is Normal and primary) to the other replicas.
func cutPrimaryOut(down bool) func(*sim.Cluster, *script) {
	return func(c *sim.Cluster, _ *script) {
		if !down {
			for i := 0; i < 2; i++ {
				c.Network().SetLinkDown(i, packetsim.AnyNode, false)
			}
			return
		}
		for i := 0; i < 2; i++ {
			if info, ok := c.Info(i); ok && info.Primary {
				c.Network().SetLinkDown(i, packetsim.AnyNode, true)
			}
		}
	}
}
