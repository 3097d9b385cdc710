package scenarios

import (
	"vsrsim/replica"
	"vsrsim/sim"
)

// stale-dvc-cache (failure-shapes.md 5): a backup caches its DoViewChange
// suffix while it holds op k header-only; repair then lands k's body and the
// backup acks it, but neither its op nor its commit moves, so a cache tagged by
// (op, commit) still says "header, no body". In the next view change that
// stale vote and another header-only vote form a nack quorum, and the merge
// truncates an op a replication quorum acked.
//
// Script (k = 21), with r0 the view-0 primary, r1 the view-1 primary P, r2 the
// backup B and r0 again, after its restart, the other voter C:
//  1. Op k reaches r1 only and is not committed in view 0; r0 crashes.
//  2. r1 and r2 elect view 1; r2 adopts StartView(op k) header-only.
//  3. r0 restarts with an empty journal and adopts view 1, also header-only
//     for k (its repair of k is held back).
//  4. A straggling copy of r1's StartViewChange(1) reaches r2, which builds
//     and caches its vote.
//  5. r2's repair of k is let through: it journals and acks k; r1 commits k
//     and crashes before anyone else learns the commit.
//  6. r0 and r2 elect view 2 (r2 leads). With the defect r2's vote is the
//     stale cache: two derived nacks truncate k.
func init() {
	const k = 21
	register(Scenario{
		Name:        "stale-dvc-cache",
		Description: "a stale cached DoViewChange suffix nacks an op its sender holds, and the merge truncates a committed op",
		Bug:         "dvc-cache-ignores-journal",
		Expect:      sim.VerdictSafety,
		Configure: func(cfg *sim.Config) {
			quietCluster(cfg, 3)
			cfg.Durability = replica.DurabilityMemory
			cfg.FaultTicks = 5000
			cfg.Core = []int{0, 2}
		},
		NewScript: func() sim.Script {
			return newScript(
				step{do: do(
					note("stale-dvc-cache: op 21 reaches r1 only"),
					dropIf(func(c *sim.Cluster, from, to int, m *replica.Message) bool {
						if c.Now() > c.Config().FaultTicks || (to != 0 && to != 2) {
							return false
						}
						released := c.Config().Script.(*script).flags["release"]
						switch m.Command {
						case replica.CmdPrepare:
							if to == 2 && m.Header.Op >= k {
								return true // r2 learns k only by repair; its head stays k
							}
							return m.View >= 1 && m.Header.Op == k || m.Header.Commit >= k
						case replica.CmdPrepareOK:
							return false
						case replica.CmdRepairPrepare:
							return m.Header.Op == k && (to == 0 || !released)
						case replica.CmdCommit:
							return m.Commit >= k // nobody but r1 learns that k committed
						}
						return false
					}),
					dropIf(func(c *sim.Cluster, from, to int, m *replica.Message) bool {
						return m.Command == replica.CmdPrepareOK && from == 1 && m.View == 0 && m.Header.Op >= k
					}),
					func(c *sim.Cluster, s *script) {
						c.Watch(func(e *replica.Event) {
							if e.Kind == replica.EvPrimaryCommit && e.Replica == 1 && e.Op >= k {
								s.flags["k-committed"] = true
							}
						})
					},
				)},
				step{when: all(journaled(1, k), committed(2, k-1)), do: do(note("stale-dvc-cache: r0 crashes"), crash(0))},
				step{when: func(c *sim.Cluster, _ *script) bool { return inView(c, 1, 1) && inView(c, 2, 1) },
					do: do(note("stale-dvc-cache: r0 restarts empty"), restart(0))},
				step{when: func(c *sim.Cluster, _ *script) bool { return inView(c, 0, 1) },
					do: do(note("stale-dvc-cache: a straggling StartViewChange(1) reaches r2"), func(c *sim.Cluster, _ *script) {
						c.Inject(replica.Message{Command: replica.CmdStartViewChange, From: 1, To: 2, View: 1})
					})},
				step{when: afterTicks(20), do: do(note("stale-dvc-cache: r2 may repair op 21"), func(_ *sim.Cluster, s *script) {
					s.flags["release"] = true
				})},
				step{when: flag("k-committed"), do: do(note("stale-dvc-cache: r1 crashes right after committing op 21"), crash(1))},
			)
		},
	})
}
