package scenarios

import (
	"fmt"

	"vsrsim/sim"
	"vsrsim/vsr"
)

// stale-dvc-cache (failure-shapes.md 5), on 3 WAL replicas as in the source:
// two backups adopt a StartView header-only for op k and cache that suffix on
// a straggling StartViewChange; repair then lands k and both journal and ack
// it, but neither their op nor their commit moves, so a cache tagged by (op,
// commit) still says "header, no body". In the next view change their two
// stale votes are a nack quorum at n=3 (derived nacks: header held, no body,
// above the voter's commit), and the merge truncates k, which both acked and
// the primary committed.
//
// Script (k = 21; replication, view-change and nack quorums all 2):
//  1. r0 (view-0 primary) prepares k; its prepares of k and above reach no
//     one, and then r0 goes silent (no heartbeats).
//  2. r1 and r2 start a view change and r0 joins it; only a view r0 leads may
//     complete, so it merges with its own vote (k present) and one other
//     (one nack) and keeps k. r1 and r2 adopt k header-only; their repair of
//     k is held back.
//  3. A straggling StartViewChange of that view reaches r1 and r2: each builds
//     and caches its vote (k: header, no body).
//  4. Their repair of k is let through: both journal and ack k, and r0
//     commits it. Its replies from k on are lost, and nobody else learns the
//     commit: r0 crashes right after.
//  5. r1 and r2 elect the next view. With the defect both votes are the stale
//     cache.
func init() {
	register(Scenario{
		Name:        "stale-dvc-cache",
		Description: "stale cached DoViewChange suffixes nack an op their senders hold, and the merge truncates a committed op",
		Bug:         "dvc-cache-ignores-journal",
		Expect:      sim.VerdictSafety,
		Configure: func(cfg *sim.Config) {
			quietCluster(cfg, 3)
			cfg.FaultTicks = 6000
			cfg.Core = []int{1, 2}
		},
		NewScript: staleDVCCacheScript,
	})
}

// staleDVCOp is the op the merge truncates.
const staleDVCOp = 21

func staleDVCCacheScript() sim.Script {
	const k = staleDVCOp
	return newScript(
		step{do: do(
			note(fmt.Sprintf("stale-dvc-cache: op %d reaches r0 only", k)),
			dropIf(staleDVCKeepsOpOnR0),
			dropIf(staleDVCHoldsViewChange),
			func(c *sim.Cluster, s *script) {
				c.Watch(func(e *vsr.Event) {
					if e.Kind == vsr.EvPrimaryCommit && e.Replica == 0 && e.Op == k {
						s.flags["k-committed"] = true
					}
				})
			},
		)},
		step{when: all(journaled(0, k), committed(1, k-1), committed(2, k-1)),
			do: do(note("stale-dvc-cache: r0 goes silent"), func(_ *sim.Cluster, s *script) { s.flags["silent"] = true })},
		step{when: staleDVCR0Leads, do: staleDVCStraggle},
		step{when: afterTicks(20), do: do(note(fmt.Sprintf("stale-dvc-cache: r1 and r2 may repair op %d", k)), func(_ *sim.Cluster, s *script) {
			s.flags["release"] = true
		})},
		step{when: all(flag("k-committed"), journaled(1, k), journaled(2, k)),
			do: do(note(fmt.Sprintf("stale-dvc-cache: r0 crashes right after it commits op %d (its reply is lost)", k)), crash(0))},
	)
}

// staleDVCKeepsOpOnR0 drops what r0 sends during the fault phase that would
// let another node learn op k, or its commit, before the script allows it
// (steps 1, 2 and 4).
func staleDVCKeepsOpOnR0(c *sim.Cluster, s *script, from, _ int, m *vsr.Message) bool {
	const k = staleDVCOp
	if c.Now() > c.Config().FaultTicks || from != 0 {
		return false
	}
	switch m.Command {
	case vsr.CmdPrepare:
		return m.Prepare().Header.Op >= k
	case vsr.CmdCommit:
		// Nobody else learns that k committed; and once r0 is
		// silent its view-0 heartbeats stop.
		return m.Commit().Commit >= k || (m.View == 0 && s.flags["silent"])
	case vsr.CmdRepairPrepare:
		return m.RepairPrepare().Header.Op == k && !s.flags["release"]
	case vsr.CmdReply:
		// No client learns that k (or anything after it)
		// committed: the ack quorum alone must convict.
		return m.Reply().Op >= k
	}
	return false
}

// staleDVCHoldsViewChange drops every DoViewChange but those for a view r0
// leads, until r0 leads one (step 2).
func staleDVCHoldsViewChange(c *sim.Cluster, s *script, _, _ int, m *vsr.Message) bool {
	// Until r0 leads a view, no other view change completes.
	return m.Command == vsr.CmdDoViewChange && !s.flags["settled"] &&
		(m.View == 0 || vsr.PrimaryOf(m.View, c.Config().Replicas) != 0)
}

// staleDVCR0Leads holds once r0 is the Normal primary of a view after 0 and
// r1 and r2 are in it.
func staleDVCR0Leads(c *sim.Cluster, _ *script) bool {
	p, ok := c.Info(0)
	return ok && p.Primary && p.View > 0 && p.Status == vsr.StatusNormal &&
		inView(c, 1, p.View) && inView(c, 2, p.View)
}

// staleDVCStraggle delivers a late StartViewChange of r0's view to r1 and r2,
// so that each builds and caches its vote (step 3).
func staleDVCStraggle(c *sim.Cluster, s *script) {
	s.flags["settled"] = true
	p, _ := c.Info(0)
	s.ops["view"] = p.View
	c.Note(fmt.Sprintf("stale-dvc-cache: r0 leads view %d with op %d uncommitted; a straggling StartViewChange(%d) reaches r1 and r2", p.View, staleDVCOp, p.View))
	c.Inject(vsr.StartViewChange{}.Message().Routed(2, 1, p.View))
	c.Inject(vsr.StartViewChange{}.Message().Routed(1, 2, p.View))
}
