package spec

// amnesia_holds: a replica whose restart read back no whole superblock copy,
// and no blank one (a copy never written says it never promised anything),
// remembers neither its view, nor its log_view, nor what it acked; it comes
// back amnesiac, and every superblock it writes until a view's primary
// hands it a view says so, so a restart in between comes back amnesiac
// again. Until then it votes nothing and serves no view: it reports
// Recovering, and leaves it only for Normal on a StartView delivered to it.
// Before this rule a slip that read such a superblock back as a whole one
// (tools/mutants' amnesiac-superblock-read-whole) showed only once its vote
// cut an op it had acked before the loss.

// Forgot records that replica i's restart read back every superblock copy
// damaged (the harness's record of the bytes its reads returned). The mark holds
// across later restarts until the replica enters Normal.
func (m *Model) Forgot(i int) { m.replicas[i].forgot = true }

// amnesiaHolds judges a status report of an amnesiac replica, and reports
// whether it holds; entering Normal on a StartView ends its amnesia.
func (m *Model) amnesiaHolds(i int, r *replicaState, st Status, view uint64) bool {
	if !r.forgot || st == StatusRecovering {
		return true
	}
	c := &r.cause
	if st == StatusNormal && c.delivered && c.msg.Command == CmdStartView && c.msg.View == view {
		r.forgot = false
		return true
	}
	m.fail(i, RuleAmnesiaHolds, "reports %s in view %d, amnesiac since a restart read back every superblock copy damaged, with no StartView of that view delivered", st, view)
	// The loss is this rule's premise, never its excuse: the promise to
	// come back amnesiac is made and broken in this life.
	m.promisedIn(RuleAmnesiaHolds, r.lives)
	return false
}
