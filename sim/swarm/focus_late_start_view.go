package swarm

import (
	"vsrsim/prng"
	"vsrsim/replica"
	"vsrsim/sim"
)

// focusLateStartView draws the conditions under which a StartView reaches a
// replica after it applied and checkpointed past the StartView's head, lost
// its journal in a restart and is recovering: the StartView gate's
// below-commit drop (drop-below-commit). A replica Normal in the view refuses
// every StartView of it unread (in-view), so only a recovering amnesiac
// replica looks at the head; and a StartView sent to it on time carries a
// head at or above anything it applied. Most late StartViews are answers to
// its own probes, or to its votes in a view change that had already ended,
// sent in a burst while it rejoined: it adopts the first to arrive.
//
//   - memory journals, frequent crashes and short restarts: a replica
//     recovers again and again, and is back before a late packet lands;
//   - a checkpoint every few ops, so a few commits move the restart point
//     past a StartView's head (a checkpoint is where an amnesiac restarts);
//   - a large share of packets held back for longer than a replica's life
//     between crashes (thousands of ticks), and many duplicated, so some
//     answer of a burst outlives the next restart; shorter holds land while
//     the replica is still Normal, where the StartView is refused unread;
//   - five to seven replicas: more of them restart within the bound of f
//     down, and a busy workload keeps ops committing through it all.
//
// Every protocol option stays as drawn.
func focusLateStartView(s *prng.Stream, c *sim.Config, slice uint64) {
	c.Durability = replica.DurabilityMemory
	// Only raised: the earlier draws' extra delays name replicas below the
	// drawn count.
	c.Replicas = max(c.Replicas, 5)
	if slice != 0 {
		c.Replicas = max(c.Replicas, int(s.Range(5, 7)))
	}
	c.JournalSlots = 64
	c.CheckpointInterval = s.Range(1, 4)
	c.CrashChance = prng.Ratio{Num: 1, Den: uint32(s.Range(500, 1500))}
	c.RestartMeanTicks = s.Range(20, 200)
	n := &c.Network
	n.Reorder = prng.Ratio{Num: 1, Den: uint32(s.Range(2, 4))}
	n.ReorderMaxTicks = s.Range(3000, 6000)
	n.Replay = prng.Ratio{Num: 1, Den: uint32(s.Range(2, 4))}
	c.RequestMeanTicks = s.Range(2, 15)
	c.Clients = max(c.Clients, int(s.Range(6, 10)))
}
