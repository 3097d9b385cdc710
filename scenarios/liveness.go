package scenarios

import (
	"vsrsim/replica"
	"vsrsim/sim"
)

// Liveness scenarios replay a fault that a production VSR cluster survives.
// They plant no defect: with every fix on each must pass, and its clients
// must be served again after the fault (ServedAfter, a tick of the fault
// phase).

// livenessScenario registers a scenario that must pass and serve clients
// after the tick servedAfter.
func livenessScenario(name, description string, servedAfter uint64, configure func(*sim.Config), newScript func() sim.Script) {
	register(Scenario{
		Name:        name,
		Description: description,
		Expect:      sim.VerdictPass,
		ServedAfter: servedAfter,
		Configure:   configure,
		NewScript:   newScript,
	})
}

// livenessCluster is the quiet cluster of a liveness scenario: every replica
// in the core unless the scenario narrows it, and clients writing through the
// liveness phase so a stall there shows.
func livenessCluster(replicas int, durability replica.Durability) func(*sim.Config) {
	return func(cfg *sim.Config) {
		quietCluster(cfg, replicas)
		cfg.Durability = durability
		cfg.LivenessWorkload = true
	}
}

// withCore narrows the liveness core of a configuration.
func withCore(configure func(*sim.Config), core ...int) func(*sim.Config) {
	return func(cfg *sim.Config) {
		configure(cfg)
		cfg.Core = core
	}
}

// timed is one scripted action at a fixed tick.
type timed struct {
	tick uint64
	do   func(*sim.Cluster, *script)
}

// timeline turns timed actions (in tick order) into a script.
func timeline(actions ...timed) func() sim.Script {
	return func() sim.Script {
		steps := make([]step, len(actions))
		for i, a := range actions {
			steps[i] = step{when: atTick(a.tick), do: a.do}
		}
		return newScript(steps...)
	}
}

func crashAll(ids ...int) func(*sim.Cluster, *script) {
	return func(c *sim.Cluster, _ *script) {
		for _, i := range ids {
			c.Crash(i)
		}
	}
}

func restartAll(ids ...int) func(*sim.Cluster, *script) {
	return func(c *sim.Cluster, _ *script) {
		for _, i := range ids {
			c.Restart(i)
		}
	}
}

// quietLiveness stops the clients when the liveness phase begins: a backup at
// the end of a long chain that fell behind under sustained writes catches up
// only at its repair cadence (see docs/protocol.md "Repair").
func quietLiveness(configure func(*sim.Config)) func(*sim.Config) {
	return func(cfg *sim.Config) {
		configure(cfg)
		cfg.LivenessWorkload = false
	}
}

// longer gives a scenario a longer fault phase.
func longer(configure func(*sim.Config), faultTicks uint64) func(*sim.Config) {
	return func(cfg *sim.Config) {
		configure(cfg)
		cfg.FaultTicks = faultTicks
	}
}
