package sim

import (
	"vsrsim/packetsim"
	"vsrsim/prng"
	"vsrsim/replica"
)

// focusTransferRace draws the conditions under which a state transfer races
// the replica's own progress (docs/marks.md: transfer-offer-refused-not-newer,
// drop-chunk-corrupt). A transfer refuses its snapshot only when repair, or
// answers still in flight, carry the replica past the snapshot before the
// offer or the last chunk lands; and a transfer can pass its snapshot only
// if the ring holds every op from its commit point to the snapshot, so the
// replica must lag just past what the primary retains while the primary's
// pipeline is deep. The draw: a busy cluster of 64-slot rings (many clients
// with no think time keep the pipeline full), one backup behind a slow
// inbound link so its repairs and pulls lag and its lag sits near the
// primary's eviction edge, crashes with long restarts so it falls behind
// again and again, packets reordered by up to a few repair periods so
// answers to earlier repairs land after the transfer began, and damaged
// packets delivered so chunks fail their checksum and pulls stall. Links are
// deep enough that the slow one queues rather than drops. Memory journals
// in two slices (a restarted replica comes back empty and must transfer),
// write-ahead journals in the third. Transfers and damaged chunks become
// common here; the refusal itself stays rare, since the ops below the
// transfer's floor must all be in flight and still fit the ring once repair
// has filled it from the floor up.
func focusTransferRace(s *prng.Stream, c *Config, slice uint64) {
	c.Replicas = max(c.Replicas, 3)
	c.Topology = replica.TopologyStar
	c.Durability = replica.DurabilityMemory
	if slice == 2 {
		c.Durability = replica.DurabilityWAL
	}
	c.JournalSlots = 64
	c.CheckpointInterval = s.Range(8, 16)
	c.Clients = int(s.Range(30, 48))
	c.RequestMeanTicks = s.Range(1, 3)
	c.BurstChance = prng.Ratio{Num: 1, Den: 3}

	n := &c.Network
	n.CorruptDelivered = true
	n.Corrupt = prng.Ratio{Num: 1, Den: uint32(s.Range(8, 20))}
	n.Reorder = prng.Ratio{Num: 1, Den: uint32(s.Range(5, 15))}
	n.ReorderMaxTicks = s.Range(50, 300)
	n.Replay = prng.Ratio{Num: 1, Den: uint32(s.Range(20, 60))}
	n.Loss = prng.Ratio{Num: 1, Den: uint32(s.Range(30, 100))}
	n.LinkCapacity = 2048
	n.PartitionMode = packetsim.PartitionNone
	n.PartitionChance = prng.Ratio{}
	n.Clog = prng.Ratio{}

	c.CrashChance = prng.Ratio{Num: 1, Den: uint32(s.Range(1000, 3000))}
	c.RestartMeanTicks = s.Range(300, 1500)
	c.Aimed = AimedFaults{}
	// Never replica 0, the first view's primary: the laggard is a backup.
	lag := 1 + int(s.Uint64N(uint64(c.Replicas-1)))
	c.ExtraDelays = []ExtraDelay{{From: packetsim.AnyNode, To: lag, Ticks: s.Range(150, 500)}}
	c.FaultTicks = max(c.FaultTicks, s.Range(15000, 25000))
}
