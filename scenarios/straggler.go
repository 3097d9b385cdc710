package scenarios

import (
	"vsrsim/packetsim"
	"vsrsim/replica"
	"vsrsim/sim"
)

// straggler-primary-crash: the vc-straggler's slow replica (every packet it
// sends arrives 600 ticks late, longer than the view-change status timeout)
// must elect a view with the one healthy backup after the primary crashes.
// Each view change needs a round trip through the straggler, 1200 ticks and
// more: only a status timeout that backs off lets one complete. The delay is
// put back after the liveness phase began (which clears delays inside the
// core), so the core must converge with it.
func init() {
	slow := func(c *sim.Cluster, _ *script) { c.Network().SetExtraDelay(2, packetsim.AnyNode, StragglerDelayTicks) }
	slowPair := func(c *sim.Cluster, _ *script) {
		c.Network().SetExtraDelay(1, 2, StragglerDelayTicks)
		c.Network().SetExtraDelay(2, 1, StragglerDelayTicks)
	}
	livenessScenario("straggler-primary-crash",
		"a replica whose messages arrive after the view-change timeout and the healthy backup elect a view after the primary crashes",
		1000,
		withCore(quietLiveness(longer(livenessCluster(3, replica.DurabilityWAL), 16000)), 1, 2),
		func() sim.Script {
			return newScript(
				step{do: do(note("straggler-primary-crash: r2's packets arrive 600 ticks late"), slow)},
				step{when: atTick(1000), do: do(note("straggler-primary-crash: r0 crashes"), crash(0))},
				step{when: func(c *sim.Cluster, _ *script) bool { return c.Now() == c.Config().FaultTicks+2 }, do: slow},
			)
		})
	// slow-pair-primary-crash: both directions between the two backups are
	// slow, so every view change round trip (StartViewChange, DoViewChange,
	// repair, StartView) outlasts the status timeout whoever is primary-elect;
	// only a backed-off status timeout lets one finish.
	livenessScenario("slow-pair-primary-crash",
		"the two backups, 600 ticks apart each way, elect a view after the primary crashes",
		1000,
		withCore(quietLiveness(longer(livenessCluster(3, replica.DurabilityWAL), 16000)), 1, 2),
		func() sim.Script {
			return newScript(
				step{do: do(note("slow-pair-primary-crash: r1 and r2 are 600 ticks apart"), slowPair)},
				step{when: atTick(1000), do: do(note("slow-pair-primary-crash: r0 crashes"), crash(0))},
				step{when: func(c *sim.Cluster, _ *script) bool { return c.Now() == c.Config().FaultTicks+2 }, do: slowPair},
			)
		})
}
