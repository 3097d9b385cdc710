package scenarios

import (
	"vsrsim/packetsim"
	"vsrsim/sim"
	"vsrsim/vsr"
)

// StragglerDelayTicks is the directed extra delay on the straggler's outbound
// links: longer than the view-change status timeout (500 ticks plus jitter).
const StragglerDelayTicks = 600

// vc-straggler (failure-shapes.md 4): one replica's outbound messages arrive
// later than the view-change status timeout. Latency alone, no loss.
//
// Script, with r2 the straggler:
//  1. From the start, every packet r2 sends is delayed by 600 extra ticks.
//  2. At tick 800 r2 stops hearing r0 and r1 (inbound links cut), so it times
//     out and starts a view change; as soon as it has, the links heal.
//  3. r2's StartViewChange lands 600 ticks later. With the defect r2 has
//     escalated again by then, and each late StartViewChange pulls the healthy
//     pair out of the view they just settled. With the fix r2 holds its view
//     while the view-0 primary still heartbeats it, and adopts view 1.
func init() {
	register(Scenario{
		Name:        "vc-straggler",
		Description: "a replica whose messages arrive after the view-change timeout keeps the healthy pair from settling a view",
		Bug:         "escalate-without-hold",
		Expect:      sim.VerdictLiveness,
		Configure: func(cfg *sim.Config) {
			quietCluster(cfg, 3)
			cfg.FaultTicks = 3000
			cfg.Core = []int{0, 1}
			cfg.LivenessWorkload = true
			// The source had neither abdication nor a StartViewChange
			// quorum window; either would hide the shape.
			cfg.Protocol = sourceWithoutLivenessGuards
		},
		NewScript: func() sim.Script { return vcStragglerScript(StragglerDelayTicks, true) },
	})
}

// vcStragglerScript is the script with the straggler's delay as a parameter;
// withDelay false leaves the extra-delay action out altogether, so a test can
// show that a zero delay replays the run without it, hash for hash.
func vcStragglerScript(delay uint64, withDelay bool) sim.Script {
	var steps []step
	if withDelay {
		steps = append(steps, step{do: func(c *sim.Cluster, _ *script) {
			c.Network().SetExtraDelay(2, packetsim.AnyNode, delay)
		}})
	}
	return newScript(append(steps,
		step{when: atTick(800), do: do(note("vc-straggler: r2 stops hearing the primary"), cutInto(true, 2, 0, 1))},
		step{when: status(2, vsr.StatusViewChange), do: do(note("vc-straggler: r2 hears the primary again"), cutInto(false, 2, 0, 1))},
	)...)
}

// cutInto cuts (or restores) the links from each of froms into to.
func cutInto(down bool, to int, froms ...int) func(*sim.Cluster, *script) {
	return func(c *sim.Cluster, _ *script) {
		for _, f := range froms {
			c.Network().SetLinkDown(f, to, down)
		}
	}
}
