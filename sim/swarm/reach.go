package swarm

import (
	"vsrsim/prng"
	"vsrsim/replica"
	"vsrsim/sim"
)

// reach draws, from its own stream, the conditions under which runs take the
// protocol's rarest branches (docs/marks.md): damaged packets that reach a
// replica's checksums, a primary's request queue small enough to fill,
// packets that outlive a restart, links slower than a checkpoint's worth of
// commits, amnesiac restarts in the middle of view changes. It draws
// conditions, never a sequence of events, and runs after every draw of
// StreamSwarm, so no earlier draw moves; its own draws are append-only too.
func reach(seed uint64, c *sim.Config) {
	s := prng.New(seed, prng.StreamSwarmReach)
	// In this order: each draws after the one before.
	reachDamage(s, c)
	reachQueue(s, c)
	reachLatePackets(s, c)
	reachRestartStorms(s, c)
	reachSlowLink(s, c)
	reachAmnesiac(s, c)
	reachReorderFive(s, c)
}

// reachDamage draws damaged packets delivered.
func reachDamage(s *prng.Stream, c *sim.Config) {
	n := &c.Network
	// Damaged packets delivered: the harness damages what a checksum
	// covers (damage), so the replicas' own checks run; often enough that a
	// state transfer's four chunks meet one.
	if s.Uint64N(3) != 0 {
		n.CorruptDelivered = true
		// Small journals are where transfers happen: damage more there,
		// so a chunk is hit and the pull it slows lets repair overtake it.
		lo, hi := uint64(10), uint64(60)
		if c.JournalSlots < 1024 {
			lo, hi = 4, 20
		}
		if den := s.Range(lo, hi); n.Corrupt.Zero() || uint64(n.Corrupt.Den) > den {
			n.Corrupt = prng.Ratio{Num: 1, Den: uint32(den)}
		}
		// Transfers happen during the faults (the liveness phase's
		// network damages nothing) when a busy cluster outruns a
		// replica's journal: many clients, frequent crashes.
		if c.JournalSlots < 1024 && s.Bool() {
			c.Clients = max(c.Clients, int(s.Range(6, 10)))
			if c.CrashChance.Zero() || c.CrashChance.Den > 1200 {
				c.CrashChance = prng.Ratio{Num: 1, Den: uint32(s.Range(600, 1200))}
			}
		}
	}
}

// reachQueue draws a small request queue.
func reachQueue(s *prng.Stream, c *sim.Config) {
	// A small request queue with more clients than it holds: requests that
	// arrive while the primary waits on commit lag overflow it, and their
	// clients retry until served.
	if s.Uint64N(4) == 0 {
		c.RequestQueue = int(s.Range(1, 3))
		c.Clients = max(c.Clients, int(s.Range(4, 12)))
	}
}

// reachLatePackets draws packets that outlive a restart.
func reachLatePackets(s *prng.Stream, c *sim.Config) {
	n := &c.Network
	// Packets that outlive a restart: restarts short and a share of the
	// packets reordered by up to a few restart times, so an ack of a
	// replica's earlier life arrives after it came back, while its op may
	// still be in the pipeline. Only with a write-ahead journal, whose
	// restarted replicas ack again at once: so many late packets starve
	// state transfers, which memory journals' restarts need more.
	if c.Durability == replica.DurabilityWAL && !c.CrashChance.Zero() && s.Uint64N(4) != 0 {
		c.RestartMeanTicks = min(c.RestartMeanTicks, s.Range(50, 600))
		n.Reorder = prng.Ratio{Num: 1, Den: uint32(s.Range(3, 30))}
		n.ReorderMaxTicks = s.Range(c.RestartMeanTicks, 4*c.RestartMeanTicks)
	}
}

// reachRestartStorms draws restart storms.
func reachRestartStorms(s *prng.Stream, c *sim.Config) {
	// Restart storms: many short crashes of replicas that keep their
	// journal, so acks of an earlier incarnation meet a live pipeline.
	if c.Durability == replica.DurabilityWAL && !c.CrashChance.Zero() && s.Bool() {
		c.CrashChance.Den = min(c.CrashChance.Den, uint32(s.Range(400, 1500)))
		c.RestartMeanTicks = min(c.RestartMeanTicks, s.Range(50, 300))
	}
}

// reachSlowLink draws one link slower than a checkpoint's worth of commits.
func reachSlowLink(s *prng.Stream, c *sim.Config) {
	// One link slower than a checkpoint's worth of commits, into a replica
	// that restarts: answers to its earlier probes (StartViews, offers)
	// arrive after it has applied past them, or after it restarted again.
	slowOneIn := uint64(4)
	if c.Durability == replica.DurabilityMemory {
		slowOneIn = 2 // an amnesiac restart is what recovers from a probe's answer
	}
	if c.Replicas >= 3 && s.Uint64N(slowOneIn) == 0 {
		from := int(s.Uint64N(uint64(c.Replicas)))
		to := (from + 1 + int(s.Uint64N(uint64(c.Replicas-1)))) % c.Replicas
		if c.Durability == replica.DurabilityMemory {
			// Back within the delay, an amnesiac replica meets the answers
			// to its last life's probes while it recovers again.
			c.RestartMeanTicks = min(c.RestartMeanTicks, s.Range(50, 400))
		}
		c.ExtraDelays = append(c.ExtraDelays, sim.ExtraDelay{From: from, To: to, Ticks: s.Range(1000, 3500)})
		// The replica lags, so crashes aimed at repair find it.
		if c.Aimed.CrashChance.Zero() {
			c.Aimed.CrashChance = prng.Ratio{Num: 1, Den: uint32(s.Range(500, 3000))}
		}
	}
}

// reachAmnesiac draws amnesiac restarts in the middle of view changes.
func reachAmnesiac(s *prng.Stream, c *sim.Config) {
	// Amnesiac restarts in the middle of view changes: crashes aimed at the
	// primary (or a replica repairing) of a memory journal, back soon, so
	// votes weigh ops a restarted replica may have acked before it forgot
	// them, and a primary elected by votes that knew less learns the commit
	// point from a backup.
	if c.Durability == replica.DurabilityMemory && c.Replicas >= 3 && s.Bool() {
		if c.Aimed.CrashChance.Zero() {
			c.Aimed.CrashChance = prng.Ratio{Num: 1, Den: uint32(s.Range(300, 2000))}
		}
		c.RestartMeanTicks = min(c.RestartMeanTicks, s.Range(50, 500))
	}
}

// reachReorderFive draws packets that outlive a view change in a busy cluster.
func reachReorderFive(s *prng.Stream, c *sim.Config) {
	n := &c.Network
	// Seeds whose small journal and damaged packets make state transfers
	// meet damaged chunks (drop-chunk-corrupt): short restarts there would
	// let repair replace those transfers, so the draws below leave them be.
	transfers := c.JournalSlots < 1024 && n.CorruptDelivered

	// Packets that outlive a view change in a busy five-replica cluster of
	// write-ahead journals: frequent short crashes truncate and reassign
	// ops, and a share of packets reordered by up to a thousand ticks
	// brings a repair answer of the old op after the new one's header
	// (drop-header-mismatch), or an ack of a replica's earlier life into
	// the pipeline (ack-old-incarnation-in-pipeline).
	if c.Durability == replica.DurabilityWAL && c.Replicas >= 4 && !transfers && s.Uint64N(4) != 0 {
		if c.CrashChance.Zero() || c.CrashChance.Den > 900 {
			c.CrashChance = prng.Ratio{Num: 1, Den: uint32(s.Range(400, 900))}
		}
		c.RestartMeanTicks = min(c.RestartMeanTicks, s.Range(50, 300))
		c.Clients = max(c.Clients, int(s.Range(3, 8)))
		n.Reorder = prng.Ratio{Num: 1, Den: uint32(s.Range(4, 12))}
		n.ReorderMaxTicks = max(n.ReorderMaxTicks, s.Range(500, 1500))
	}
}
