package scenarios

import (
	"fmt"

	"vsrsim/prng"
	"vsrsim/sim"
	"vsrsim/vsr"
)

// The storage failure shapes (docs/storage.md, failure-shapes of the FAST'17
// and FAST'18 studies): a replica's disk damages or misplaces one entry, the
// replica restarts, and what it makes of the damage decides whether the
// cluster keeps an op it committed.
//
// Three of them share one script, with r0 the view-0 primary, r1 its backup
// and r2 a backup cut off from both before the ops M and N:
//  1. r0 commits a lead every replica journals; then r2 is cut off, and r1
//     alone acks M and N (r1's ack of M is held back until N is journaled,
//     so N's prepare states a commit point below M).
//  2. r0 commits M and N. Unless the shape needs r1 to know it, r1 never
//     hears the commit: for r1, M and N are acked and uncommitted.
//  3. r0 crashes; r1's disk damages the entry (a scripted corruption, or a
//     misdirected write armed in step 1), r1 crashes and restarts from its
//     disk.
//  4. r2 is healed: r1 and r2 must elect a view without r0, which comes back
//     4000 ticks later.
// A correct r1 holds the damaged op unsure, so the view change waits for r0;
// with the defect r1 votes it absent (or forgets it), the two votes cut ops
// r0 committed, and the new view commits other ops in their place.

const storageLead = 30

// storageCluster is a quiet three-replica cluster on disks without random
// faults: the script's damage is the only damage. Its scrubber is off: a
// shape is a schedule of a fault and what meets it (a restart, a repair),
// and the scrubber, a schedule of its own, would mend the planted fault
// first; the swarm meets each defect with the scrubber on
// (docs/detection.md).
func storageCluster(cfg *sim.Config) {
	quietCluster(cfg, 3)
	cfg.Storage = sim.Storage{On: true, LatencyMinTicks: 1, LatencyMeanTicks: 2, ScrubOff: true}
	cfg.FaultTicks = 9000
	cfg.LivenessTicks = 16000
}

// storageShapes are the three shapes of the shared script: each damages
// r1's copy its own way (nil: the misdirect armed in step 1) and says
// whether r1 hears the commit of M and N.
var storageShapes = []struct {
	name, bug, description string
	knowsCommit            bool
	damage                 func(c *sim.Cluster, s *script) error
}{
	{"corrupt-committed-entry", "truncate-on-corrupt",
		"a backup's disk damages an op it knows committed; restarted, it must repair it, not truncate there",
		true, func(c *sim.Cluster, s *script) error { return c.CorruptEntry(1, s.ops["M"], sim.EntryBoth) }},
	{"corrupt-uncommitted-vote", "corrupt-slot-nacks",
		"a backup's disk damages an op it acked but never saw commit; restarted, it must not vote it absent",
		false, func(c *sim.Cluster, s *script) error { return c.CorruptEntry(1, s.ops["N"], sim.EntryBoth) }},
	{"misdirected-write", "checksum-ignores-slot",
		"a backup's disk lands op N's prepare on op M's slot; restarted, it must catch the foreign record, not apply it as M",
		true, nil},
}

func init() {
	for _, sh := range storageShapes {
		register(Scenario{
			Name:        sh.name,
			Description: sh.description,
			Bug:         sh.bug,
			Expect:      sim.VerdictSafety,
			Configure:   storageCluster,
			NewScript:   func() sim.Script { return newStorageShape(sh.name, sh.knowsCommit, sh.damage) },
		})
	}
}

// newStorageShape is the shared script. knowsCommit lets r1 hear that M and N
// committed; damage, run once r0 committed N, injects the fault (nil: the
// misdirected write armed in step 1 already did).
func newStorageShape(name string, knowsCommit bool, damage func(c *sim.Cluster, s *script) error) sim.Script {
	return newScript(
		step{do: do(note(name+": every replica journals the lead"), dropIf(storageFilter))},
		step{when: storageLeadDone, do: func(c *sim.Cluster, s *script) {
			p, _ := c.Info(0)
			s.ops["M"], s.ops["N"] = p.Sequencer+1, p.Sequencer+2
			c.Note(fmt.Sprintf("%s: r2 is cut off; r1 alone acks ops %d and %d", name, s.ops["M"], s.ops["N"]))
			cut(true, []int{2}, []int{0, 1})(c, s)
			if damage == nil {
				mustStorage(c, c.MisdirectEntry(1, s.ops["N"], s.ops["M"]))
			}
		}},
		step{when: func(c *sim.Cluster, s *script) bool { return c.Journaled(1, s.ops["N"]) }, do: func(c *sim.Cluster, s *script) {
			c.SetWorkload(false)
			s.flags["hush"] = !knowsCommit
		}},
		step{when: func(c *sim.Cluster, s *script) bool {
			return committedTo(c, 0, s.ops["N"]) && (!knowsCommit || committedTo(c, 1, s.ops["N"]))
		}, do: func(c *sim.Cluster, s *script) {
			p, _ := c.Info(0)
			s.ops["P"] = p.Sequencer + 1
			c.SetWorkload(knowsCommit)
		}},
		// A commit point alone writes no superblock (D58): where r1 must
		// know M and N committed, it acks one more op prepared after it
		// learned so, whose superblock carries the commit point.
		step{when: func(c *sim.Cluster, s *script) bool { return !knowsCommit || c.Journaled(1, s.ops["P"]) },
			do: func(c *sim.Cluster, _ *script) { c.SetWorkload(false) }},
		// Long enough for r1's superblock, which records what it knows, to land.
		step{when: afterTicks(60),
			do: func(c *sim.Cluster, s *script) {
				c.Note(name + ": r0 committed both and crashes; r1's disk damages its copy, r1 crashes")
				if damage != nil {
					mustStorage(c, damage(c, s))
				}
				c.Crash(0)
				c.Crash(1)
			}},
		step{when: afterTicks(20), do: do(note(name+": r1 restarts from its disk; r1 and r2 must elect a view"), restart(1),
			cut(false, []int{2}, []int{0, 1}), func(c *sim.Cluster, _ *script) { c.SetWorkload(true) })},
		step{when: afterTicks(4000), do: do(note(name+": r0 restarts"), restart(0))},
	)
}

// storageFilter keeps r1's ack of M from r0 until r1 journaled N, and, once
// the script hushes it, every commit point r0 would tell r1.
func storageFilter(c *sim.Cluster, s *script, from, to int, m *vsr.Message) bool {
	switch {
	case m.Command == vsr.CmdPrepareOK && from == 1 && to == 0 && s.ops["M"] != 0:
		return m.PrepareOk().Op >= s.ops["M"] && !c.Journaled(1, s.ops["N"])
	case m.Command == vsr.CmdCommit && from == 0 && to == 1:
		return s.flags["hush"]
	}
	return false
}

// storageLeadDone holds once every replica journaled and r0 committed the lead.
func storageLeadDone(c *sim.Cluster, _ *script) bool {
	for i := 0; i < 3; i++ {
		info, ok := c.Info(i)
		if !ok || info.CommitMin < storageLead {
			return false
		}
	}
	return true
}

func committedTo(c *sim.Cluster, i int, op uint64) bool {
	info, ok := c.Info(i)
	return ok && info.CommitMax >= op
}

// mustStorage ends the run on a storage action the cluster refused: a script
// bug, not a finding.
func mustStorage(_ *sim.Cluster, err error) {
	if err != nil {
		panic(err)
	}
}

// torn-superblock: r2 leaves view 0 for view 1 while r0 is cut off, and
// crashes before the superblock that records view 1 lands; every copy in
// flight is torn. A correct r2 sent nothing in view 1 before the write
// landed, so coming back in view 0 breaks no promise. With the defect its
// StartViewChange for view 1 left at once, and it comes back below a view it
// voted in.
func init() {
	register(Scenario{
		Name:        "torn-superblock",
		Description: "a replica crashes while its superblock write of a new view is in flight; it must not have voted in that view",
		Bug:         "superblock-trusts-torn",
		Expect:      sim.VerdictSafety,
		Configure: func(cfg *sim.Config) {
			storageCluster(cfg)
			cfg.Storage.LatencyMinTicks = 40
			cfg.Storage.Torn = prng.Ratio{Num: 1, Den: 1}
		},
		NewScript: newTornSuperblock,
	})
}

func newTornSuperblock() sim.Script {
	const name = "torn-superblock"
	return newScript(
		step{when: storageLeadDone, do: do(note(name+": r0 is cut off; r1 and r2 leave view 0"), cut(true, []int{0}, []int{1, 2}),
			func(c *sim.Cluster, s *script) {
				c.Watch(func(e *vsr.Event) {
					if e.Kind == vsr.EvStatus && e.Replica == 2 && e.StatusChanged().View >= 1 {
						s.flags["left"] = true
					}
				})
			})},
		step{when: flag("left"), do: do(note(name+": r2 crashes with its superblock write in flight"), crash(2))},
		step{when: afterTicks(100), do: do(note(name+": r2 restarts"), restart(2))},
		step{when: afterTicks(500), do: cut(false, []int{0}, []int{1, 2})},
	)
}

// unlanded-commit: a cluster of one replica on a slow disk. Its own ack is
// the whole replication quorum, so it must not count until the op's write
// has landed. r0 crashes the tick after it journals an op past the lead,
// with that write in flight, and restarts. A correct r0 never committed the
// op, and replies to no one for it; with the defect it committed the op on
// an ack its disk never held, and the oracle, which hears a primary's own
// ack only once the write it stands on lands, sees a commit without a
// quorum. Without the oracle's rule the restarted r0 would commit another
// op at that place (the guided search's finding).
func init() {
	register(Scenario{
		Name:        "unlanded-commit",
		Description: "a cluster of one commits on its own ack; the ack must wait for the op's write to land",
		Bug:         "own-ack-before-write-lands",
		Expect:      sim.VerdictSafety,
		Configure: func(cfg *sim.Config) {
			storageCluster(cfg)
			quietCluster(cfg, 1)
			cfg.Storage.LatencyMinTicks = 40
		},
		NewScript: newUnlandedCommit,
	})
}

func newUnlandedCommit() sim.Script {
	const name = "unlanded-commit"
	return newScript(
		step{when: func(c *sim.Cluster, _ *script) bool { return committedTo(c, 0, 10) },
			do: do(note(name+": r0 committed a lead of 10 ops on its disk"), func(c *sim.Cluster, s *script) {
				c.Watch(func(e *vsr.Event) {
					if e.Kind == vsr.EvJournalAppend && e.Replica == 0 && e.Op > 10 {
						s.flags["journaled"] = true
					}
				})
			})},
		step{when: flag("journaled"), do: do(note(name+": r0 crashes with its write of the op in flight"), crash(0))},
		step{when: afterTicks(100), do: do(note(name+": r0 restarts from its disk"), restart(0))},
	)
}
