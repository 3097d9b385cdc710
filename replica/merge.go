package replica

import (
	"fmt"
	"math/bits"
	"vsrsim/vsr"
)

// The DoViewChange merge (VRR section 4.2, protocol.md "View change") as a
// pure function: votes in, decision out. The replica only gathers the votes
// and installs what the decision says (tryMerge); everything here is a
// function of the votes alone, so merge_test.go can hold it against a naive
// twin over generated votes.

// opVerdict is the merge's decision on one op above the commit point.
type opVerdict uint8

const (
	// opCanonical: a header is known and at least one voter holds its body.
	opCanonical opVerdict = iota + 1
	// opTruncated: a nack quorum proves the op never committed; the log ends
	// below it.
	opTruncated
	// opAwaitHeader: no canonical vote describes the op and too few nack it.
	opAwaitHeader
	// opAwaitBody: the header is known but no voter holds the body.
	opAwaitBody
)

func (v opVerdict) String() string {
	switch v {
	case opCanonical:
		return "canonical"
	case opTruncated:
		return "truncated"
	case opAwaitHeader:
		return "await-header"
	case opAwaitBody:
		return "await-body"
	}
	return fmt.Sprintf("opVerdict(%d)", uint8(v))
}

// opDecision is the merge's reasoning about one op: the canonical header (if
// any vote from the canonical log_view describes it), how many votes nack
// it, which voters hold its body, and the verdict.
type opDecision struct {
	op      uint64
	header  vsr.Header
	known   bool
	nacks   int
	present uint16
	unsure  int // votes that hold the header but mark the op unsure
	// implied: no canonical vote describes the op, and the header is the
	// one every version that may have committed must carry (D98).
	implied bool
	// sum: where no vote carries the canonical header, the checksum the
	// canonical op above names as its parent (D112); 0 otherwise.
	sum     uint64
	verdict opVerdict
}

// check asserts how decideOp weighed the n votes on d.op: each vote counts
// once, as a nack, a copy or an unsure, or not at all; and a copy counts only
// against a known header.
func (d *opDecision) check(n int) {
	vsr.Assert(vsr.Unowned, d.nacks+bits.OnesCount16(d.present)+d.unsure <= n, "decide_op_votes_count_once",
		"op %d nacks %d unsure %d", d.op, uint64(d.nacks), uint64(d.unsure))
	vsr.Assert(vsr.Unowned, d.present == 0 || d.known, "decide_op_copy_of_known_header", "op %d", d.op)
}

// mergeResult is the merge's decision. ready is false when some op is
// neither proven nor refuted: the merge waits for more votes, and nothing
// but the decisions up to that op is meaningful.
type mergeResult struct {
	ready     bool
	logView   uint64 // the canonical log_view: the highest any vote states
	votedHead uint64 // the highest head a canonical vote announces
	commit    uint64 // the commit point, with the pipeline-bound inference
	head      uint64 // the merged log's head, after any truncation
	// log holds the canonical headers of commit+1..head, in op order.
	log []vsr.Header
	// sources holds, per op of log, the voters that hold its body.
	sources []uint16
	// truncated holds the known canonical headers from the first nacked op up
	// to votedHead, and truncateNacks the nacks that proved the first.
	truncated     []vsr.Header
	truncateNacks int
	// decisions lists every op the merge looked at, from commit+1 up to the
	// op that truncated the log or made it wait.
	decisions []opDecision
}

// mergeVotes merges the votes of an n-replica cluster: votes[i] is replica
// i's, valid or not. The caller has checked the quorum.
func mergeVotes(votes []dvcVote) mergeResult {
	var res mergeResult
	res.logView, res.commit = mergeBounds(votes)
	for i := range votes {
		if v := &votes[i]; v.valid && v.logView == res.logView && v.op > res.votedHead {
			res.votedHead = v.op
		}
	}
	// The pipeline bound: a primary prepares an op only with fewer than
	// PipelineMax ops above its commit point, so every op more than a window
	// below a prepared head had committed, whether or not a vote's commit
	// reaches it (tryMerge asserts the bound on the head's header).
	if res.votedHead >= vsr.SuffixMax && res.votedHead-(vsr.SuffixMax-1) > res.commit {
		res.commit = res.votedHead - (vsr.SuffixMax - 1)
	}
	top := max(res.votedHead, res.commit)
	res.head = top
	for op := res.commit + 1; op <= top; op++ {
		// The log so far holds commit+1..op-1, one header per op.
		vsr.Assert(vsr.Unowned, uint64(len(res.log)) == op-res.commit-1, "merge_log_consecutive", "op %d commit %d log %d",
			op, res.commit, uint64(len(res.log)))
		d := decideOp(votes, res.logView, op, res.parentOf(votes, op))
		res.decisions = append(res.decisions, d)
		switch d.verdict {
		case opTruncated:
			res.head = op - 1
			res.truncateNacks = d.nacks
			for o := op; o <= top; o++ {
				if h, ok := canonicalHeader(votes, res.logView, o); ok {
					res.truncated = append(res.truncated, h)
				}
			}
			res.ready = true
			// Every op below the truncated one was decided canonical.
			vsr.Assert(vsr.Unowned, len(res.decisions) == len(res.log)+1, "merge_truncates_once", "decisions %d log %d",
				uint64(len(res.decisions)), uint64(len(res.log)))
			return res
		case opAwaitHeader, opAwaitBody:
			return res
		}
		res.log = append(res.log, d.header)
		res.sources = append(res.sources, d.present)
	}
	res.ready = true
	// Nothing truncated or waited: every op up to the top is in the log.
	vsr.Assert(vsr.Unowned, uint64(len(res.log)) == top-res.commit, "merge_ready_log_reaches_top", "commit %d top %d log %d",
		res.commit, top, uint64(len(res.log)))
	return res
}

// mergeBounds returns the canonical log_view and the highest commit point
// any vote states.
func mergeBounds(votes []dvcVote) (logView, commit uint64) {
	for i := range votes {
		if v := &votes[i]; v.valid {
			logView = max(logView, v.logView)
			commit = max(commit, v.commit)
		}
	}
	return logView, commit
}

// canonicalHeader returns the header at op from the lowest-numbered vote of
// the canonical log_view that describes it. Where none does (its voters lost
// the record: a blank, or a nack) but one describes op+1, that header's
// parent is the canonical op's checksum, and the lowest-numbered vote of any
// log_view whose entry at op carries it holds that very header (D89).
func canonicalHeader(votes []dvcVote, logView, op uint64) (vsr.Header, bool) {
	if h, ok := namedHeader(votes, logView, op); ok {
		return h, true
	}
	above, ok := namedHeader(votes, logView, op+1)
	if !ok {
		return vsr.Header{}, false
	}
	for i := range votes {
		if e, ok := votes[i].entry(op); votes[i].valid && ok && !e.Blank() && e.Header.Checksum == above.Parent {
			vsr.Assert(vsr.Unowned, e.Header.Op == op && above.Op == op+1, "parent_header_at_op", "op %d header %d", op, e.Header.Op)
			return e.Header, true
		}
	}
	return vsr.Header{}, false
}

// namedHeader returns the header at op from the lowest-numbered vote of
// logView that describes it.
func namedHeader(votes []dvcVote, logView, op uint64) (vsr.Header, bool) {
	for i := range votes {
		v := &votes[i]
		if !v.valid || v.logView != logView {
			continue
		}
		if e, ok := v.entry(op); ok && !e.Blank() {
			// A recorded vote is readable: its suffix walks down one op
			// at a time from its head, so the entry at op describes op.
			vsr.Assert(vsr.Unowned, e.Header.Op == op, "canonical_header_at_op", "op %d header %d", op, e.Header.Op)
			return e.Header, true
		}
	}
	return vsr.Header{}, false
}

// parentOf is the checksum the merged log's header at op must name as its
// parent: the header decided at op-1, or at the commit point the canonical
// one (at op 0 the genesis entry); 0 where none is known.
func (res *mergeResult) parentOf(votes []dvcVote, op uint64) uint64 {
	if k := len(res.log); k > 0 {
		vsr.Assert(vsr.Unowned, res.log[k-1].Op+1 == op, "merge_parent_below_op", "op %d log ends at %d", op, res.log[k-1].Op)
		return res.log[k-1].Checksum
	}
	if h, ok := canonicalHeader(votes, res.logView, op-1); ok {
		return h.Checksum
	}
	if op == 1 {
		return genesisChecksum // every log starts on the genesis entry
	}
	return 0
}

// decideOp weighs every vote on op (weigh) and decides it. parent is the
// checksum the header at op must chain to (parentOf), 0 if unknown.
func decideOp(votes []dvcVote, logView, op, parent uint64) opDecision {
	d := opDecision{op: op}
	d.header, d.known = canonicalHeader(votes, logView, op)
	if above, ok := namedHeader(votes, logView, op+1); ok && !d.known {
		d.sum = above.Parent
	}
	d.weighAll(votes)
	if !d.known && d.nacks < vsr.QuorumNack(len(votes)) {
		d.implyHeader(votes, logView, parent)
	}
	switch {
	case d.nacks >= vsr.QuorumNack(len(votes)):
		d.verdict = opTruncated
	case !d.known:
		d.verdict = opAwaitHeader
	case d.present == 0:
		d.verdict = opAwaitBody
	default:
		d.verdict = opCanonical
	}
	return d
}

// implyHeader takes, for an op no canonical vote describes and too few
// nack, the header impliedHeader finds, where it chains to parent and no
// canonical vote names the op above (its parent is then the op's checksum,
// D89: a header implied otherwise could only break the chain).
func (d *opDecision) implyHeader(votes []dvcVote, logView, parent uint64) {
	if _, above := namedHeader(votes, logView, d.op+1); above || parent == 0 {
		return
	}
	if h, ok := impliedHeader(votes, d.op); ok && h.Parent == parent {
		*d = opDecision{op: d.op, header: h, known: true, implied: true}
		d.weighAll(votes)
	}
}

// weighAll weighs every valid vote on d's op and checks the count.
func (d *opDecision) weighAll(votes []dvcVote) {
	for i := range votes {
		if votes[i].valid {
			d.weigh(i, &votes[i])
		}
	}
	d.check(len(votes))
}

// impliedHeader names op's header where no canonical vote describes it and
// too few nack it (D98). A version that committed was acked by a
// replication quorum in one view, and each of those voters' logs has held
// it at op ever since (a committed op stays in every later log): its vote
// shows that header, or shows nothing (a blank, an unsure entry, a window
// that stops short). So when the votes that show nothing, with the replicas
// that did not vote, are fewer than a replication quorum, every quorum that
// could have committed a version includes a vote that shows it; if the
// votes that show a header all show the same one, no other version can
// have committed, and the log may carry it: safe whether or not it
// committed. A nack (marked, a head below op, a header held bodiless above
// the commit point) shows no copy it acked, as in weigh.
func impliedHeader(votes []dvcVote, op uint64) (vsr.Header, bool) {
	var h vsr.Header
	named, unknown := false, 0
	for i := range votes {
		v := &votes[i]
		if !v.valid {
			unknown++
			continue
		}
		if v.op < op {
			continue // a nack
		}
		e, ok := v.entry(op)
		switch {
		case !ok || (!e.Nack && (e.Blank() || e.Unsure)):
			unknown++
		case e.Nack || (!e.Present && op > v.commit):
		case named && e.Header.Checksum != h.Checksum:
			return vsr.Header{}, false // two versions shown: either may have committed
		default:
			// A readable suffix walks down one op at a time (namedHeader).
			vsr.Assert(vsr.Unowned, e.Header.Op == op, "implied_header_at_op", "op %d header %d", op, e.Header.Op)
			h, named = e.Header, true
		}
	}
	return h, named && unknown < vsr.QuorumReplication(len(votes))
}

// weigh counts vote v of replica i on d's op. A vote nacks an op it never
// reached, an op it marks as a nack, an op whose header differs from the
// canonical one, and an op above its own commit point whose header it holds
// without the body (a derived nack: it could not have acked it and kept no
// body). Those two together make a header held bodiless above the commit
// point a nack whatever the canonical header is, so it counts even where no
// canonical vote describes the op (D86). An Unsure entry is neither a nack
// nor a copy, and only a copy needs the canonical header known.
func (d *opDecision) weigh(i int, v *dvcVote) {
	if v.op < d.op {
		d.nacks++
		return
	}
	e, ok := v.entry(d.op)
	if !ok {
		return
	}
	bodiless := !e.Present && !e.Unsure && d.op > v.commit
	switch {
	case e.Nack:
		d.nacks++
	case e.Blank():
	case !d.known:
		// A header other than the checksum the op above names is another
		// op, as against a known header (D112).
		if bodiless || (d.sum != 0 && e.Header.Checksum != d.sum) {
			d.nacks++
		}
	case e.Header.Checksum != d.header.Checksum:
		d.nacks++
	case e.Present:
		d.present |= 1 << uint(i)
	case e.Unsure:
		d.unsure++
	case bodiless:
		d.nacks++
	}
}
