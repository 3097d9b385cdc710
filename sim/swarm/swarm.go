package swarm

import (
	"vsrsim/packetsim"
	"vsrsim/prng"
	"vsrsim/replica"
	"vsrsim/sim"
)

// Config draws a run's whole configuration from the seed's swarm stream,
// as TigerBeetle's VOPR does: cluster shape, journal, network faults, crash
// rates, extra delays and workload. Several draws come out zero so that each
// fault is off for some seeds. The draw order is append-only: add new draws at
// the end, or every seed's configuration shifts.
func Config(seed uint64) sim.Config { return config(seed, true) }

// Unfocused is the seed's configuration without its focus draw (D31): what
// the seed would draw were there no focus slices. The guided search's
// measurement uses it to ask whether a focus still earns its slices
// (docs/fuzz.md); no sweep runs it.
func Unfocused(seed uint64) sim.Config { return config(seed, false) }

func config(seed uint64, focused bool) sim.Config {
	s := prng.New(seed, prng.StreamSwarm)
	c := sim.DefaultConfig(seed)
	// In this order: each draws after the one before.
	drawCluster(s, &c)
	drawNetwork(s, &c)
	drawFaults(s, &c)
	drawExtraDelays(s, &c)
	drawStorm(s, &c)
	widen(s, &c)
	reach(seed, &c)
	widenDetect(seed, &c)
	if focused {
		focus(seed, &c)
	}
	drawStorage(seed, &c)
	return c
}

// ratio draws a chance of one in den/4..den, off in one seed in offOneIn.
func ratio(s *prng.Stream, den uint64, offOneIn uint64) prng.Ratio {
	if s.Uint64N(offOneIn) == 0 {
		return prng.Ratio{}
	}
	return prng.Ratio{Num: 1, Den: uint32(s.Range(den/4, den))}
}

// drawCluster draws the cluster's shape: replicas, clients, topology and
// journal.
func drawCluster(s *prng.Stream, c *sim.Config) {
	switch r := s.Uint64N(10); {
	case r < 5:
		c.Replicas = 3
	case r < 8:
		c.Replicas = 5
	default:
		c.Replicas = int(s.Range(1, 6))
	}
	c.Clients = int(s.Range(1, 8))
	if s.Uint64N(4) == 0 {
		c.Topology = replica.TopologyStar
	}
	if s.Bool() {
		c.Durability = replica.DurabilityMemory
	}
	if s.Uint64N(3) == 0 {
		c.JournalSlots = 64
		c.CheckpointInterval = s.Range(8, 32)
	} else {
		c.JournalSlots = 1024
		c.CheckpointInterval = s.Range(32, 256)
	}
}

// drawNetwork draws the network's delays and faults.
func drawNetwork(s *prng.Stream, c *sim.Config) {
	n := &c.Network
	n.DelayMinTicks = s.Range(0, 3)
	n.DelayMeanTicks = s.Range(0, 10)
	n.Loss = ratio(s, 50, 4)
	n.Replay = ratio(s, 200, 3)
	n.Reorder = ratio(s, 50, 3)
	n.ReorderMaxTicks = s.Range(1, 30)
	n.LinkCapacity = int(s.Range(32, 256))
	n.Clog = ratio(s, 50000, 2)
	n.ClogMeanTicks = s.Range(20, 400)
	n.PartitionMode = packetsim.PartitionMode(s.Uint64N(4))
	if s.Bool() {
		n.PartitionSymmetry = packetsim.Asymmetric
	}
	n.PartitionChance = ratio(s, 5000, 1<<62)
	n.HealChance = prng.Ratio{Num: 1, Den: uint32(s.Range(100, 1000))}
	n.PartitionStabilityTicks = s.Range(100, 1000)
	n.HealStabilityTicks = s.Range(200, 2000)
	if n.PartitionMode == packetsim.PartitionNone || c.Replicas < 2 {
		n.PartitionMode = packetsim.PartitionNone
		n.PartitionChance = prng.Ratio{}
	}
}

// drawFaults draws the fault phase's length, crashes and workload.
func drawFaults(s *prng.Stream, c *sim.Config) {
	c.FaultTicks = s.Range(5000, 20000)
	c.CrashChance = ratio(s, 10000, 3)
	c.RestartMeanTicks = s.Range(100, 2000)

	c.RequestMeanTicks = s.Range(5, 100)
	c.BurstChance = ratio(s, 10, 3)
}

// drawExtraDelays draws a few slow links and, in some seeds, a straggler.
func drawExtraDelays(s *prng.Stream, c *sim.Config) {
	extras := int(s.Uint64N(3))
	for i := 0; i < extras && c.Replicas > 1; i++ {
		from := int(s.Uint64N(uint64(c.Replicas)))
		to := int(s.Uint64N(uint64(c.Replicas)))
		if from == to {
			continue
		}
		c.ExtraDelays = append(c.ExtraDelays, sim.ExtraDelay{From: from, To: to, Ticks: s.Range(1, 300)})
	}
	// A straggler: one replica whose every outbound packet arrives later than
	// a view-change timeout (latency alone). This is the shape that makes
	// escalation without a hold, and votes built from a stale cache, visible
	// to a sweep with no script.
	if c.Replicas >= 3 && s.Uint64N(4) == 0 {
		c.ExtraDelays = append(c.ExtraDelays, sim.ExtraDelay{
			From: int(s.Uint64N(uint64(c.Replicas))), To: packetsim.AnyNode, Ticks: s.Range(400, 900)})
	}
}

// drawStorm draws, in half the seeds, a storm.
func drawStorm(s *prng.Stream, c *sim.Config) {
	n := &c.Network
	// A storm: view changes, restarts and lagging replicas several times as
	// often, with small journals, so transfers overlap view changes.
	if s.Uint64N(2) == 0 {
		c.JournalSlots = 64
		c.CheckpointInterval = s.Range(8, 32)
		if c.CrashChance.Zero() {
			c.CrashChance = prng.Ratio{Num: 1, Den: 4000}
		}
		c.CrashChance.Den = max(c.CrashChance.Den/4, 500)
		c.RestartMeanTicks = s.Range(300, 3000)
		if !n.PartitionChance.Zero() {
			n.PartitionChance.Den = max(n.PartitionChance.Den/4, 300)
		}
	}
}

// widen draws the faults that reach the protocol's rarer branches
// (docs/marks.md), after every earlier draw so those stay where they were.
func widen(s *prng.Stream, c *sim.Config) {
	n := &c.Network
	// Damaged packets, so the receivers' checksum checks run.
	if s.Uint64N(3) == 0 {
		n.Corrupt = prng.Ratio{Num: 1, Den: uint32(s.Range(100, 2000))}
	}
	// In this order: each draws after the one before.
	widenAimed(s, c)
	widenSlowLinks(s, c)
	widenProtocol(s, c)
}

// widenAimed draws the aimed faults: directed cuts and crashes.
func widenAimed(s *prng.Stream, c *sim.Config) {
	// Directed cuts: one link one way, send-only and receive-only replicas,
	// clients' links; in a burst seed, short and frequent and half of them
	// at the primary, so view changes follow one another.
	a := &c.Aimed
	switch r := s.Uint64N(6); {
	case r < 2:
		a.LinkChance = prng.Ratio{Num: 1, Den: uint32(s.Range(500, 5000))}
		a.LinkMeanTicks = s.Range(50, 2000)
	case r == 2:
		a.LinkChance = prng.Ratio{Num: 1, Den: uint32(s.Range(100, 400))}
		a.LinkMeanTicks = s.Range(20, 200)
		a.AimPrimary = true
	}
	if !a.LinkChance.Zero() {
		a.ClientLinks = s.Bool()
		a.AimPrimary = a.AimPrimary || s.Bool()
		// The liveness phase keeps the cuts of replicas outside the core.
		c.LivenessKeepFaults = s.Uint64N(3) == 0
	}
	// Crashes aimed where they hurt: mid transfer, mid repair, the primary.
	if s.Uint64N(4) == 0 {
		a.CrashChance = prng.Ratio{Num: 1, Den: uint32(s.Range(1000, 8000))}
	}
}

// widenSlowLinks draws links as slow as a restart.
func widenSlowLinks(s *prng.Stream, c *sim.Config) {
	// Links as slow as a restart, so a message from a replica's earlier
	// incarnation, or an offer made before a view change, can arrive while
	// newer work is in flight.
	if c.Replicas >= 2 && s.Bool() {
		for k := s.Range(1, 2); k > 0; k-- {
			from := int(s.Uint64N(uint64(c.Replicas)))
			to := packetsim.AnyNode
			if s.Uint64N(4) != 0 {
				to = int(s.Uint64N(uint64(c.Replicas)))
			}
			if from != to {
				c.ExtraDelays = append(c.ExtraDelays, sim.ExtraDelay{From: from, To: to, Ticks: s.Range(c.RestartMeanTicks/2, 2*c.RestartMeanTicks)})
			}
		}
	}
}

// widenProtocol draws the source mechanisms a run lacks.
func widenProtocol(s *prng.Stream, c *sim.Config) {
	a := &c.Aimed
	// The mechanisms a modelled source lacks, off in some seeds: the robust
	// protocol must not be the only one the swarm tests. A source lacked the
	// liveness guards together, so they are also drawn off together.
	p := &c.Protocol
	switch s.Uint64N(8) {
	case 0:
		p.SVCQuorumOff, p.AbdicationOff = true, true
		// Nor had that source a backup that relays the view or retries
		// started afresh (D43): the swarm keeps testing without them,
		// and the slips they heal stay visible (a restart that claims a
		// head its disk never held went uncaught in 4,000 seeds, an
		// amnesiac vote that nacks below the commit point too).
		p.RelayStartViewOff, p.BackoffResetOff = true, true
		// Nor did its backups take a Prepare of an op they held hollow as
		// its repair (D83): the hollow-op shape stays in the swarm.
		p.PrepareRepairOff = true
	case 1:
		// A source without the quorum window also had the earlier
		// abdication, by hearing alone (D40): the swarm keeps testing
		// it, and the shapes it hides from the robust rule (a planted
		// amnesiac-vote slip is caught at seed 131 this way, never in
		// 10,000 seeds without it).
		p.SVCQuorumOff = true
		p.AbdicateByHearing = true
		p.RelayStartViewOff, p.BackoffResetOff = true, true
		p.PrepareRepairOff = true
	case 2:
		p.AbdicationOff = true
	}
	p.BackoffOff = s.Uint64N(8) == 0
	// Without the quorum window a single late StartViewChange moves a
	// replica: in half of those seeds one replica straggles just past the
	// view-change status timeout, and directed cuts make replicas time out.
	if p.SVCQuorumOff && c.Replicas >= 3 && s.Bool() {
		c.ExtraDelays = append(c.ExtraDelays, sim.ExtraDelay{
			From: int(s.Uint64N(uint64(c.Replicas))), To: packetsim.AnyNode, Ticks: s.Range(550, 800)})
		if a.LinkChance.Zero() {
			a.LinkChance = prng.Ratio{Num: 1, Den: uint32(s.Range(500, 3000))}
			a.LinkMeanTicks = s.Range(100, 1000)
		}
	}
}
