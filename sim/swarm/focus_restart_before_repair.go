package swarm

import (
	"vsrsim/packetsim"
	"vsrsim/prng"
	"vsrsim/replica"
	"vsrsim/sim"
)

// focusRestartBeforeRepair draws the conditions of restart-before-repair
// (failure-shapes.md 6): a replica on a write-ahead journal adopts a view
// whose head lies above a gap in its journal, restarts before repair fills
// the gap, and votes in the next view change, where its vote must describe
// the adopted head or the merge drops ops a quorum acked. That needs:
//
//   - Write-ahead journals: only they carry the adopted view across a restart.
//   - Crashes of any replica, often, with restarts shorter than a repair
//     round: a replica that adopted a view with a gap is likely to go down
//     and come back while the gap is open, and the next crash (of the
//     primary, say) starts the view change it then votes in. Crashes aimed
//     at the primary, or at a replica in the middle of repair, on top.
//   - Lossy, corrupting and slow links, so prepares miss a backup (the gap)
//     and a StartView reaches some replicas but not others; one replica's
//     outbound links slower still, so its vote or its acks come late and the
//     quorum that merges is more often one where the restarted replica holds
//     the newest log_view alone.
//   - A long fault phase: each view change is one more chance.
//
// Slices 0 and 2 draw three replicas, slice 1 five.
func focusRestartBeforeRepair(s *prng.Stream, c *sim.Config, slice uint64) {
	c.Durability = replica.DurabilityWAL
	c.Replicas = 3
	if slice == 1 {
		c.Replicas = 5
	}
	// The earlier draws' slow links may name replicas of another cluster size.
	kept := c.ExtraDelays[:0]
	for _, d := range c.ExtraDelays {
		if d.From < c.Replicas && d.To < c.Replicas {
			kept = append(kept, d)
		}
	}
	c.ExtraDelays = append(kept, sim.ExtraDelay{
		From: int(s.Uint64N(uint64(c.Replicas))), To: packetsim.AnyNode, Ticks: s.Range(50, 300)})

	c.FaultTicks = s.Range(30000, 60000)
	c.CrashChance = prng.Ratio{Num: 1, Den: uint32(s.Range(50, 200))}
	c.RestartMeanTicks = s.Range(10, 80)
	c.Aimed.CrashChance = prng.Ratio{Num: 1, Den: uint32(s.Range(300, 1500))}
	c.Aimed.CrashPeers = s.Bool()

	c.RequestMeanTicks = s.Range(5, 60)
	c.Clients = max(c.Clients, int(s.Range(3, 8)))

	n := &c.Network
	n.DelayMeanTicks = s.Range(1, 40)
	n.Loss = prng.Ratio{Num: 1, Den: uint32(s.Range(8, 40))}
	n.Corrupt = prng.Ratio{Num: 1, Den: uint32(s.Range(6, 30))}
	n.CorruptDelivered = true

	// The robust protocol, but for slice 2, which keeps the seed's draw (the
	// source protocol in most of them): the shape is the source's.
	if slice != 2 {
		c.Protocol = replica.Protocol{}
	}
}
