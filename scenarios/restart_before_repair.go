package scenarios

import (
	"fmt"

	"vsrsim/sim"
	"vsrsim/vsr"
)

// restart-before-repair (failure-shapes.md 6): a backup adopts a view head H,
// installs a state transfer pinned at T < H (the fixed install keeps the
// head), acks the view's next ops on top of H, and restarts from its
// write-ahead journal before repair fetched T+1..H. Its journal chains from
// the checkpoint T only; with the defect the restart takes that prefix for the
// adopted view and its next vote says log_view 1, op T. That vote has the
// highest log_view of the view change that follows, so the merge ends the log
// at the commit point H and cuts the ops above it, which the backup itself
// helped commit.
//
// Script, with r0 the view-0 primary, r1 the view-1 primary, r2 the backup B
// (64 journal slots, so r2 falls past what repair can serve):
//  1. r2 misses prepares and repairs while r0 and r1 commit the lead; its
//     repair then hits RangeEvicted and it asks r0 for a transfer. r0 offers
//     its commit point T; the offer is held back.
//  2. Once r0 committed T+gap, at a moment when r1 knows every op r0
//     prepared is committed, r0 and r1 are cut apart: r1 and r2 elect view 1
//     with head H == commit H, so the view carries no uncommitted op.
//  3. The held offer of T reaches r2, which installs it. Repair replies to r2
//     are dropped from the offer on, so T+1..H stay missing; r2 journals and acks
//     the view's new ops H+1.. (they chain to the adopted head) and r1
//     commits them with r2's acks.
//  4. Once r1 committed H+2, r1 and r2 crash; r2 restarts from its WAL. r0
//     (log_view 0, head at least H, commit H) and r2 must elect a new view.
//     r2 hears nothing of views above 1 until its restart.
func init() {
	register(Scenario{
		Name:        "restart-before-repair",
		Description: "a backup restarts after a transfer below its adopted head and before repair; its vote cuts committed ops",
		Bug:         "restart-skips-adopted-head",
		Expect:      sim.VerdictSafety,
		Configure: func(cfg *sim.Config) {
			quietCluster(cfg, 3)
			cfg.JournalSlots = 64
			cfg.CheckpointInterval = 16
			cfg.FaultTicks = 12000
			cfg.Core = []int{0, 2}
			// As in transfer-rewind, r1 must pull r2 into view 1 alone while
			// r0 still heartbeats it.
			cfg.Protocol = sourceWithoutLivenessGuards
		},
		NewScript: newRestartBeforeRepair,
	})
}

const (
	restartLead = 150
	restartGap  = 8
	restartAcks = 2 // ops r1 commits on r2's acks above the adopted head
)

func newRestartBeforeRepair() sim.Script {
	const name = "restart-before-repair"
	return newScript(
		step{do: do(
			note(name+": r2 falls behind while r0 and r1 write"),
			dropIf(restartStarvesR2),
			holdFirstOffer(name),
			keepOutOfNewerViews("restarted"), // until its post-restart vote
			func(c *sim.Cluster, s *script) {
				c.Watch(func(e *vsr.Event) {
					if e.Kind == vsr.EvTransferInstall && e.Replica == 2 && !s.flags["installed"] {
						s.flags["installed"] = true
					}
				})
			},
		)},
		step{when: restartReadyToCut, do: do(note(name+": r0 and r1 are cut apart"), cut(true, []int{0}, []int{1}))},
		step{when: func(c *sim.Cluster, _ *script) bool { return inView(c, 2, 1) }, do: restartReleaseOffer},
		step{when: flag("installed"), do: note(name + ": r2 installed the transfer; repair has fetched nothing above it")},
		step{when: func(c *sim.Cluster, s *script) bool {
			info, ok := c.Info(1)
			return ok && info.CommitMin >= s.ops["H"]+restartAcks
		}, do: do(note(name+": r1 committed ops above the adopted head on r2's acks; r1 and r2 crash"), crash(1), crash(2))},
		step{when: afterTicks(20), do: do(note(name+": r2 restarts from its journal"), restart(2),
			func(_ *sim.Cluster, s *script) { s.flags["restarted"] = true })},
	)
}

// restartStarvesR2 drops the prepares and repairs that would reach r2 while
// r0 commits the lead (step 1), and, once r0 offered its transfer, every
// repair until r2 restarts (step 3).
func restartStarvesR2(c *sim.Cluster, s *script, _, to int, m *vsr.Message) bool {
	if to != 2 {
		return false
	}
	switch m.Command {
	case vsr.CmdPrepare, vsr.CmdRepairPrepare, vsr.CmdRangeEvicted, vsr.CmdRepairDone:
		if s.ops["T"] != 0 && !s.flags["restarted"] && m.Command != vsr.CmdPrepare {
			return true // repair never fetches T+1..H before the restart
		}
		info, ok := c.Info(0)
		return ok && info.CommitMin < restartLead
	}
	return false
}

// restartReadyToCut holds once r0 committed T+gap and r1 knows every op r0
// prepared is committed (step 2).
func restartReadyToCut(c *sim.Cluster, s *script) bool {
	// The cut waits for r1 to know every op r0 prepared committed:
	// view 1 then starts with nothing uncommitted, and r2 can ack its
	// new ops without the bodies below.
	p, ok0 := c.Info(0)
	b, ok1 := c.Info(1)
	return ok0 && ok1 && s.ops["T"] != 0 && p.CommitMin >= s.ops["T"]+restartGap &&
		p.Sequencer == p.CommitMax && b.Sequencer == p.Sequencer && b.CommitMax == p.Sequencer
}

// restartReleaseOffer records r2's adopted head H and lets the held offer of
// T reach it (step 3).
func restartReleaseOffer(c *sim.Cluster, s *script) {
	info, _ := c.Info(2)
	s.ops["H"] = info.Sequencer
	c.Note(fmt.Sprintf("restart-before-repair: r2 adopted view 1 with head %d commit %d; the offer of T=%d reaches it",
		info.Sequencer, info.CommitMax, s.ops["T"]))
	s.flags["offer-released"] = true
	c.Inject(vsr.StateTransferOffer{SnapshotOp: s.ops["T"]}.Message().Routed(0, 2, 0))
}
