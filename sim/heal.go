package sim

import (
	"fmt"
	"slices"
)

// healsInstead heals replica i, and reports so, where the cut-off the harness
// was about to give it (rule's kind, for cause) would strand an op: the
// oracle's record says the core could decide the op with i in reach and could
// not without it (Checker.Strands). A cut-off is help for a source protocol's
// known livelock; one that takes the core's last copy of an op, or a nack it
// needs, turns that help into the run's end (swarm seed 1488: the straggler
// cut off 3,000 ticks into the stall held op 5, whose other copy the disk of
// r0 had lost). Healing the faults that make i a straggler ends the livelock
// the cut-off was for and leaves the op in reach (D64).
func (c *Cluster) healsInstead(i int, rule, cause string) bool {
	op, ok := c.checker.Strands(i)
	if !ok {
		return false
	}
	c.heal(i, rule, fmt.Sprintf("%s; a cut-off would leave op %d undecidable in the core", cause, op))
	return true
}

// heal takes away every fault the liveness phase keeps on replica i's links
// among replicas: the extra delays (which draw nothing, so no stream moves)
// and the cuts kept down for good. The heal is an assist, with a trace note.
func (c *Cluster) heal(i int, rule, cause string) {
	st := &c.aimed
	nodes := c.nodes()
	for j := 0; j < c.cfg.Replicas; j++ {
		if j != i {
			c.net.SetExtraDelay(i, j, 0)
			c.net.SetExtraDelay(j, i, 0)
		}
	}
	st.keptLinks = slices.DeleteFunc(st.keptLinks, func(l int) bool {
		from, to := l/nodes, l%nodes
		if from != i && to != i {
			return false
		}
		c.net.SetLinkDown(from, to, false)
		return true
	})
	st.kept = slices.DeleteFunc(st.kept, func(k int) bool { return k == i })
	c.checker.ServesAgain(i)
	c.Note(fmt.Sprintf("r%d outside the core holds what the core needs: healed", i))
	c.assist(i, rule, cause)
}
