package scenarios

import (
	"vsrsim/replica"
	"vsrsim/sim"
)

// stale-dvc-cache (failure-shapes.md 5): a backup caches its DoViewChange
// suffix while it holds op k header-only; repair then lands k's body and the
// backup acks it, but neither its op nor its commit moves, so a cache tagged by
// (op, commit) still says "header, no body". In the next view change that
// stale vote and honest header-only votes form a nack quorum, and the merge
// truncates an op a replication quorum acked and the primary committed.
//
// The shape is played on 5 replicas with WAL journals: the other nacks must
// come from replicas that truly never held k. (On 3 replicas the only other
// voter is the view-0 primary that prepared k; after a restart on a memory
// journal it may have acked k and forgotten, so its vote marks k unsure and
// never nacks it: see docs/decisions.md.)
//
// Script (k = 21). Replication, view-change and nack quorums are all 3.
//  1. r0 (view-0 primary) prepares k; only r1 journals it; r0 crashes.
//  2. r1 leads view 1 with votes from r2 and r3 (r4's vote is held back, so
//     two nacks do not truncate k); r2, r3 and r4 adopt k header-only.
//  3. r0 restarts from its WAL, adopts view 1 and acks k (its body survived).
//  4. A straggling StartViewChange(1) reaches r2, which builds and caches its
//     vote.
//  5. r2's repair of k is let through: it journals and acks k; r1 commits k
//     with acks from r0, r1 and r2, then r1 and r0 crash before anyone else
//     learns the commit.
//  6. r2, r3 and r4 elect view 2 (r2 leads). With the defect r2's own vote is
//     the stale cache: with r3's and r4's honest nacks that is a nack quorum,
//     and the merge truncates k.
func init() {
	const k = 21
	register(Scenario{
		Name:        "stale-dvc-cache",
		Description: "a stale cached DoViewChange suffix nacks an op its sender holds, and the merge truncates a committed op",
		Bug:         "dvc-cache-ignores-journal",
		Expect:      sim.VerdictSafety,
		Configure: func(cfg *sim.Config) {
			quietCluster(cfg, 5)
			cfg.FaultTicks = 5000
			cfg.Core = []int{2, 3, 4}
		},
		NewScript: func() sim.Script {
			return newScript(
				step{do: do(
					note("stale-dvc-cache: op 21 reaches r1 only"),
					dropIf(func(c *sim.Cluster, s *script, from, to int, m *replica.Message) bool {
						if c.Now() > c.Config().FaultTicks || to == 1 {
							return false
						}
						released := s.flags["release"]
						switch m.Command {
						case replica.CmdPrepare:
							return m.Header.Op >= k || m.Header.Commit >= k
						case replica.CmdPrepareOK:
							return m.View == 0 && m.Header.Op >= k
						case replica.CmdRepairPrepare:
							return m.Header.Op == k && (to != 2 || !released)
						case replica.CmdCommit:
							return m.Commit >= k // nobody but r1 learns that k committed
						case replica.CmdDoViewChange:
							return false
						}
						return false
					}),
					dropIf(func(c *sim.Cluster, s *script, from, to int, m *replica.Message) bool {
						// r1 merges view 1 from r2's and r3's votes: k keeps two nacks.
						return m.Command == replica.CmdDoViewChange && m.View == 1 && from == 4
					}),
					func(c *sim.Cluster, s *script) {
						c.Watch(func(e *replica.Event) {
							if e.Kind == replica.EvPrimaryCommit && e.Replica == 1 && e.Op >= k {
								s.flags["k-committed"] = true
							}
						})
					},
				)},
				step{when: all(journaled(1, k), committed(2, k-1), committed(3, k-1), committed(4, k-1)),
					do: do(note("stale-dvc-cache: r0 crashes"), crash(0))},
				step{when: func(c *sim.Cluster, _ *script) bool {
					return inView(c, 1, 1) && inView(c, 2, 1) && inView(c, 3, 1) && inView(c, 4, 1)
				}, do: do(note("stale-dvc-cache: r0 restarts from its WAL"), restart(0))},
				step{when: func(c *sim.Cluster, _ *script) bool { return inView(c, 0, 1) },
					do: do(note("stale-dvc-cache: a straggling StartViewChange(1) reaches r2"), func(c *sim.Cluster, _ *script) {
						c.Inject(replica.Message{Command: replica.CmdStartViewChange, From: 1, To: 2, View: 1})
					})},
				step{when: afterTicks(20), do: do(note("stale-dvc-cache: r2 may repair op 21"), func(_ *sim.Cluster, s *script) {
					s.flags["release"] = true
				})},
				step{when: flag("k-committed"), do: do(note("stale-dvc-cache: r1 and r0 crash right after r1 commits op 21"), crash(1), crash(0))},
			)
		},
	})
}
