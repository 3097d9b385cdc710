package scenarios

import (
	"vsrsim/replica"
	"vsrsim/sim"
	"vsrsim/vsr"
)

// hollow-op (failure-shapes.md 1): a restarted backup adopts a view whose head
// op it holds no body for; under commit lag its repair stops at commit_max, so
// the head stays hollow and every retransmit of it fails the gap check.
//
// Script, with r0 the view-0 primary, r1 the next primary, r2 the backup B:
//  1. r2 crashes and restarts early (memory journal: it comes back empty) and
//     adopts view 0 while its repair is held back, so it lags commit_max.
//  2. Op 21 reaches r1 only and r1's ack is lost: 21 stays uncommitted.
//  3. r0 crashes as soon as r1 journals 21 and stays down.
//  4. r1 and r2 elect view 1; r2 adopts StartView(op 21, commit 20) header-only.
//     With the defect it fetches 1..20 and never 21.
func init() {
	const hollowOp = 21
	register(Scenario{
		Name:        "hollow-op",
		Description: "a restarted backup adopts a view head it has no body for and never repairs it",
		Bug:         "narrow-repair-under-commit-lag",
		Expect:      sim.VerdictLiveness,
		Configure: func(cfg *sim.Config) {
			quietCluster(cfg, 3)
			cfg.Durability = replica.DurabilityMemory
			cfg.Core = []int{1, 2}
			cfg.LivenessWorkload = true
			// The source abdicated by hearing alone: r0 hears r1 and r2
			// while op 21 waits for an ack, and holds on until it crashes.
			// Abdication over stalled replication would hand the view on
			// with op 21 still on r0, and the hollow head never forms.
			cfg.Protocol.AbdicateByHearing = true
			// Nor did it take a Prepare of an op it held hollow as its
			// repair: every retransmit of op 21 failed the gap check (D83).
			cfg.Protocol.PrepareRepairOff = true
		},
		NewScript: func() sim.Script {
			return newScript(
				step{do: do(
					note("hollow-op: op 21 reaches r1 only; r2 repairs nothing in view 0"),
					dropIf(func(c *sim.Cluster, s *script, from, to int, m *vsr.Message) bool {
						switch {
						case m.Command == vsr.CmdRepairPrepare && to == 2:
							// r2 keeps its commit lag until it adopts view 1.
							return !inView(c, 2, 1)
						case m.View != 0:
							return false
						case m.Command == vsr.CmdPrepare && to == 2 && m.Prepare().Header.Op >= hollowOp:
							return true
						case m.Command == vsr.CmdPrepareOK && from == 1 && m.PrepareOk().Op >= hollowOp:
							return true
						}
						return false
					}),
				)},
				step{when: committed(0, 8), do: crash(2)},
				step{when: afterTicks(1), do: restart(2)},
				step{when: all(journaled(1, hollowOp), status(2, vsr.StatusNormal)), do: do(note("hollow-op: r0 crashes before op 21 commits"), crash(0))},
			)
		},
	})
}
