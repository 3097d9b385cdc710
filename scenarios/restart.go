package scenarios

import "vsrsim/replica"

// Restart scenarios: replicas crash together and come back from their
// journals. A write-ahead journal remembers everything its replica acked, so
// a cluster whose every replica restarted from one must elect a view again;
// a memory journal keeps the amnesia rule (Recovering until a view is
// adopted), so there at most f replicas restart at once.
func init() {
	livenessScenario("wal-cluster-restart",
		"every replica crashes at once and restarts from its write-ahead journal",
		1700, livenessCluster(3, replica.DurabilityWAL),
		timeline(
			timed{1500, do(note("wal-cluster-restart: every replica crashes"), crashAll(0, 1, 2))},
			timed{1700, do(note("wal-cluster-restart: every replica restarts"), restartAll(0, 1, 2))},
		))
	livenessScenario("wal-primary-backup-restart",
		"the primary and one backup crash together and restart from their write-ahead journals",
		1700, livenessCluster(3, replica.DurabilityWAL),
		timeline(
			timed{1500, do(note("wal-primary-backup-restart: r0 and r1 crash"), crashAll(0, 1))},
			timed{1700, do(note("wal-primary-backup-restart: r0 and r1 restart"), restartAll(0, 1))},
		))
	livenessScenario("wal-cluster-restart-5",
		"all five replicas crash at once and restart from their write-ahead journals",
		1700, quietLiveness(livenessCluster(5, replica.DurabilityWAL)),
		timeline(
			timed{1500, do(note("wal-cluster-restart-5: every replica crashes"), crashAll(0, 1, 2, 3, 4))},
			timed{1700, do(note("wal-cluster-restart-5: every replica restarts"), restartAll(0, 1, 2, 3, 4))},
		))
	for _, d := range []replica.Durability{replica.DurabilityWAL, replica.DurabilityMemory} {
		livenessScenario("rolling-restart-"+d.String(),
			"each replica in turn crashes and restarts ("+d.String()+" journals), the primary first",
			3300, longer(livenessCluster(3, d), 6000),
			timeline(
				timed{1000, crash(0)}, timed{1300, restart(0)},
				timed{2000, crash(1)}, timed{2300, restart(1)},
				timed{3000, crash(2)}, timed{3300, restart(2)},
			))
	}
}
