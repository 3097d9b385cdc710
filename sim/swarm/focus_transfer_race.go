package swarm

import (
	"vsrsim/packetsim"
	"vsrsim/prng"
	"vsrsim/replica"
	"vsrsim/sim"
)

// focusTransferRace draws the conditions under which a state transfer races
// the replica's own progress (docs/marks.md: transfer-offer-refused-not-newer,
// drop-chunk-corrupt). Every slice runs a busy cluster of 64-slot journals
// (8-14 clients with little think time keep the pipeline full, so a replica
// that lags falls past what the primary retains and transfers), packets
// reordered and replayed, and damaged packets delivered so chunks fail
// their checksum and pulls stall. Links are deep enough that a slow one
// queues rather than drops. Slices 0 and 1 draw a peer whose offer is older
// than the asker's state (raceStaleOfferer); slice 2 a laggard that falls
// behind again and again through crashes of write-ahead journals
// (raceSlowLaggard), where the stale guard's defect shows.
func focusTransferRace(s *prng.Stream, c *sim.Config, slice uint64) {
	c.Replicas = max(c.Replicas, 3)
	c.Topology = replica.TopologyStar
	c.Durability = replica.DurabilityMemory
	c.JournalSlots = 64
	c.CheckpointInterval = s.Range(8, 16)
	c.Clients = int(s.Range(8, 14))
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

	c.Aimed = sim.AimedFaults{}
	if slice == 2 {
		raceSlowLaggard(s, c)
	} else {
		raceStaleOfferer(s, c, slice)
	}
	c.FaultTicks = max(c.FaultTicks, s.Range(15000, 25000))
}

// raceSlowLaggard: write-ahead journals, crashes with long restarts, and one
// backup behind a slow inbound link, so it falls behind again and again and
// its pulls lag.
func raceSlowLaggard(s *prng.Stream, c *sim.Config) {
	c.Durability = replica.DurabilityWAL
	c.CrashChance = prng.Ratio{Num: 1, Den: uint32(s.Range(1000, 3000))}
	c.RestartMeanTicks = s.Range(300, 1500)
	// Never replica 0, the first view's primary: the laggard is a backup.
	lag := 1 + int(s.Uint64N(uint64(c.Replicas-1)))
	c.ExtraDelays = []sim.ExtraDelay{{From: packetsim.AnyNode, To: lag, Ticks: s.Range(150, 500)}}
}

// raceStaleOfferer draws a peer whose offer is older than the state of the
// replica that asks for it (D32: any caught-up replica offers). Five
// replicas and no crashes, so replica 0 stays primary; its link to one
// backup, the laggard, is slower than the primary retains ops for, so the
// laggard transfers, its primary's offers come late and it asks its peers
// in turn. Its link to another backup, the stale one, is slower still: cut
// for the whole fault phase in slice 0, up to a few thousand ticks slower
// than the laggard's in slice 1. The stale backup stays normal (it alone
// wishes to leave the view, which takes a quorum) and caught up at the
// commit point it last heard, older than the laggard's, and it is the
// first peer the laggard asks (requestOffer's turn starts two past the
// asker), so its offer reaches the gate unpinned and is refused as not
// newer. In slice 1 it also catches up now and then, so some of its offers
// are newer and the laggard pulls from it.
func raceStaleOfferer(s *prng.Stream, c *sim.Config, slice uint64) {
	c.Replicas = 5
	c.Protocol.SVCQuorumOff = false
	c.CrashChance = prng.Ratio{}
	lag := 1 + int(s.Uint64N(uint64(c.Replicas-1)))
	stale := (lag + 2) % c.Replicas
	if stale == 0 {
		stale = (lag + 3) % c.Replicas
	}
	slow := s.Range(2000, 8000)
	slower := s.Range(30000, 60000)
	if slice == 1 {
		slower = slow + s.Range(200, 3000)
	}
	c.ExtraDelays = []sim.ExtraDelay{
		{From: 0, To: lag, Ticks: slow},
		{From: 0, To: stale, Ticks: slower},
	}
}
