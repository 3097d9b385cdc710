package replica

import (
	"vsrsim/marks"
	"vsrsim/replica/journal"
	"vsrsim/vsr"
)

// A merge can know an op's canonical header and find its body at no voter:
// every voter nacked it too few times to truncate, or holds it only as a
// header, or lost its slot to the disk. It waits for more votes, but the one
// replica that holds the body may never vote: to vote it must hear f others
// within one view, and a replica that hears the others late (a slow link, a
// source protocol without backoff) never does. It still answers a request
// for the body. So the primary-elect asks the replicas whose votes are not
// in, verifies what comes back against the canonical header, journals it,
// and votes again with the body present (a search with every fix on found a
// four-replica cluster whose views climbed for the whole liveness phase
// while the only copy of op 12 sat at the replica outside the core).

// awaitBodyOf records the body the merge res waits on, if that is what it
// waits on and the primary-elect's own vote could then hold it, and reports
// whether it is newly awaited (the caller fetches it: tryMerge).
func (r *Replica) awaitBodyOf(res *mergeResult) bool {
	n := len(res.decisions)
	want, ok := vsr.Header{}, false
	if n > 0 && res.decisions[n-1].op <= r.vc.dvcs[r.id].op {
		want, ok = r.awaitedEntry(&res.decisions[n-1])
	}
	return r.await(want, ok)
}

// await records want as the entry the merge waits on (none unless ok), and
// reports whether it is newly awaited: asked already, the message timeout
// asks again.
func (r *Replica) await(want vsr.Header, ok bool) bool {
	if !ok {
		r.vc.awaitBody = vsr.Header{}
		return false
	}
	if r.vc.awaitBody == want {
		return false
	}
	r.vc.awaitBody = want
	return true
}

// awaitedEntry is the entry the merge waits on at d's op: its canonical
// header, whose body no voter holds, where the primary-elect's own log can
// take it; or, where no vote names the op at all but a vote of the canonical
// log_view names the op above, the op and the checksum that header names as
// its parent (D111). A checksum names one entry, as D89 takes it from any
// vote, so the body that carries it is the canonical op; a replica that
// holds it only set aside (a restart below a gap could not vouch for it, D75)
// never votes it (swarm seed 3233833457 from 0xc0c00000: the one intact
// copy of op 1 lay set aside at the primary-elect, whose vote said nothing
// there, and the views climbed 4 -> 9 over a merge awaiting the header).
func (r *Replica) awaitedEntry(d *opDecision) (vsr.Header, bool) {
	switch d.verdict {
	case opAwaitBody:
		vsr.Assert(r.id, d.known && d.header.Op == d.op, "await_body_known", "op %d header op %d", d.op, d.header.Op)
		return d.header, r.fitsOwnLog(d.header)
	case opAwaitHeader:
		// The merge weighed the votes against that checksum already (D112).
		return vsr.Header{Op: d.op, Checksum: d.sum}, d.sum != 0
	}
	return vsr.Header{}, false
}

// askAwaitedBody asks for the awaited body every replica whose vote is not
// in, and every voter whose vote says nothing of the op (unsure or blank): a
// restart that could not vouch for its intact copy holds the op unsure and
// keeps the copy set aside (setAsideCopy), which it serves with no commit
// point. A voter that nacked the op or holds only its header has no body.
func (r *Replica) askAwaitedBody() {
	o := r.vc.awaitBody.Op
	vsr.Assert(r.id, r.status == vsr.StatusViewChange && !r.vc.merged, "await_body_before_merge", vsr.DetailHolds)
	vsr.Assert(r.id, vsr.PrimaryOf(r.view, r.n) == r.id, "await_body_primary_elect", vsr.DetailHolds)
	vsr.Assert(r.id, o > 0, "await_body_known", vsr.DetailHolds)
	for i := 0; i < r.n; i++ {
		if i != r.id && (!r.vc.dvcs[i].valid || voteSilentOn(&r.vc.dvcs[i], o)) {
			r.fx.Mark(marks.MergeBodyFetched)
			r.fx.Send(i, vsr.RequestPrepares{From: o, To: o}.Message())
		}
	}
}

// voteSilentOn reports whether vote v states neither a copy of op o nor a
// nack: its entry there is unsure, or blank.
func voteSilentOn(v *dvcVote, o uint64) bool {
	e, ok := v.entry(o)
	return ok && !e.Nack && !e.Present && (e.Unsure || e.Blank())
}

// fitsOwnLog reports whether h, journaled, would sit in the primary-elect's
// own log: the entry it holds above h's op names h as parent, and the one
// below is h's parent. A canonical body from a higher log_view that its own
// older log does not chain through would splice two logs into its journal,
// and every later vote of its own log_view would carry the splice (swarm
// seed 3238084946 of 100,000 from 0xc0ffee00: op 3 of view 9's log fetched
// under op 4 of its abandoned view-5 merge, a DoViewChange with log_view 5
// unreadable at op 4, the protocol model's suffix_readable).
func (r *Replica) fitsOwnLog(h vsr.Header) bool {
	for _, ring := range []*journal.Ring{&r.log.journal.Live, &r.log.adopted} {
		if above, ok := ring.Get(h.Op + 1); ok && above.Parent != h.Checksum {
			return false
		}
		if below, ok := ring.Get(h.Op - 1); ok && below.Checksum != h.Parent {
			return false
		}
	}
	return true
}

// awaitedBody reports whether h is the body the merge waits on.
func (r *Replica) awaitedBody(h *vsr.Header) bool {
	return r.status == vsr.StatusViewChange && !r.vc.merged && r.vc.awaitBody.Op != 0 &&
		h.Op == r.vc.awaitBody.Op && h.Checksum == r.vc.awaitBody.Checksum && r.fitsOwnLog(*h)
}

// revote rebuilds the primary-elect's own vote after a body landed in its
// journal during the view change, and merges again. The new vote only turns
// a nack or a blank into a copy: the merge may keep more, never truncate
// more, and keeping a canonical op is always safe.
func (r *Replica) revote() {
	if r.vc.merged || r.status != vsr.StatusViewChange || vsr.PrimaryOf(r.view, r.n) != r.id || !r.vc.dvcs[r.id].valid {
		return
	}
	m := r.doViewChange()
	if !suffixReadable(m.Op, m.Commit, m.Suffix) {
		return
	}
	vsr.Assert(r.id, m.Op >= r.vc.awaitBody.Op, "await_body_in_own_vote", "vote op %d awaited %d", m.Op, r.vc.awaitBody.Op)
	r.recordDoViewChange(r.id, r.view, m)
	r.tryMerge()
}

// headUnknown reports whether no vote describes the merge's head at the
// commit point; the merge then awaits the entry a vote names above it (D117),
// or else a vote that describes it, which no correct cluster leaves wanting.
func (r *Replica) headUnknown(res *mergeResult) bool {
	if _, known := r.mergedHeader(res.commit, res.log, res.head); known || res.head == 0 {
		return false
	}
	if !r.awaitNamedHead(res.head) {
		r.fx.Mark(marks.MergeHeadUnknown)
	}
	return true
}

// awaitNamedHead awaits the entry at op o, the merged head at the commit
// point, that a vote of the canonical log_view names as the parent of its op
// above, though the merge cut that op (D117). That vote's log is one chain,
// and it holds every op committed before its log_view began, so the parent
// it names at the commit point is the committed entry; as for D111, the
// checksum names one entry, taken from the primary-elect's own set-aside
// copies or asked of the voters silent on it. It reports false where no vote
// names it: the merge waits for a vote that describes the head.
func (r *Replica) awaitNamedHead(o uint64) bool {
	canonical, _ := mergeBounds(r.vc.dvcs[:r.n])
	above, named := namedHeader(r.vc.dvcs[:r.n], canonical, o+1)
	// As awaitBodyOf: only an entry the primary-elect's own vote can then
	// describe, at or below its own head; above it, the fetched body would
	// sit apart from its log and its next vote could not state it (D127;
	// swarm seed 1819029250 from 0x6c6c0000: head 37 awaiting op 53, the
	// replica's await_body_in_own_vote).
	named = named && above.Parent != 0 && o <= r.vc.dvcs[r.id].op
	if r.await(vsr.Header{Op: o, Checksum: above.Parent}, named) {
		r.fetchAwaited()
	}
	return named
}
