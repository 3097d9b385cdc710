package sim

import (
	"fmt"

	"vsrsim/prng"
)

// The stale ask (Storage.AimedStaleAsk; issue 38 item 9): an aimed lost
// rewrite leaves a replica's slot holding an older entry of the op its
// journal names, which verifies on its own. A replica that serves repairs
// from its disk must refuse it (repair-serves-unread), but the refusal shows
// only when a peer asks that replica for that op before its scrubber or a
// restart mends the slot, and the swarm draws the two apart: the switch was
// first caught at swarm seed 2338. The harness joins them from what it
// knows (the write it lost, its own crashes and cuts): it crashes a peer as
// the rewrite is lost, so the peer is likely to miss the new entry, or arms
// one that is down already, and from the peer's restart its messages reach
// the stale replica alone for a while, so the repair it needs goes there.
// It never reads a replica's state; every crash keeps the crash injectors'
// bound, and a recording replays each action as the crash and the cuts it
// took.

// staleAskState is the harness's record of the peers steered so.
type staleAskState struct {
	// rng draws them: a stream of its own, so a seed's other aimed faults
	// keep their draws.
	rng *prng.Stream
	// server holds, per replica armed, the replica whose disk kept the
	// stale entry, plus one (0: not armed); op the op it kept.
	server []int
	op     []uint64
	// due: stale entries found this tick, steered at as the next starts.
	due []staleDue
}

// staleDue is a stale entry waiting for its peer.
type staleDue struct {
	server int
	op     uint64
}

func (st *staleAskState) start(seed uint64, n int) {
	st.rng = prng.New(seed, prng.StreamDiskStaleAsk)
	st.server = make([]int, n)
	st.op = make([]uint64, n)
}

// aimStaleAsk runs as an aimed lost rewrite leaves replica i's slot of op
// holding an older entry of it: with chance AimedStaleAsk a peer is steered
// at i as the next tick starts (a disk's write path is no place to crash
// another replica).
func (c *Cluster) aimStaleAsk(i int, op uint64) {
	st := &c.disks.staleAsk
	if st.rng == nil || c.liveness.active || !st.rng.Chance(c.cfg.Storage.AimedStaleAsk) {
		return
	}
	st.due = append(st.due, staleDue{server: i, op: op})
}

// injectStaleAsk runs as a fault-phase tick starts and steers a peer at each
// stale entry found since: a peer down already is armed; else one up that
// is neither the stale replica nor the current primary is crashed, within
// the bound, and armed.
func (c *Cluster) injectStaleAsk() {
	if c.disks == nil || len(c.disks.staleAsk.due) == 0 {
		return
	}
	st := &c.disks.staleAsk
	for _, d := range st.due {
		c.steerStaleAsk(d.server, d.op)
	}
	st.due = st.due[:0]
}

func (c *Cluster) steerStaleAsk(i int, op uint64) {
	st := &c.disks.staleAsk
	n := c.cfg.Replicas
	primary, hasPrimary := c.currentPrimary()
	from := int(st.rng.Uint64N(uint64(n)))
	for k := 0; k < n; k++ {
		p := (from + k) % n
		if p == i || (hasPrimary && p == primary) || st.server[p] != 0 {
			continue
		}
		if c.replicas[p] == nil {
			c.armStaleAsk(p, i, op, "down")
			return
		}
		if !c.crashKeepsQuorum(p) {
			continue
		}
		c.armStaleAsk(p, i, op, "crashed")
		c.Crash(p)
		c.recordNode("crash", p)
		c.restartAt[p] = c.now + 1 + st.rng.Exponential(c.cfg.RestartMeanTicks)
		return
	}
}

// armStaleAsk arms replica p, whose restart will reach server alone.
func (c *Cluster) armStaleAsk(p, server int, op uint64, how string) {
	st := &c.disks.staleAsk
	st.server[p], st.op[p] = server+1, op
	c.noteRecorded(fmt.Sprintf("aimed stale ask: r%d %s, its restart will reach r%d alone (op %d's stale entry)", p, how, server, op))
}

// staleAskOnRestart runs as replica p restarts: if armed, its links to every
// replica but the stale one go down for a while (it still hears all of
// them), so the repairs it asks for reach that replica alone.
func (c *Cluster) staleAskOnRestart(p int) {
	if c.disks == nil || c.disks.staleAsk.server == nil || c.disks.staleAsk.server[p] == 0 {
		return
	}
	st := &c.disks.staleAsk
	server := st.server[p] - 1
	st.server[p] = 0
	if c.liveness.active || c.replicas[server] == nil {
		return
	}
	var links []int
	nodes := c.nodes()
	for y := 0; y < c.cfg.Replicas; y++ {
		if y != p && y != server {
			links = append(links, p*nodes+y)
		}
	}
	if len(links) == 0 {
		return
	}
	until := c.now + 1 + st.rng.Range(2*c.lateTicks(), 6*c.lateTicks())
	c.noteRecorded(fmt.Sprintf("aimed stale ask: r%d restarted, its links out but to r%d cut until t=%d (op %d)", p, server, until, st.op[p]))
	c.holdLinks(links, until)
	c.stats.DirectedCuts++
}
