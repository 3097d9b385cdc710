package scenarios

import (
	"fmt"

	"vsrsim/sim"
	"vsrsim/vsr"
)

// transfer-rewind (failure-shapes.md 2): a lagging backup adopts a view head H
// and then installs a state transfer pinned at T < H. With the defect the
// install rewinds its sequencer to T but keeps the view's headers, so its next
// DoViewChange says op T with a suffix that starts at H: its peers, and the
// backup itself as primary-elect, drop the vote as unreadable, and a view
// change that needs it never completes.
//
// Script, with r0 the view-0 primary, r1 the view-1 primary, r2 the backup B
// (64 journal slots, so r2 falls past what repair can serve):
//  1. r2 misses prepares and repairs while r0 and r1 commit 300 ops.
//  2. r2 heals; its repair hits RangeEvicted and it asks r0 for a transfer.
//     r0 snapshots its commit point T and offers it; the offer is held back
//     (and r2's further asks with it), so r0 keeps T among its offers.
//  3. Once r0 committed T+gap, r1's acks stop (ops pile up uncommitted) and,
//     once r1 journaled two of them, r0 and r1 are cut apart: r1 and r2 elect
//     view 1 and r2 adopts its head H > T+gap.
//  4. The held offer of T reaches r2, which pulls the chunks from r0 and
//     installs T. r2 hears nothing of views above 1 until then; r1 crashes at
//     the install. r0 and r2 must elect a new view, and r2's vote is needed.
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
			cfg.FaultTicks = 12000
			cfg.Core = []int{0, 2}
			// Step 3 needs r1 to pull r2 into view 1 alone, as in the
			// source; a StartViewChange quorum keeps r2 with r0.
			cfg.Protocol = sourceWithoutLivenessGuards
		},
		NewScript: func() sim.Script {
			const lead = 300
			return newScript(
				step{do: do(
					note(name+": r2 falls behind while r0 and r1 write"),
					dropIf(func(c *sim.Cluster, s *script, from, to int, m *vsr.Message) bool {
						if to != 2 {
							return false
						}
						switch m.Command {
						case vsr.CmdPrepare, vsr.CmdRepairPrepare, vsr.CmdRangeEvicted, vsr.CmdRepairDone:
							info, ok := c.Info(0)
							return ok && info.CommitMin < lead
						}
						return false
					}),
					holdFirstOffer(name),
					dropIf(func(c *sim.Cluster, s *script, from, to int, m *vsr.Message) bool {
						return m.Command == vsr.CmdPrepareOK && from == 1 && to == 0 &&
							s.flags["block-acks"]
					}),
					keepOutOfNewerViews("installed"), // until its post-install vote
					func(c *sim.Cluster, s *script) {
						c.Watch(func(e *vsr.Event) {
							if e.Kind == vsr.EvTransferInstall && e.Replica == 2 && !s.flags["installed"] {
								s.flags["installed"] = true
								// r1 crashes at the install: nothing it sent
								// before, still in flight, reaches r2 after.
								c.Network().SetLinkDown(1, 2, true)
							}
						})
					},
				)},
				step{when: func(c *sim.Cluster, s *script) bool {
					info, ok := c.Info(0)
					return ok && s.ops["T"] != 0 && info.CommitMin >= s.ops["T"]+gap
				}, do: do(note(name+": r1's acks stop"), func(_ *sim.Cluster, s *script) { s.flags["block-acks"] = true })},
				step{when: func(c *sim.Cluster, s *script) bool {
					// Uncommitted ops must sit on r1's head, or the view it
					// leads has H == commit_max and nothing above T to lose.
					info, ok := c.Info(1)
					primary, up := c.Info(0)
					return ok && up && info.Sequencer >= s.ops["T"]+gap+2 && info.Sequencer >= primary.CommitMax+2
				}, do: do(note(name+": r0 and r1 are cut apart"), cut(true, []int{0}, []int{1}))},
				step{when: func(c *sim.Cluster, _ *script) bool { return inView(c, 2, 1) },
					do: func(c *sim.Cluster, s *script) {
						info, _ := c.Info(2)
						c.Note(fmt.Sprintf("%s: r2 adopted view 1 with head %d; the offer of T=%d reaches it", name, info.Sequencer, s.ops["T"]))
						s.flags["offer-released"] = true
						c.Inject(vsr.StateTransferOffer{SnapshotOp: s.ops["T"]}.Message().Routed(0, 2, 0))
					}},
				step{when: flag("installed"), do: do(note(name+": r2 installed the transfer; r1 crashes"), crash(1))},
			)
		},
	})
}

// holdFirstOffer drops every state-transfer offer to r2 until the script sets
// "offer-released", recording the first offer's op as ops["T"], and lets only
// r2's first transfer request through, so r0 keeps offering T rather than
// newer commit points.
func holdFirstOffer(name string) func(*sim.Cluster, *script) {
	return dropIf(func(c *sim.Cluster, s *script, from, to int, m *vsr.Message) bool {
		if s.flags["offer-released"] {
			return false
		}
		switch {
		case m.Command == vsr.CmdStateTransferOffer && to == 2:
			if s.ops["T"] == 0 {
				s.ops["T"] = m.StateTransferOffer().SnapshotOp
				c.Note(fmt.Sprintf("%s: r0 offers T=%d; the offer is held back", name, s.ops["T"]))
			}
			return true
		case m.Command == vsr.CmdRequestStateTransfer && from == 2:
			return s.ops["T"] != 0
		}
		return false
	})
}

// keepOutOfNewerViews drops every StartViewChange, DoViewChange and StartView
// of a view above 1 on its way to r2 until the script sets flag: r2 stays in
// view 1, so the view change that follows must see the vote it casts after.
func keepOutOfNewerViews(flag string) func(*sim.Cluster, *script) {
	return dropIf(func(c *sim.Cluster, s *script, from, to int, m *vsr.Message) bool {
		if to != 2 || m.View < 2 || s.flags[flag] {
			return false
		}
		switch m.Command {
		case vsr.CmdStartViewChange, vsr.CmdDoViewChange, vsr.CmdStartView:
			return true
		}
		return false
	})
}
