package scenarios

import (
	"vsrsim/sim"
	"vsrsim/vsr"
)

// stale-offer (failure-shapes.md 3): a backup that fell past the evicted ring
// pulls a state-transfer offer while writes continue; by the time its chunks are
// in, repair and heartbeats have moved it past the offer, and a guard that
// protects everything up to commit_max refuses every offer.
//
// Script, with r2 the backup B (64 journal slots, so 128 ops retained):
//  1. r2 stops receiving prepares and repairs (heartbeats still reach it, so
//     it stays in view 0) while r0 and r1 commit 300 ops at full speed.
//  2. Then r2 is healed and writes slow to about one request per second.
//  3. r2's repair hits RangeEvicted, it requests a transfer, the offer is
//     pinned at the primary's commit point, and its four chunks take four retry
//     intervals. With the defect every offer is refused as stale.
func init() {
	register(Scenario{
		Name:        "stale-offer",
		Description: "under steady writes a lagging backup refuses every state-transfer offer as stale",
		Bug:         "stale-guard-uses-commit-max",
		Expect:      sim.VerdictLiveness,
		Configure: func(cfg *sim.Config) {
			quietCluster(cfg, 3)
			cfg.JournalSlots = 64
			cfg.CheckpointInterval = 16
			cfg.RequestMeanTicks = 2
			cfg.Clients = 1
			cfg.FaultTicks = 6000
			cfg.LivenessWorkload = true
			// The source's install, guard and one-chunk pull (the shape
			// lives in them: with every chunk sent at once, D114, the
			// install beats the defect's guard).
			cfg.Protocol.SourceTransfer = true
		},
		NewScript: func() sim.Script {
			return newScript(
				step{do: do(
					note("stale-offer: r2 falls behind while r0 and r1 write"),
					dropIf(func(c *sim.Cluster, s *script, from, to int, m *vsr.Message) bool {
						if to != 2 || c.Now() == 0 {
							return false
						}
						switch m.Command {
						case vsr.CmdPrepare, vsr.CmdRepairPrepare, vsr.CmdRangeEvicted, vsr.CmdRepairDone:
							info, ok := c.Info(0)
							return ok && info.CommitMin < staleOfferLead
						}
						return false
					}),
				)},
				step{when: committed(0, staleOfferLead), do: do(
					note("stale-offer: r2 heals; writes slow to one per second"),
					func(c *sim.Cluster, _ *script) { c.SetThinkTicks(staleOfferThinkTicks, true) },
				)},
			)
		},
	})
}

// staleOfferLead is how far the others write before r2 heals: well past the 128
// ops a 64-slot journal and its evicted ring retain.
const staleOfferLead = 300

// staleOfferThinkTicks makes the one client write about once per simulated
// second once r2 heals.
const staleOfferThinkTicks = 100
