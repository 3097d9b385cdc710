package swarm

import (
	"vsrsim/packetsim"
	"vsrsim/prng"
	"vsrsim/replica"
	"vsrsim/sim"
)

// focusReassignedRepair draws the conditions under which a repair answer
// carries another op than the header its requester holds at that slot
// (drop-header-mismatch, repair-body-mismatch): a view change truncates an op
// a replica was fetching, the next primary reassigns the slot, and the
// request or its answer, still in flight, arrives after the new op's header.
//
// Load is the lever (measured over the focus's seeds of 1..6000: 3-8 clients
// reach the mark in 13 runs of 274, 12-20 in 43, 24-40 in 82): with a few
// clients a falling primary's pipeline holds an op or two, with dozens it is
// full, so each crash of a primary leaves ops only a minority holds, which
// the next view truncates and reassigns at once. Write-ahead journals and
// short restarts bring the crashed replica back with those ops to vote and
// to serve. A third to half of the packets reordered by up to a few
// view-change timeouts lets a repair request or answer outlive the view
// change (reordering a twelfth to a quarter of them by 1,000-3,000 ticks:
// 19 runs; a third to half by 500-1,500 ticks: 41). Drawn partitions are
// kept rare, so views change by crashes rather than stall. The topology
// stays drawn: a star reaches it as often as a chain. Five replicas in two
// slices, three in the third; both sizes reach it in about a third of their
// seeds.
func focusReassignedRepair(s *prng.Stream, c *sim.Config, slice uint64) {
	c.Replicas = 5
	if slice == 2 {
		c.Replicas = 3
	}
	c.Durability = replica.DurabilityWAL
	c.Clients = int(s.Range(24, 40))

	n := &c.Network
	n.Reorder = prng.Ratio{Num: 1, Den: uint32(s.Range(2, 3))}
	n.ReorderMaxTicks = s.Range(1000, 3000)
	// The slow links other draws chose were drawn for other cluster sizes
	// and other mechanisms; here every link reorders alike.
	c.ExtraDelays = nil
	if n.PartitionMode != packetsim.PartitionNone {
		n.PartitionChance = prng.Ratio{Num: 1, Den: uint32(s.Range(1000, 4000))}
	}

	c.CrashChance = prng.Ratio{Num: 1, Den: uint32(s.Range(300, 600))}
	c.RestartMeanTicks = s.Range(50, 300)
}
