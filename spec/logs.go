package spec

// one_log_per_view: a view has one log. Its primary states it (the
// StartView of its merge, then its Prepares), backups relay it (a relayed
// StartView, a forwarded Prepare), and a replica whose log_view is that view
// votes it (a DoViewChange). A vote or relay that names, at some op, another
// entry than the one the view's own messages stated there describes a log
// the view never had: a leftover of an older log its holder could not tell
// from the view's (a restart that kept an entry below a break or a gap in its
// chain, D74 and D75), which the merge would weigh as the view's. Until a
// rule read it, such a vote passed unless a schedule made the merge keep the
// leftover and commit it over the committed op.

// viewLogs holds the entries views stated, by op: for each op a list,
// through next, of the views that stated it and the checksum each did. Two
// slices that grow by doubling, so a run allocates for it a logarithmic
// number of times however long it runs.
type viewLogs struct {
	first []int32 // by op: 1 + the index in nodes of its latest entry, 0 for none
	nodes []viewSum
	// heads holds each view's highest op stated (a StartView's head, a
	// Prepare's op), in the order views first stated one.
	heads []viewOp
}

// viewOp is a view and an op of it.
type viewOp struct{ view, op uint64 }

type viewSum struct {
	view, sum uint64
	next      int32 // 1 + the index of the op's previous entry, 0 for none
}

func (l *viewLogs) reset() {
	l.first, l.nodes, l.heads = l.first[:0], l.nodes[:0], l.heads[:0]
}

// head is the highest op view v stated, if it stated one; raise records op.
func (l *viewLogs) head(v uint64) (uint64, bool) {
	for k := len(l.heads) - 1; k >= 0; k-- {
		if l.heads[k].view == v {
			return l.heads[k].op, true
		}
	}
	return 0, false
}

func (l *viewLogs) raise(v, op uint64) {
	for k := len(l.heads) - 1; k >= 0; k-- {
		if l.heads[k].view == v {
			l.heads[k].op = max(l.heads[k].op, op)
			return
		}
	}
	l.heads = append(l.heads, viewOp{v, op})
}

// get is the checksum view v stated at op, if it stated one.
func (l *viewLogs) get(v, op uint64) (uint64, bool) {
	if op >= uint64(len(l.first)) {
		return 0, false
	}
	for k := l.first[op]; k != 0; k = l.nodes[k-1].next {
		if n := &l.nodes[k-1]; n.view == v {
			return n.sum, true
		}
	}
	return 0, false
}

// put records that view v stated (op, sum), unless it stated op already:
// the first entry stated stands.
func (l *viewLogs) put(v, op, sum uint64) {
	if _, ok := l.get(v, op); ok || sum == 0 {
		return
	}
	for uint64(len(l.first)) <= op {
		l.first = append(l.first, 0)
	}
	l.nodes = append(l.nodes, viewSum{view: v, sum: sum, next: l.first[op]})
	l.first[op] = int32(len(l.nodes))
}

// stateOnWire records the entries a Prepare (of its view) or a StartView
// (of its log_view) states, once it left for the network: a message a crash
// kept in the harness stated nothing (a primary-elect whose StartView waited
// for its superblock and never left may merge its view again from other
// votes after its restart, swarm seed 55). The first entry stated stands.
func (m *Model) stateOnWire(msg *Message) {
	switch msg.Command {
	case CmdPrepare:
		m.logs.put(msg.View, msg.Op, msg.Checksum)
		m.logs.raise(msg.View, msg.Op)
	case CmdStartView:
		m.logs.raise(msg.LogView, msg.Op)
		for k := range msg.Suffix {
			if e := &msg.Suffix[k]; !e.Nack {
				m.logs.put(msg.LogView, e.Op, e.Checksum)
			}
		}
	}
}

// checkOneLog judges the entries a Prepare, a StartView or a DoViewChange
// states for its log_view (a Prepare's: its view) against what the view's
// messages on the wire stated. A vote's entries are judged, never recorded:
// a vote says what its sender holds, and only a view's primary and its
// relays state what the view's log is.
func (m *Model) checkOneLog(i int, msg *Message) {
	switch msg.Command {
	case CmdPrepare:
		if other, ok := m.logs.get(msg.View, msg.Op); ok && other != msg.Checksum {
			m.failOp(i, msg.Op, RuleOneLogPerView, "sends %s, where view %d's log stated checksum %x", msg.String(), msg.View, other)
		}
	case CmdStartView, CmdDoViewChange:
		if head, ok := m.logs.head(msg.LogView); ok && msg.Command == CmdDoViewChange && msg.Op > max(head, msg.Commit) && m.primary(msg.LogView) != i {
			// A backup of log_view L holds only what L's messages gave
			// it, and what it knows committed (a state transfer from a
			// peer of a later view installs ops L never stated: swarm
			// seeds 3238018388 and 3238049189 from 0xc0ffee00); its
			// primary may hold ops it prepared that never left.
			m.fail(i, RuleOneLogPerView, "sends %s announcing head %d, above op %d, the highest log_view %d's messages stated, though it is not that view's primary",
				msg.String(), msg.Op, head, msg.LogView)
			return
		}
		for k := range msg.Suffix {
			e := &msg.Suffix[k]
			if e.Nack || e.Checksum == 0 {
				continue
			}
			if other, ok := m.logs.get(msg.LogView, e.Op); ok && other != e.Checksum {
				m.failOp(i, e.Op, RuleOneLogPerView, "sends %s naming op %d checksum %x (present %t, unsure %t), where log_view %d's log stated checksum %x",
					msg.String(), e.Op, e.Checksum, e.Present, e.Unsure, msg.LogView, other)
				return
			}
			// Below a StartView's suffix (its commit point) the view's log
			// holds what was committed: an op applied in log_view L or
			// before is L's, whichever view stated it.
			if !m.keepsApplied(msg.LogView, e.Op, e.Checksum) {
				m.failOp(i, e.Op, RuleOneLogPerView, "sends %s naming op %d checksum %x (present %t, unsure %t), where a replica applied checksum %x in view %d",
					msg.String(), e.Op, e.Checksum, e.Present, e.Unsure, m.applied[e.Op].sum, m.applied[e.Op].view)
				return
			}
		}
	}
}
