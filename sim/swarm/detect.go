package swarm

import (
	"vsrsim/packetsim"
	"vsrsim/prng"
	"vsrsim/replica"
	"vsrsim/sim"
)

// widenDetect draws, from the seed's own detect stream so that no earlier
// draw moves, the conditions under which the failure shapes and the planted
// defects a sweep was slow to find can form (docs/detection.md,
// docs/mutants.md). Each is a condition (a cluster shape, a rate, a slow or
// cut link), never a sequence of events.
func widenDetect(seed uint64, c *sim.Config) {
	s := prng.New(seed, prng.StreamSwarmDetect)
	if c.Replicas == 3 && s.Uint64N(4) != 0 {
		laggard(s, c)
		if !c.Protocol.SVCQuorumOff && s.Bool() {
			crashPrimaryOverLaggard(s, c)
		}
	}
	if c.Replicas == 5 && c.Durability == replica.DurabilityWAL && s.Bool() {
		forgetfulFive(s, c)
	}
}

// crashPrimaryOverLaggard makes the crashes aimed at the primary while
// another replica repairs or transfers frequent, with restarts as slow as a
// repair: a write-ahead replica that restarts between adopting a view and
// repairing it then votes in the view change that follows
// (restart-before-repair), rather than once in thousands of seeds.
func crashPrimaryOverLaggard(s *prng.Stream, c *sim.Config) {
	c.Aimed.CrashChance = prng.Ratio{Num: 1, Den: uint32(s.Range(150, 800))}
	c.Aimed.CrashPeers = true
	c.RestartMeanTicks = s.Range(200, 1200)
}

// forgetfulFive draws the transfer shapes' conditions in half of the
// five-replica seeds that drew a write-ahead journal (those that drew a
// memory journal keep their draws, the hollow-op shape's among them): a
// 64-slot ring under a fast workload, a memory journal instead (a restarted
// replica comes back empty and needs a transfer), and crashes aimed at the primary
// while another replica transfers, so the view change after an install needs
// a vote from a replica that adopted a view above the checkpoint it
// installed (transfer-rewind), in a core of three out of five.
func forgetfulFive(s *prng.Stream, c *sim.Config) {
	c.JournalSlots = 64
	c.CheckpointInterval = s.Range(8, 32)
	c.RequestMeanTicks = s.Range(2, 30)
	c.Aimed.CrashChance = prng.Ratio{Num: 1, Den: uint32(s.Range(300, 2000))}
	c.Aimed.CrashPeers = true
	c.RestartMeanTicks = s.Range(200, 1200)
	c.Durability = replica.DurabilityMemory
}

// laggard draws the conditions of the transfer shapes (failure-shapes.md 2,
// 5 and 6): three replicas of the source protocol on a 64-slot ring under a
// fast workload, so a backup cut off for a while falls past what repair can
// serve and needs a state transfer; long directed cuts and a link as slow as
// a restart, so an offer or a view's StartView lands late; and crashes aimed
// at the replicas in the middle of transfer or repair.
func laggard(s *prng.Stream, c *sim.Config) {
	if c.Replicas != 3 {
		c.Replicas = 3
		kept := c.ExtraDelays[:0]
		for _, d := range c.ExtraDelays {
			if d.From < 3 && d.To < 3 {
				kept = append(kept, d)
			}
		}
		c.ExtraDelays = kept
	}
	c.JournalSlots = 64
	c.CheckpointInterval = s.Range(8, 24)
	c.RequestMeanTicks = s.Range(2, 20)
	c.Clients = max(c.Clients, int(s.Range(2, 8)))
	// The source protocol in two thirds of them: the shapes are the source's,
	// but the robust protocol must still meet these conditions too.
	if s.Uint64N(3) != 0 {
		c.Protocol.SVCQuorumOff, c.Protocol.AbdicationOff = true, true
		c.Protocol.PrepareRepairOff = true // its gap check too (D83)
	}
	// A replica down longer than the ring lasts comes back needing a
	// transfer; short cuts and aimed crashes start the view changes that
	// overlap it.
	c.CrashChance = prng.Ratio{Num: 1, Den: uint32(s.Range(800, 4000))}
	c.RestartMeanTicks = s.Range(500, 5000)
	a := &c.Aimed
	a.LinkChance = prng.Ratio{Num: 1, Den: uint32(s.Range(300, 3000))}
	a.LinkMeanTicks = s.Range(30, 600)
	if s.Bool() {
		a.CrashChance = prng.Ratio{Num: 1, Den: uint32(s.Range(500, 4000))}
		a.CrashPeers = s.Bool()
	}
	a.AimPrimary = s.Bool()
	from := int(s.Uint64N(3))
	to := (from + 1 + int(s.Uint64N(2))) % 3
	if s.Bool() {
		to = packetsim.AnyNode
	}
	c.ExtraDelays = append(c.ExtraDelays, sim.ExtraDelay{From: from, To: to, Ticks: s.Range(200, 3000)})
	if s.Uint64N(4) != 0 {
		c.Durability = replica.DurabilityWAL
	}
	// The liveness phase then leans on every member's vote, the laggard's
	// included.
	c.BareCore = s.Bool()
}
