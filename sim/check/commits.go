package check

// commitRecord is what the oracle knows of a committed op: a primary decided
// it, on a replication quorum the oracle saw for itself.
type commitRecord struct {
	checksum uint64 // 0: not committed
	parent   uint64
	view     uint64 // the view its primary committed it in
	client   int    // client index, NoClient for an op no client asked for
	request  uint64
	result   uint64 // the oracle's model's result
	replied  bool
	quorum   uint16 // the acks the primary committed it on
	state    uint64 // StateHash of the model once this op applied
}

// NoClient marks an op no client issued (a no-op).
const NoClient = -1

// PrimaryCommit records that replica p, as primary of view, committed op
// (checksum, parent), which executes request number request of client
// (NoClient: none). Only a Normal primary of its view may commit, an op it
// has not committed before only in order, and only on a replication quorum of
// acks it could count in that view.
func (c *Checker) PrimaryCommit(tick uint64, p int, view, op, checksum, parent uint64, client int, request uint64) {
	r := &c.replicas[p]
	if p != c.primaryOf(view) || r.status != StatusNormal || r.view != view {
		c.fail(tick, about(op, p), InvCommitQuorum, "r%d (%s in view %d) committed op %d csum=%04x as if primary of view %d",
			p, r.status, r.view, op, short(checksum), view)
		return
	}
	s := c.ackSetFor(op, view, checksum, parent)
	if got := c.countedAcks(s); popcount(got) < c.qRep {
		c.fail(tick, about(op, p), InvCommitQuorum, "r%d (primary of view %d) committed op %d csum=%04x on acks from %s; a replication quorum is %d (acks delivered: %s)",
			p, view, op, short(checksum), replicaList(got), c.qRep, replicaList(s.ackers))
		return
	}
	c.committed = grow(c.committed, op+1)
	if rec := &c.committed[op]; rec.checksum != 0 {
		if rec.checksum != checksum {
			c.fail(tick, about(op, p), InvAgreement, "r%d (primary of view %d) committed op %d csum=%04x, but op %d committed as csum=%04x in view %d",
				p, view, op, short(checksum), op, short(rec.checksum), rec.view)
		}
		return
	}
	if op != c.top+1 {
		c.fail(tick, about(op, p), InvCommitOrder, "r%d (primary of view %d) committed op %d while op %d is the highest committed op", p, view, op, c.top)
		return
	}
	if prev := c.committed[op-1].checksum; op > 1 && prev != 0 && parent != prev {
		c.fail(tick, about(op, p), InvParentChain, "r%d committed op %d with parent %04x, but op %d is csum=%04x",
			p, op, short(parent), op-1, short(prev))
		return
	}
	var body Op
	if client != NoClient {
		req := c.request(client, request)
		switch {
		case req == nil:
			c.fail(tick, about(op, p), InvExactlyOnce, "r%d committed op %d as request %d of client c%d, which that client never issued", p, op, request, client)
			return
		case req.executed != 0:
			c.fail(tick, about(op, p), InvExactlyOnce, "request %d of client c%d executed twice: at op %d and again at op %d", request, client, req.executed, op)
			return
		}
		req.executed = op
		body = req.op
	}
	c.committed[op] = commitRecord{checksum: checksum, parent: parent, view: view, client: client, request: request,
		result: c.model.apply(body), quorum: c.countedAcks(s), state: c.model.hash}
	c.top = op
	c.modelOp = op
	c.lastCommitAt = tick
}

// Apply records that live replica i applied op (checksum, parent) with
// result. Every replica applies in order, one op at a time, only what a
// primary committed, and gets the result the oracle's model gives.
func (c *Checker) Apply(tick uint64, i int, op, checksum, parent, result uint64) {
	r := &c.replicas[i]
	switch {
	case op <= r.applied:
		c.fail(tick, about(op, i), InvMonotonicity, "r%d committed op %d after op %d", i, op, r.applied)
		return
	case op > r.applied+1:
		c.fail(tick, about(op, i), InvCommitOrder, "r%d applied op %d but its last applied op is %d: commit_min advances by one", i, op, r.applied)
		return
	}
	if op >= uint64(len(c.committed)) || c.committed[op].checksum == 0 {
		c.fail(tick, about(op, i), InvCommitQuorum, "r%d (%s in view %d) applied op %d csum=%04x before any primary committed it",
			i, r.status, r.view, op, short(checksum))
		return
	}
	rec := &c.committed[op]
	if rec.checksum != checksum {
		c.fail(tick, about(op, i), InvAgreement, "r%d committed op %d csum=%04x but op %d is csum=%04x elsewhere",
			i, op, short(checksum), op, short(rec.checksum))
		return
	}
	if parent != rec.parent {
		c.fail(tick, about(op, i), InvParentChain, "r%d applied op %d with parent %04x, but it committed with parent %04x",
			i, op, short(parent), short(rec.parent))
		return
	}
	if result != rec.result {
		c.fail(tick, about(op, i), InvApplyResult, "r%d applied op %d with result %d; the oracle's model of the committed sequence gives %d",
			i, op, result, rec.result)
		return
	}
	r.applied = op
	if len(r.cpLost) > 0 {
		c.regained(tick, i, op)
	}
	c.hold(i, op, checksum)
	c.checkWhole(i)
}

// Install records that replica i installed a state-transfer checkpoint at
// op, whose prepare has checksum sum and whose key-value state has StateHash
// state. The state is checked against the oracle's own model at that op, not
// taken on the replica's word.
func (c *Checker) Install(tick uint64, i int, op, sum, state uint64) {
	r := &c.replicas[i]
	if op < r.applied {
		c.fail(tick, aboutReplica(i), InvMonotonicity, "r%d state transfer rewound commit %d -> %d", i, r.applied, op)
	}
	if op > c.top {
		c.fail(tick, about(op, i), InvCommitQuorum, "r%d installed a checkpoint at op %d above every committed op (%d)", i, op, c.top)
	}
	if op > 0 && op <= c.top {
		rec := &c.committed[op]
		switch {
		case rec.checksum != sum:
			c.fail(tick, about(op, i), InvAgreement, "r%d installed a checkpoint at op %d csum=%04x, but op %d committed as csum=%04x",
				i, op, short(sum), op, short(rec.checksum))
		case rec.state != state:
			c.fail(tick, about(op, i), InvCheckpoint, "r%d installed a state at op %d with digest %04x; the oracle's model there gives %04x",
				i, op, short(state), short(rec.state))
		}
	}
	r.applied = op
	if len(r.cpLost) > 0 {
		c.regained(tick, i, op)
	}
	c.checkWhole(i)
}

// Checkpoint records replica i's state checksum at a checkpoint op: every
// replica must reach the same state there.
func (c *Checker) Checkpoint(tick uint64, i int, op, state uint64) {
	c.checkpoints = grow(c.checkpoints, op)
	if have := c.checkpoints[op]; have != 0 && have != state {
		c.fail(tick, about(op, i), InvCheckpoint, "r%d checkpoint at op %d has state %04x, another replica had %04x",
			i, op, short(state), short(have))
		return
	}
	c.checkpoints[op] = state
}

// DropKind says how a replica dropped a journal entry.
type DropKind uint8

// Drop kinds.
const (
	DropTruncate      DropKind = iota // a view change cut the entry from this replica's journal
	DropMergeTruncate                 // the primary-elect's merge cut the op from the canonical log
	DropPrune                         // an entry at or below commit_max dropped as unverifiable
)

var dropKindNames = [...]string{DropTruncate: "truncation", DropMergeTruncate: "merge", DropPrune: "prune"}

func (k DropKind) String() string { return dropKindNames[k] }

// Dropped records that replica i, in view, dropped (op, checksum) from its
// journal or from the canonical log (nacks: the merge's nack count).
func (c *Checker) Dropped(tick uint64, i int, kind DropKind, view, op, checksum, nacks uint64) {
	if op < uint64(len(c.committed)) {
		if rec := &c.committed[op]; rec.checksum == checksum && c.droppedAfterCommit(i, kind, rec, view) {
			replied := ""
			if rec.replied {
				replied = ", and its client got the reply"
			}
			c.fail(tick, about(op, i), InvDurability, "r%d's view-%d %s dropped committed op %d csum=%04x with %d nacks (committed in view %d on acks from %s%s)",
				i, view, kind, op, short(checksum), nacks, rec.view, replicaList(rec.quorum), replied)
			return
		}
	}
	if s, ok := c.mustSurvive(op, checksum, view, false); ok {
		c.fail(tick, about(op, i), InvAckedDurability, "r%d's view-%d %s dropped op %d csum=%04x (%d nacks), but %s acked it in view %d and still hold it",
			i, view, kind, op, short(checksum), nacks, replicaList(s.ackers&s.intact), s.view)
		return
	}
	if s, ok := c.mustSurvive(op, checksum, view, true); ok {
		sub := about(op, i)
		sub.forgot = s.ackers & s.forgot
		c.fail(tick, sub, InvAckedDurability, "r%d's view-%d %s dropped op %d csum=%04x (%d nacks), but %s acked it in view %d and still hold it%s",
			i, view, kind, op, short(checksum), nacks, replicaList(s.ackers&(s.intact|s.forgot)), s.view, forgotNote(sub.forgot))
		return
	}
	if s, ok := c.countedQuorumAck(i, op, checksum, view); ok {
		c.fail(tick, about(op, i), InvAckedDurability, "r%d's view-%d %s dropped op %d csum=%04x, but its own ack was counted in that view's replication quorum (%s)",
			i, view, kind, op, short(checksum), replicaList(c.countedAcks(s)))
		return
	}
	c.withdrawCopy(i, op, checksum)
	c.dropBody(i, op, checksum)
}

// droppedAfterCommit reports whether replica i's drop in view dropView
// contradicts the commit rec. A view change decides a log from what was
// committed in earlier views, so a StartView of the commit's own view,
// delivered late, may cut a backup's copy that the commit never counted (it
// fetches it again); a copy whose ack the commit counted may not go, nor may
// any copy in a later view. A prune is no view's decision: a replica never
// discards a committed op it holds.
func (c *Checker) droppedAfterCommit(i int, kind DropKind, rec *commitRecord, dropView uint64) bool {
	if kind == DropPrune {
		return rec.view <= dropView
	}
	if rec.view == dropView {
		return rec.quorum&(1<<uint(i)) != 0
	}
	return rec.view < dropView
}

// Reply records a reply delivered to client (by index): request number
// request, executed at op with result.
func (c *Checker) Reply(tick uint64, client int, request, op, result uint64) {
	if op >= uint64(len(c.committed)) || c.committed[op].checksum == 0 {
		c.fail(tick, about(op), InvClientResult, "client c%d got a reply for op %d (request %d) that no replica committed", client, op, request)
		return
	}
	rec := &c.committed[op]
	if rec.client != client || rec.request != request {
		c.fail(tick, about(op), InvClientResult, "client c%d got a reply to request %d naming op %d, which executed request %d of client c%d",
			client, request, op, rec.request, rec.client)
		return
	}
	if result != rec.result {
		c.fail(tick, about(op), InvClientResult, "client c%d request %d: reply says op %d result=%d, the oracle's model gives %d",
			client, request, op, result, rec.result)
		return
	}
	rec.replied = true
	if !c.live.active {
		return
	}
	c.live.lastReplyAt = tick
	if req := c.request(client, request); req != nil && req.inLiveness {
		c.live.servedNew = true
	}
}

// CommittedMax is the highest op committed anywhere.
func (c *Checker) CommittedMax() uint64 { return c.top }

// Committed returns the checksum op committed with, if it did.
func (c *Checker) Committed(op uint64) (uint64, bool) {
	if op < uint64(len(c.committed)) && c.committed[op].checksum != 0 {
		return c.committed[op].checksum, true
	}
	return 0, false
}

// checkEnd runs once the core has converged: an op that a replication quorum
// acked and still holds, down its chain, must be in the committed log.
func (c *Checker) checkEnd(tick uint64) {
	for op := range c.acks {
		for k := range c.acks[op] {
			s := &c.acks[op][k]
			if _, ok := c.mustSurvive(uint64(op), s.checksum, ^uint64(0), true); !ok {
				continue
			}
			have, committed := c.Committed(uint64(op))
			if committed && have == s.checksum {
				continue
			}
			sub := about(uint64(op))
			if _, ok := c.mustSurvive(uint64(op), s.checksum, ^uint64(0), false); !ok {
				sub.forgot = s.ackers & s.forgot // the quorum stands only with promises a disk took
			}
			switch {
			case !committed:
				c.fail(tick, sub, InvAckedDurability, "op %d csum=%04x was acked in view %d by %s, who still hold it%s, but the converged log ends at %d",
					op, short(s.checksum), s.view, replicaList(s.ackers&(s.intact|sub.forgot)), forgotNote(sub.forgot), c.top)
				return
			case have != s.checksum:
				c.fail(tick, sub, InvAckedDurability, "op %d csum=%04x was acked in view %d by %s, who still hold it%s, but csum=%04x committed",
					op, short(s.checksum), s.view, replicaList(s.ackers&(s.intact|sub.forgot)), forgotNote(sub.forgot), short(have))
				return
			}
		}
	}
}

// forgotNote names, in a finding's evidence, the ackers whose promise a
// regressed superblock took (none: nothing).
func forgotNote(forgot uint16) string {
	if forgot == 0 {
		return ""
	}
	return " (but " + replicaList(forgot) + " forgot it to a regressed superblock)"
}
