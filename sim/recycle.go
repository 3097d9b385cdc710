package sim

import (
	"vsrsim/packetsim"
	"vsrsim/replica"
	"vsrsim/sim/check"
)

// Journal memory is most of what a run allocates. A finished run, and a
// replica that crashes on a memory journal, hand theirs back (replica.Release)
// for the replicas made next in this process: a sweep worker's next run, a
// restart. It changes no run: recycled memory comes back cleared.

// releaseCrashed recycles the journal of replica r, which just crashed, if its
// durable state does not keep it.
func (c *Cluster) releaseCrashed(r *replica.Replica) {
	if c.cfg.Durability != replica.DurabilityWAL {
		r.Release()
	}
}

// release recycles every replica's journal, and into spare, if not nil, the
// network's and the trace's memory; the cluster is finished. A restarted
// replica shares its write-ahead journal with the Durable it came from, so
// each journal is released once: a live replica's, or a crashed one's
// Durable.
func (c *Cluster) release(spare *Spare) {
	if spare != nil {
		c.net.Recycle(&spare.net)
		spare.trace = c.trace
		spare.checker = c.checker
	}
	for i, r := range c.replicas {
		if r != nil {
			r.Release()
		} else {
			c.durable[i].Release()
		}
		c.replicas[i] = nil
		c.durable[i] = replica.Durable{}
	}
}

// Spare is the memory a finished run leaves for the next run of the same
// worker (Attach.Spare): the replicas' journals, the network's packet pool and
// queue, the trace, the oracle's records. One run at a time, and, like replica.Spare, it changes
// nothing a run does: what comes back is cleared.
type Spare struct {
	// Replica is lent to the run's replicas (replica.Options.Spare).
	Replica replica.Spare
	net     packetsim.Spare[replica.Message]
	trace   *Trace
	checker *check.Checker
}

// replicaOptions are replica i's options, lent the spare's journals if the
// run has a spare.
func (c *Cluster) replicaOptions(i int) replica.Options {
	o := c.cfg.ReplicaOptions(i)
	if c.spare != nil {
		o.Spare = &c.spare.Replica
	}
	return o
}

// takeChecker returns the oracle spare holds, if any, and forgets it.
func (s *Spare) takeChecker() *check.Checker {
	if s == nil {
		return nil
	}
	c := s.checker
	s.checker = nil
	return c
}
