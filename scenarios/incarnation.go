package scenarios

import (
	"vsrsim/replica"
	"vsrsim/sim"
	"vsrsim/vsr"
)

// AckRestartOp is the op whose ack outlives its sender's journal in
// ack-across-restart.
const AckRestartOp = 20

// ack-across-restart: a backup acks an op, crashes and comes back empty (a
// memory journal). Its ack bit must not count toward the op's quorum after
// the primary learned of the restart.
//
// Script, 5 replicas (replication quorum 3), star topology:
//  1. Op 20 reaches r2 only; r0 holds r2's ack, two of three.
//  2. r2 crashes and restarts at once; its probe tells r0 its new
//     incarnation.
//  3. Then r3 gets op 20 (r2 still cannot). With r2's old bit still set r0
//     would commit op 20 on the acks of r0 and r3 alone.
//  4. 300 ticks later op 20 reaches everyone.
func init() {
	livenessScenario("ack-across-restart",
		"a backup's ack from before a restart that wiped its journal does not count toward a quorum",
		3000,
		func(cfg *sim.Config) {
			quietLiveness(livenessCluster(5, replica.DurabilityMemory))(cfg)
			cfg.Topology = replica.TopologyStar
		},
		func() sim.Script {
			return newScript(
				step{do: do(
					note("ack-across-restart: op 20 reaches r2 only"),
					dropIf(func(c *sim.Cluster, s *script, from, to int, m *vsr.Message) bool {
						op, carries := prepareOp(m)
						isOp := carries && op == AckRestartOp
						switch {
						case !isOp || s.flags["heal"]:
							return false
						case to == 2:
							return s.flags["crashed"] // the restarted r2 stays without it
						case to == 3:
							return !s.flags["r3"]
						}
						return true
					}),
				)},
				step{when: func(c *sim.Cluster, _ *script) bool {
					info, ok := c.Info(0)
					return ok && info.PipelineHead == AckRestartOp && info.PipelineHeadAcks >= 2
				}, do: do(note("ack-across-restart: r2 crashes after acking op 20"), crash(2),
					func(_ *sim.Cluster, s *script) { s.flags["crashed"] = true })},
				step{when: afterTicks(1), do: restart(2)},
				step{when: afterTicks(150), do: do(note("ack-across-restart: op 20 reaches r3"),
					func(_ *sim.Cluster, s *script) { s.flags["r3"] = true })},
				step{when: afterTicks(300), do: do(note("ack-across-restart: op 20 reaches everyone"),
					func(_ *sim.Cluster, s *script) { s.flags["heal"] = true })},
			)
		})
}
