package scenarios

import (
	"fmt"

	"vsrsim/replica"
	"vsrsim/sim"
)

// transfer-rewind (failure-shapes.md 2): a lagging backup adopts a view head H
// while it pulls a state transfer pinned at T < H. With the defect the install
// rewinds its sequencer to T but keeps the view's headers, so its next
// DoViewChange says op T with a suffix that starts at H: its peers, and the
// backup itself as primary-elect, drop the vote as unreadable, and a view
// change that needs it never completes.
//
// Script, with r0 the view-0 primary, r1 the view-1 primary, r2 the backup B
// (64 journal slots):
//  1. r2 misses prepares and repairs while r0 and r1 commit 300 ops.
//  2. r2 heals; its repair hits RangeEvicted and it pins an offer from r0 at
//     T. r0's packets to r2 now take 300 extra ticks, so the chunks take long.
//  3. Once r0 committed T+gap, r1's acks stop (ops pile up uncommitted) and
//     r0 and r1 are cut apart: r1 and r2 elect view 1 and r2 adopts its head
//     H > T+gap with uncommitted ops on top.
//  4. r2 installs the transfer at T; r1 crashes at that moment. r0 and r2
//     must elect view 2, and r2's vote is needed.
//
// transfer-rewind-wide uses a gap over 128 ops, so H - T exceeds the
// DoViewChange window as well.
func init() {
	registerTransferRewind("transfer-rewind", 20,
		"a state transfer rewinds a backup's sequencer below an adopted view head; its votes become unreadable")
	registerTransferRewind("transfer-rewind-wide", 160,
		"transfer-rewind with the adopted head more than 128 ops above the transfer point")
}

func registerTransferRewind(name string, gap uint64, description string) {
	register(Scenario{
		Name:        name,
		Description: description,
		Bug:         "transfer-rewinds-sequencer",
		Expect:      sim.VerdictLiveness,
		Configure: func(cfg *sim.Config) {
			quietCluster(cfg, 3)
			cfg.JournalSlots = 64
			cfg.CheckpointInterval = 16
			cfg.RequestMeanTicks = 2
			cfg.FaultTicks = 8000
			cfg.Core = []int{0, 2}
		},
		NewScript: func() sim.Script {
			const lead = 300
			return newScript(
				step{do: do(
					note(name+": r2 falls behind while r0 and r1 write"),
					dropIf(func(c *sim.Cluster, from, to int, m *replica.Message) bool {
						if to != 2 {
							return false
						}
						switch m.Command {
						case replica.CmdPrepare, replica.CmdRepairPrepare, replica.CmdRangeEvicted, replica.CmdRepairDone:
							info, ok := c.Info(0)
							return ok && info.CommitMin < lead
						}
						return false
					}),
					dropIf(func(c *sim.Cluster, from, to int, m *replica.Message) bool {
						return m.Command == replica.CmdPrepareOK && from == 1 && to == 0 &&
							c.Config().Script.(*script).flags["block-acks"]
					}),
					func(c *sim.Cluster, s *script) {
						c.Watch(func(e *replica.Event) {
							if e.Kind == replica.EvTransferInstall && e.Replica == 2 {
								s.flags["installed"] = true
							}
						})
					},
				)},
				step{when: committed(0, lead), do: do(
					note(name+": r2 heals; r0's packets to r2 slow down"),
					func(c *sim.Cluster, _ *script) { c.Network().SetExtraDelay(0, 2, 300) },
				)},
				step{when: func(c *sim.Cluster, s *script) bool {
					info, ok := c.Info(2)
					if ok && info.TransferOp != 0 {
						s.ops["T"] = info.TransferOp
						return true
					}
					return false
				}, do: func(c *sim.Cluster, s *script) {
					c.Note(fmt.Sprintf("%s: r2 pinned an offer at T=%d", name, s.ops["T"]))
				}},
				step{when: func(c *sim.Cluster, s *script) bool {
					info, ok := c.Info(0)
					return ok && info.CommitMin >= s.ops["T"]+gap
				}, do: do(note(name+": r1's acks stop"), func(_ *sim.Cluster, s *script) { s.flags["block-acks"] = true })},
				step{when: afterTicks(20), do: do(note(name+": r0 and r1 are cut apart"), cut(true, []int{0}, []int{1}))},
				step{when: flag("installed"), do: do(
					note(name+": r2 installed the transfer; r1 crashes"),
					crash(1),
					func(c *sim.Cluster, _ *script) { c.Network().SetExtraDelay(0, 2, 0) },
				)},
			)
		},
	})
}
