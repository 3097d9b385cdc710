package swarm

import (
	"vsrsim/packetsim"
	"vsrsim/prng"
	"vsrsim/replica"
	"vsrsim/sim"
)

// focusTransferRewind draws the conditions of transfer-rewind
// (failure-shapes.md 2): a replica installs a state transfer below a view
// head it adopted, and the view change that follows cannot do without its
// vote. The rewound head heals as soon as the replica repairs, commits or
// adopts the next StartView, so the shape needs a view change that starts
// while it lasts and has no quorum without the rewound replica:
//
//   - Three replicas on memory journals: a crashed replica comes back empty,
//     recovering, and cannot vote or recover while no primary is in Normal,
//     so a view change between the other two needs both their votes, for good.
//   - A 64-slot ring, many clients and a short think time on an even network
//     (fixed latency, so prepares arrive in order and commit fast): a replica
//     down for a restart falls far past the ring and needs a transfer, and
//     the cluster commits past the checkpoint it pulls while it pulls it, so
//     its install lands below what it adopted and repair cannot close the
//     gap before a second transfer.
//   - Frequent crashes aimed at the primary (never when they would leave a
//     view-change quorum short of whole replicas): the next one after the
//     install starts the view change that needs the rewound replica.
//
// Slice 0 keeps the robust protocol on a star; slice 1 keeps the seed's
// drawn topology; slice 2 runs the source protocol (the scenario models it)
// with a bare liveness core.
func focusTransferRewind(s *prng.Stream, c *sim.Config, slice uint64) {
	c.Replicas = 3
	c.ExtraDelays = nil
	c.Durability = replica.DurabilityMemory
	c.JournalSlots = 64
	c.CheckpointInterval = s.Range(8, 24)
	c.Clients = int(s.Range(16, 48))
	c.RequestMeanTicks = s.Range(2, 6)
	c.RequestQueue = 0
	if slice != 1 {
		c.Topology = replica.TopologyStar
	}
	c.Protocol = replica.Protocol{}
	if slice == 2 {
		c.Protocol.SVCQuorumOff, c.Protocol.AbdicationOff = true, true
		c.Protocol.PrepareRepairOff = true // the source's gap check too (D83)
	}
	c.BareCore = slice == 2

	// An even network: fixed latency, rare loss and reordering, no
	// partitions, clogs, replays or damage.
	n := &c.Network
	n.DelayMinTicks = s.Range(1, 4)
	n.DelayMeanTicks = 0
	n.Loss = prng.Ratio{Num: 1, Den: uint32(s.Range(100, 500))}
	n.Replay = prng.Ratio{}
	n.Reorder = prng.Ratio{Num: 1, Den: uint32(s.Range(50, 200))}
	n.ReorderMaxTicks = s.Range(1, 30)
	n.Clog = prng.Ratio{}
	n.Corrupt = prng.Ratio{}
	n.PartitionMode = packetsim.PartitionNone
	n.PartitionChance = prng.Ratio{}

	// Crashes only where they are aimed: at the primary, with restarts long
	// enough to fall past the ring.
	c.CrashChance = prng.Ratio{}
	c.RestartMeanTicks = s.Range(1000, 3000)
	c.Aimed = sim.AimedFaults{
		CrashChance: prng.Ratio{Num: 1, Den: uint32(s.Range(50, 250))},
		CrashPeers:  true,
	}
	c.LivenessKeepFaults = false // no cuts to keep
}
