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
