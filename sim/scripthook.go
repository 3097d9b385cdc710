package sim

// LivenessStarter is a Script told when the liveness phase begins: after the
// network is healed and the core chosen, before the core restarts. A scenario
// file's script uses it to drop its scripted faults, or, with
// LivenessKeepFaults, to put back those on links of replicas outside the core.
type LivenessStarter interface {
	LivenessStart(c *Cluster, core []int)
}
