package scenarios

import (
	"fmt"

	"vsrsim/sim"
	"vsrsim/vsr"
)

// stale-repair-read: a replica serves a repair from its disk, and its disk
// still holds an older op at that op number, because the writes that
// replaced it were lost. With r0 the view-0 primary:
//  1. After a lead every replica journals, r0 prepares op O (and any after
//     it) and nobody else hears of it; r0 crashes with O on its disk.
//  2. r1 and r2 elect view 1 and commit another op, O', at O.
//  3. r0's disk is armed to lose its next two writes of O's prepare copy, and
//     r0 restarts: adopting view 1 it takes O out (a blank) and repairs O'
//     (its write), both lost. Its prepare copy still holds O of view 0; its
//     header ring's copy holds O'. r0 applies O'.
//  4. r2 crashes, its disk damages both copies of O', and it restarts cut off
//     from r1: only r0 can serve it O.
//
// A correct r0 reads O's prepare copy, finds another entry than its journal
// names, reads the header ring's copy and serves O'. With the defect it
// serves the stale O with its commit point, r2 takes it for the committed
// op and applies it: an agreement failure.
func init() {
	register(Scenario{
		Name:        "stale-repair-read",
		Description: "a replica's disk lost the writes that replaced an op; serving a repair from it, the replica must not send the stale copy as the committed op",
		Bug:         "repair-serves-unread",
		Expect:      sim.VerdictSafety,
		Configure:   storageCluster,
		NewScript:   newStaleRepairRead,
	})
}

func newStaleRepairRead() sim.Script {
	const name = "stale-repair-read"
	return newScript(
		step{do: dropIf(staleReadFilter)},
		step{when: storageLeadDone, do: func(c *sim.Cluster, s *script) {
			p, _ := c.Info(0)
			s.ops["O"] = p.Sequencer + 1
			s.flags["hide"] = true
			c.Note(fmt.Sprintf("%s: r0 prepares op %d alone", name, s.ops["O"]))
		}},
		// O's parent must reach r1 and r2 (view 1 keeps it): a prepare
		// below O may still wait for r0's disk when O is journaled.
		step{when: func(c *sim.Cluster, s *script) bool {
			return c.Journaled(0, s.ops["O"]) && c.Journaled(1, s.ops["O"]-1) && c.Journaled(2, s.ops["O"]-1)
		}},
		// Long enough for r0's write of O to land.
		step{when: afterTicks(30), do: do(note(name+": r0 crashes; r1 and r2 elect view 1"), crash(0),
			func(_ *sim.Cluster, s *script) { s.flags["hide"] = false })},
		step{when: func(c *sim.Cluster, s *script) bool {
			return committedOn(c, 1, s.ops["O"]+2) && committedOn(c, 2, s.ops["O"]+2)
		}, do: func(c *sim.Cluster, s *script) {
			c.Note(fmt.Sprintf("%s: view 1 committed op %d; r0's disk will lose its next two writes of it; r0 restarts", name, s.ops["O"]))
			s.flags["replaced"] = true
			mustStorage(c, c.LoseEntry(0, s.ops["O"], 2))
			restart(0)(c, s)
		}},
		step{when: func(c *sim.Cluster, s *script) bool { return appliedOn(c, 0, s.ops["O"]+2) },
			do: func(c *sim.Cluster, s *script) {
				p, _ := c.Info(1)
				s.ops["P"] = p.Sequencer + 1
			}},
		// r2 acks an op prepared after it knew O committed: a commit point
		// alone writes no superblock (D58), and the superblock of that ack
		// carries it, so r2 comes back knowing O committed.
		step{when: func(c *sim.Cluster, s *script) bool { return c.Journaled(2, s.ops["P"]) }},
		// Long enough for r0's writes of O, lost, to report done, and r2's
		// superblock to land.
		step{when: afterTicks(60), do: func(c *sim.Cluster, s *script) {
			c.Note(fmt.Sprintf("%s: r2 crashes; its disk damages op %d; it restarts reaching r0 alone", name, s.ops["O"]))
			c.Crash(2)
			mustStorage(c, c.CorruptEntry(2, s.ops["O"], sim.EntryBoth))
			cut(true, []int{2}, []int{1})(c, s)
			restart(2)(c, s)
		}},
		step{when: afterTicks(3000), do: do(note(name+": r2 reaches r1 again"), cut(false, []int{2}, []int{1}))},
	)
}

// staleReadFilter keeps r0's prepares from op O on from its backups while
// the script hides them (the ops below O go through: view 1 keeps them, so
// O's parent is view 1's too), and the requests of O's client from r1 and
// r2 until view 1 committed past O: view 1 puts another client's op at O (a
// retry of O's own request would be the very same entry).
func staleReadFilter(_ *sim.Cluster, s *script, from, to int, m *vsr.Message) bool {
	if s.flags["hide"] && from == 0 && m.Command == vsr.CmdPrepare && m.Prepare().Header.Op >= s.ops["O"] {
		if m.Prepare().Header.Op == s.ops["O"] {
			s.ops["client"] = m.Prepare().Header.Client
		}
		return true
	}
	return s.ops["client"] != 0 && !s.flags["replaced"] && m.Command == vsr.CmdRequest &&
		m.Request().Client == s.ops["client"] && (to == 1 || to == 2)
}

func committedOn(c *sim.Cluster, i int, op uint64) bool {
	info, ok := c.Info(i)
	return ok && info.Status == vsr.StatusNormal && info.CommitMin >= op
}

func appliedOn(c *sim.Cluster, i int, op uint64) bool {
	info, ok := c.Info(i)
	return ok && info.CommitMin >= op
}
