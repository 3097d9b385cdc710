package scenarios

import (
	"vsrsim/sim"
	"vsrsim/vsr"
)

// damaged-checkpoint: r1's disk holds the checkpoint its superblock names
// (its third, so the ops below it have left every journal),
// and r1 crashes; while it is down its disk damages a sector of the state in
// both checkpoint records (each still names its checkpoint). A correct r1
// finds no whole record, comes back from the genesis state with its journal,
// and repair and a state transfer bring it forward. With the defect it takes
// the named record as it reads and restores a state that is not the one it
// checkpointed: its own assertion that a restored state hashes to its digest
// ends the run.
func init() {
	register(Scenario{
		Name:        "damaged-checkpoint",
		Description: "a replica's disk damages the state of its checkpoint records; restarted, it must not restore a state it cannot verify",
		Bug:         "checkpoint-trusts-unverified",
		Expect:      sim.VerdictCrash,
		Configure: func(cfg *sim.Config) {
			storageCluster(cfg)
			// Checkpoints every 64 ops in a journal of 128: the genesis
			// state a correct r1 comes back from lies below every journal,
			// so a state transfer brings it forward.
			cfg.JournalSlots = 128
			cfg.CheckpointInterval = 64
		},
		NewScript: newDamagedCheckpoint,
	})
}

func newDamagedCheckpoint() sim.Script {
	const name = "damaged-checkpoint"
	return newScript(
		step{when: storageLeadDone, do: do(note(name+": watching for r1's third checkpoint"), func(c *sim.Cluster, s *script) {
			c.Watch(func(e *vsr.Event) {
				if e.Kind == vsr.EvCheckpoint && e.Replica == 1 && e.Op >= 3*64 {
					s.flags["checkpointed"] = true
				}
			})
		})},
		// The record goes down with the superblock naming it, a few ticks
		// after the checkpoint: wait for both to land.
		step{when: flag("checkpointed"), do: note(name + ": r1 checkpointed op 192")},
		step{when: afterTicks(50), do: do(note(name+": r1 crashes; its disk damages both checkpoint records"), crash(1),
			func(c *sim.Cluster, _ *script) { mustStorage(c, c.CorruptCheckpoints(1)) })},
		step{when: afterTicks(100), do: do(note(name+": r1 restarts"), restart(1))},
	)
}
