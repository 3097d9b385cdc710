package scenarios

import (
	"vsrsim/packetsim"
	"vsrsim/replica"
	"vsrsim/sim"
)

// Slow replicas: after the primary r0 crashes, the two backups must elect a
// view over links slower than the view-change status timeout. The delay is
// put back after the liveness phase began (which clears delays inside the
// core), so the core must converge with it.
//
// straggler-primary-crash: vc-straggler's slow replica, every packet r2 sends
// 600 ticks late. It failed before the StartViewChange quorum window (r1 and
// r2 escalated apart every status timeout); the window and the status
// timeout's backoff both carry it now.
//
// slow-pair-primary-crash: both directions between the backups are slow, so
// every view-change round (StartViewChange, DoViewChange, repair, StartView)
// outlasts the status timeout whoever is primary-elect: only a status timeout
// that backs off lets one finish (TestLivenessNeedsItsMechanism).
func init() {
	slowCrash("straggler-primary-crash",
		"a replica whose messages arrive after the view-change timeout and the healthy backup elect a view after the primary crashes",
		"r2's packets arrive 600 ticks late",
		func(c *sim.Cluster, _ *script) { c.Network().SetExtraDelay(2, packetsim.AnyNode, StragglerDelayTicks) })
	slowCrash("slow-pair-primary-crash",
		"the two backups, 600 ticks apart each way, elect a view after the primary crashes",
		"r1 and r2 are 600 ticks apart",
		func(c *sim.Cluster, _ *script) {
			c.Network().SetExtraDelay(1, 2, StragglerDelayTicks)
			c.Network().SetExtraDelay(2, 1, StragglerDelayTicks)
		})
}

func slowCrash(name, description, what string, slow func(*sim.Cluster, *script)) {
	livenessScenario(name, description, 1000,
		withCore(quietLiveness(longer(livenessCluster(3, replica.DurabilityWAL), 16000)), 1, 2),
		func() sim.Script {
			return newScript(
				step{do: do(note(name+": "+what), slow)},
				step{when: atTick(1000), do: do(note(name+": r0 crashes"), crash(0))},
				step{when: func(c *sim.Cluster, _ *script) bool { return c.Now() == c.Config().FaultTicks+2 }, do: slow},
			)
		})
}
