package sim

import (
	"vsrsim/packetsim"
	"vsrsim/prng"
	"vsrsim/replica"
)

// focusReassignedRepair draws the conditions under which a repair answer
// carries a different op than the header its requester holds at that slot
// (drop-header-mismatch, repair-body-mismatch): a view change truncates an op
// some replica was fetching and the next primary reassigns the slot while
// the request or its answer is still in flight.
//
// A busy cluster is what makes that common: with a few clients a primary's
// pipeline holds an op or two when it falls, and the next view rarely has
// anything to truncate; with dozens of clients thinking for a few ticks the
// pipeline is full, so every crash of a primary (short restarts, write-ahead
// journals, so it comes back and votes its unreplicated ops) leaves ops only
// a minority holds. Most packets are reordered by up to a few view-change
// timeouts, so a request or answer of the old op outlives the view change
// that truncated it and the new op's prepare. Chain replication lets a lost
// prepare stop short of the tail, so ops are held by fewer replicas still.
// Five replicas in two slices (more voters, more of them holding a header
// without its body); three in the third, where the truncating vote is the
// header-only one of a primary-elect whose view never started (main's seed
// 3715 shape).
func focusReassignedRepair(s *prng.Stream, c *Config, slice uint64) {
	c.Replicas = 5
	if slice == 2 {
		c.Replicas = 3
	}
	c.Durability = replica.DurabilityWAL
	c.Topology = replica.TopologyChain
	c.Clients = int(s.Range(24, 40))
	c.RequestMeanTicks = s.Range(2, 5)
	c.RequestQueue = 0

	n := &c.Network
	n.Reorder = prng.Ratio{Num: 1, Den: uint32(s.Range(1, 2))}
	n.ReorderMaxTicks = s.Range(1000, 3000)
	// The slow links other draws chose were drawn for other cluster sizes
	// and other mechanisms; here every link reorders alike.
	c.ExtraDelays = nil
	if n.PartitionMode != packetsim.PartitionNone {
		n.PartitionChance = prng.Ratio{Num: 1, Den: uint32(s.Range(1000, 4000))}
	}

	c.CrashChance = prng.Ratio{Num: 1, Den: uint32(s.Range(300, 600))}
	c.RestartMeanTicks = s.Range(50, 300)
	c.Aimed.CrashChance = prng.Ratio{Num: 1, Den: uint32(s.Range(250, 500))}
}
