package swarm

import (
	"vsrsim/packetsim"
	"vsrsim/prng"
	"vsrsim/replica"
	"vsrsim/sim"
)

// focusAmnesiacVote draws the conditions under which a replica that lost its
// journal votes on ops it may have acked before the loss (merge-unsure). An
// amnesiac restart adopts the next view's headers at once but holds their
// bodies only after repair has walked up from its checkpoint; a vote it casts
// before then marks the ops it may have acked unsure, and the merge weighs
// that vote only if no voter's commit point covers those ops. So: memory
// journals and long stretches between checkpoints (much to repair), crashes
// aimed at the primary (its pipeline holds uncommitted ops, and each crash is
// a view change) with short restarts, slow links everywhere so commits and
// repair lag view changes, and one replica slower still, whose acks and votes
// come late when it is needed for a quorum. Random crashes are off: they
// spend the cluster's budget of replicas down that the aimed crashes need.
// Slices 0 and 1 draw five replicas (the shape reaches the mark in about two
// seeds of five), slice 2 three (one in four).
func focusAmnesiacVote(s *prng.Stream, c *sim.Config, slice uint64) {
	c.Durability = replica.DurabilityMemory
	c.Replicas = 5
	if slice == 2 {
		c.Replicas = 3
	}
	c.JournalSlots = 1024
	c.CheckpointInterval = s.Range(128, 256)

	c.CrashChance = prng.Ratio{}
	c.Aimed.CrashChance = prng.Ratio{Num: 1, Den: uint32(s.Range(200, 600))}
	c.Aimed.CrashPeers = true
	c.RestartMeanTicks = s.Range(30, 150)

	c.RequestMeanTicks = s.Range(3, 30)
	c.Clients = max(c.Clients, int(s.Range(3, 8)))

	n := &c.Network
	n.DelayMeanTicks = s.Range(60, 200)
	n.Loss = prng.Ratio{Num: 1, Den: uint32(s.Range(8, 30))}
	// The earlier draws' slow links named replicas of another cluster size;
	// the straggler replaces them.
	c.ExtraDelays = []sim.ExtraDelay{{
		From: int(s.Uint64N(uint64(c.Replicas))), To: packetsim.AnyNode, Ticks: s.Range(100, 400)}}

	// The robust protocol in most seeds; without backoff in some, which
	// makes view changes follow one another faster.
	c.Protocol.BackoffOff = s.Uint64N(4) == 0
}
