package scenarios

import (
	"vsrsim/replica"
	"vsrsim/sim"
	"vsrsim/vsr"
)

// Asymmetric and partial network faults that stay in force to the end of the
// run (a filter survives the liveness phase's heal). The replicas on the
// majority side are the core: they must elect a view, keep it, and serve the
// clients although one replica can only send or only receive.

// faultTick is when the network fault of these scenarios begins.
const faultTick = 1000

// cutFrom drops every packet from a node of from to a node of to, from
// faultTick on. A nil from means every node, clients included.
func cutFrom(from, to []int) func(*sim.Cluster, *script) {
	in := func(set []int, x int) bool {
		if set == nil {
			return true
		}
		for _, y := range set {
			if y == x {
				return true
			}
		}
		return false
	}
	return dropIf(func(c *sim.Cluster, _ *script, f, t int, _ *vsr.Message) bool {
		return f != t && in(from, f) && in(to, t)
	})
}

func init() {
	three := livenessCluster(3, replica.DurabilityWAL)
	livenessScenario("primary-send-only",
		"every link into the primary is cut (clients' too), its outbound links work",
		faultTick, withCore(three, 1, 2),
		timeline(timed{faultTick, do(note("primary-send-only: r0 hears nobody"), cutFrom(nil, []int{0}))}))
	livenessScenario("backup-send-only",
		"every link into one backup is cut, its outbound links work",
		faultTick, withCore(three, 0, 1),
		timeline(timed{faultTick, do(note("backup-send-only: r2 hears nobody"), cutFrom(nil, []int{2}))}))
	// r2 is down while r0's restart moves the cluster to view 1, and comes
	// back with its link to r1, the new primary, cut one way: it hears view
	// 1's heartbeats, but its probes for the view never arrive, and r0, served
	// well, never joins its wish to leave. Only a StartView the primary sends
	// unasked brings r2 into the view (docs/decisions.md D28). The clients
	// stop at the liveness phase: r2, whose repair requests to the primary are
	// lost, catches up at its repair cadence, not under load.
	livenessScenario("backup-mute-to-new-primary",
		"a backup misses a view change and cannot reach the new primary; the primary must send it the view",
		faultTick+2000, quietLiveness(withCore(three, 0, 2)),
		timeline(
			timed{faultTick, do(note("backup-mute-to-new-primary: r1 hears r2 no more"), cutFrom([]int{2}, []int{1}), crashAll(0, 2))},
			timed{faultTick + 100, restartAll(0)},
			timed{faultTick + 1500, restartAll(2)}))

	// Partitions of {r0, r1, r2} with r0 the first primary: 2-1 leaves a
	// backup alone, 1-2 the primary. One-way "in" cuts the links into the
	// lone replica, "out" the links out of it.
	type partition struct {
		name       string
		lone, pair []int
	}
	for _, p := range []partition{{"2-1", []int{2}, []int{0, 1}}, {"1-2", []int{0}, []int{1, 2}}} {
		for _, way := range []string{"", "-oneway-in", "-oneway-out"} {
			name := "partition-" + p.name + way
			var acts []func(*sim.Cluster, *script)
			if way != "-oneway-out" {
				acts = append(acts, cutFrom(p.pair, p.lone))
			}
			if way != "-oneway-in" {
				acts = append(acts, cutFrom(p.lone, p.pair))
			}
			kind := map[string]string{
				"":            "symmetric",
				"-oneway-in":  "one-way, into the lone replica",
				"-oneway-out": "one-way, out of the lone replica",
			}[way]
			livenessScenario(name,
				"replicas partitioned "+p.name+" ("+kind+"); the pair must serve",
				faultTick, withCore(three, p.pair...),
				timeline(timed{faultTick, do(append([]func(*sim.Cluster, *script){note(name)}, acts...)...)}))
		}
	}
}
