package swarm

import (
	"vsrsim/packetsim"
	"vsrsim/prng"
	"vsrsim/replica"
	"vsrsim/sim"
)

// focusTransferMutants draws the conditions under which two state-transfer
// slips could act (docs/mutants.md): a repair floor left standing above the
// checkpoint a later transfer installs (transfer-keeps-repair-floor), and a
// cached DoViewChange suffix that outlives an install
// (transfer-skips-journal-generation). Both need transfers that overlap one
// another on a small ring under a fast workload: a backup pulls a checkpoint
// over a slow link while a peer that has just restarted or installed a newer
// one answers its repair with RangeEvicted above the checkpoint it pinned.
func focusTransferMutants(s *prng.Stream, c *sim.Config, slice uint64) {
	c.Replicas = 3
	c.ExtraDelays = nil
	// A calm network: the cluster must commit fast enough to outrun a
	// 64-slot ring while a replica is down or pulling a checkpoint.
	n := &c.Network
	n.DelayMinTicks = 1
	n.DelayMeanTicks = 0 // no reordering: a gap drop would stall each prepare a retry period
	n.Loss = prng.Ratio{Num: 1, Den: uint32(s.Range(100, 1000))}
	n.Replay = prng.Ratio{}
	n.Reorder = prng.Ratio{}
	n.Clog = prng.Ratio{}
	n.PartitionMode = packetsim.PartitionNone
	n.PartitionChance = prng.Ratio{}
	c.BurstChance = prng.Ratio{}
	c.Aimed = sim.AimedFaults{}
	// The primary sends each prepare to every backup itself: in a chain the
	// slow link would slow every commit, not one backup's catch-up.
	c.Topology = replica.TopologyStar
	c.JournalSlots = 64
	c.CheckpointInterval = s.Range(8, 24)
	c.RequestMeanTicks = s.Range(2, 12)
	c.Clients = int(s.Range(6, 10))
	c.Protocol = replica.Protocol{}
	c.Durability = replica.DurabilityMemory
	if s.Uint64N(3) == 0 {
		c.Durability = replica.DurabilityWAL
	}
	// Amnesiac restarts, frequent and short: a replica back from one
	// serves nothing below its last checkpoint, and one whose journal the
	// cluster outran pulls a checkpoint.
	c.CrashChance = prng.Ratio{Num: 1, Den: uint32(s.Range(400, 1500))}
	c.RestartMeanTicks = s.Range(100, 600)
	// A slow link from the first primary to one backup: that backup's
	// pinned offer is pulled slowly, and its repair requests to the primary
	// time out and rotate to a peer that may have just restarted or
	// installed a newer checkpoint, whose RangeEvicted then sets the floor.
	lag := 1 + int(s.Uint64N(uint64(c.Replicas-1)))
	c.ExtraDelays = append(c.ExtraDelays, sim.ExtraDelay{From: 0, To: lag, Ticks: s.Range(120, 400)})
	// Every replica in the core: a laggard that never catches up fails.
	c.Core = nil
	for i := 0; i < c.Replicas; i++ {
		c.Core = append(c.Core, i)
	}
	n.CorruptDelivered = true
	n.Corrupt = prng.Ratio{Num: 1, Den: uint32(s.Range(40, 200))}
	c.LivenessWorkload = false
	if slice == 1 {
		stallPrimary(s, c)
	}
}

// stallPrimary cuts the primary's links often, one direction or one peer at
// a time: a backup that pulls a checkpoint does not ack, so with the other
// backup cut off the primary's commits stop at its offer, and the backup
// installs at the very commit point it knows, with its DoViewChange cache tag
// unchanged, while view changes start around it.
func stallPrimary(s *prng.Stream, c *sim.Config) {
	a := &c.Aimed
	a.LinkChance = prng.Ratio{Num: 1, Den: uint32(s.Range(200, 1500))}
	a.LinkMeanTicks = s.Range(100, 1000)
	a.AimPrimary = true
}
