package spec

// sentRepair judges a repaired body replica i serves with a commit point
// (repair_serves_log): it vouches that its log holds the body, so at or below
// that point it is the op some replica applied there, and above it, where
// the view it serves in stated an entry on the wire, that entry. A body
// served with no commit point (set aside, or a record an amnesiac restart
// could not place) vouches for nothing: the requester's own check decides.
func (m *Model) sentRepair(i int, r *replicaState, msg *Message) {
	if msg.Commit == 0 || !r.wasIn(StatusNormal, msg.View) {
		return
	}
	if msg.Commit > r.settled {
		m.failOp(i, msg.Op, RuleVouchApplied, "serves %s op %d with commit point %d, above op %d, the highest it applied, checkpointed or installed: it vouches for a body its own log has not proven",
			msg.String(), msg.Op, msg.Commit, r.settled)
		return
	}
	o := msg.Op
	if o <= msg.Commit {
		if o < uint64(len(m.applied)) && m.applied[o].sum != 0 && m.applied[o].sum != msg.Checksum {
			m.failOp(i, o, RuleRepairServesLog, "serves %s op %d checksum %x with commit point %d, where a replica applied checksum %x",
				msg.String(), o, msg.Checksum, msg.Commit, m.applied[o].sum)
		}
		return
	}
	if stated, ok := m.logs.get(msg.View, o); ok && stated != msg.Checksum {
		m.failOp(i, o, RuleRepairServesLog, "serves %s op %d checksum %x with commit point %d, where view %d's messages stated checksum %x",
			msg.String(), o, msg.Checksum, msg.Commit, msg.View, stated)
	}
}

// sentCommitOk judges the commit point a backup tells its primary
// (vouch_applied): the primary takes it for the op the backup has applied
// and its checksum for that op's, so both are the backup's own.
func (m *Model) sentCommitOk(i int, r *replicaState, msg *Message) {
	switch {
	case msg.Commit > r.settled:
		m.fail(i, RuleVouchApplied, "sends %s commit=%d, above op %d, the highest it applied, checkpointed or installed", msg.String(), msg.Commit, r.settled)
	case msg.Commit != 0 && msg.Commit < uint64(len(m.applied)) && m.applied[msg.Commit].sum != 0 && m.applied[msg.Commit].sum != msg.Checksum:
		m.failOp(i, msg.Commit, RuleVouchApplied, "sends %s commit=%d with checksum %x, where a replica applied checksum %x",
			msg.String(), msg.Commit, msg.Checksum, m.applied[msg.Commit].sum)
	}
}

// sentChunk judges a state-transfer chunk (vouch_applied): the checkpoint it
// carries states that its op was applied with that checksum, and the
// requester installs it as committed, so the sender applied it.
func (m *Model) sentChunk(i int, r *replicaState, msg *Message) {
	switch {
	case msg.Op > r.settled:
		m.failOp(i, msg.Op, RuleVouchApplied, "sends %s of a checkpoint at op %d, above op %d, the highest it applied, checkpointed or installed", msg.String(), msg.Op, r.settled)
	case msg.Op < uint64(len(m.applied)) && m.applied[msg.Op].sum != 0 && m.applied[msg.Op].sum != msg.Checksum:
		m.failOp(i, msg.Op, RuleVouchApplied, "sends %s of a checkpoint at op %d with checksum %x, where a replica applied checksum %x",
			msg.String(), msg.Op, msg.Checksum, m.applied[msg.Op].sum)
	}
}
