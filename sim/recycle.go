package sim

import "vsrsim/replica"

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

// release recycles every replica's journal; the cluster is finished. A
// restarted replica shares its write-ahead journal with the Durable it came
// from, so each journal is released once: a live replica's, or a crashed
// one's Durable.
func (c *Cluster) release() {
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
