package replica

import (
	"math/bits"
	"vsrsim/marks"
	"vsrsim/vsr"
)

// View change (VRR section 4.2; protocol.md "View change").

func (r *Replica) startViewChange(v uint64) {
	vsr.Assert(r.id, v > r.view || (v == r.view && r.status == vsr.StatusNormal), "view_change_forward",
		"view %d -> %d status %d", r.view, v, uint64(r.status))
	if r.status == vsr.StatusViewChange && r.vc.quorumWindow {
		r.vc.vcRounds++
	}
	if r.status == vsr.StatusRecovering {
		// A replica recovering its head joins the change: its probes end.
		r.timers.Probe.Stop()
	}
	r.view = v
	r.vc.enter(r.id, r.n)
	r.timers.Leave.Stop()
	r.pipeline = r.pipeline[:0]
	r.requests = r.requests[:0]
	r.repair = repairSession{}
	r.setStatus(vsr.StatusViewChange)
	r.writeSuperblock()
	r.timers.Heartbeat.Stop()
	r.timers.Commit.Stop()
	r.timers.Prepare.Stop()
	r.timers.Abdicate.Stop()
	r.abd.Abdicated = false
	r.timers.VcMsg.Start(r.jitter)
	r.timers.VcStatus.Retry(r.jitter, r.vc.vcRounds)
	vsr.Assert(r.id, r.status == vsr.StatusViewChange, "start_view_change_entered", vsr.DetailHolds)
	vsr.Assert(r.id, r.view == v, "start_view_change_entered", vsr.DetailHolds)
	vsr.Assert(r.id, len(r.pipeline) == 0, "start_view_change_entered", vsr.DetailHolds)
	r.fx.SendAll(vsr.StartViewChange{}.Message().InView(v))
	r.maybeSendDoViewChange()
}

func (r *Replica) onStartViewChange(m *vsr.Envelope, p vsr.StartViewChange) {
	vsr.Assert(r.id, r.status != vsr.StatusRecovering || (r.log.recoveringHead && (m.View > r.view || p.Leave)), "start_view_change_gate_view", vsr.DetailGate)
	vsr.Assert(r.id, m.View >= r.view, "start_view_change_gate_view", vsr.DetailGate)
	if p.Leave {
		r.onLeave(m)
		return
	}
	if m.View > r.view {
		r.startViewChange(m.View)
	}
	if r.status == vsr.StatusNormal {
		if m.View == r.view && r.isPrimary() {
			// The sender missed our StartView: tell it.
			r.sendStartView(m.From, 0)
		} else if m.View == r.view && r.logView == r.view {
			// A straggler is still changing into our view: re-send our vote to
			// the view's primary, which answers the straggler. The vote is
			// built (and cached) now.
			r.fx.Send(r.primary(), r.doViewChange().Message())
		}
		return
	}
	r.vc.svcFrom |= 1 << uint(m.From)
	r.maybeSendDoViewChange()
}

// maybeSendDoViewChange votes once f other replicas joined this view change.
func (r *Replica) maybeSendDoViewChange() {
	if r.status != vsr.StatusViewChange || bits.OnesCount16(r.vc.svcFrom) < r.f() {
		return
	}
	m := r.doViewChange()
	r.vc.dvcSent = true
	if r.dur.incarnation > 0 && r.opts.Durability == DurabilityWAL {
		r.fx.Mark(marks.RestartWALVote)
	}
	if vsr.PrimaryOf(r.view, r.n) == r.id {
		// The primary-elect holds its own vote to the same standard as its peers'.
		if !suffixReadable(m.Op, m.Commit, m.Suffix) {
			r.dropUnreadable(r.id, r.view, m)
			return
		}
		r.recordDoViewChange(r.id, r.view, m)
		r.tryMerge()
		return
	}
	r.fx.Send(vsr.PrimaryOf(r.view, r.n), m.Message())
}

func (r *Replica) onDoViewChange(m *vsr.Envelope, p vsr.DoViewChange) {
	vsr.Assert(r.id, r.status != vsr.StatusRecovering || (r.log.recoveringHead && m.View > r.view), "do_view_change_gate_view", vsr.DetailGate)
	vsr.Assert(r.id, m.View >= r.view, "do_view_change_gate_view", vsr.DetailGate)
	if m.View > r.view {
		r.startViewChange(m.View)
	}
	if r.status == vsr.StatusNormal {
		if r.isPrimary() && m.View == r.view {
			r.sendStartView(m.From, 0)
		}
		return
	}
	if vsr.PrimaryOf(m.View, r.n) != r.id {
		r.fx.Drop(m, p.Op, vsr.ReasonNotPrimaryElect, 0)
		return
	}
	if !suffixReadable(p.Op, p.Commit, p.Suffix) {
		r.dropUnreadable(m.From, m.View, p)
		return
	}
	r.vc.svcFrom |= 1 << uint(m.From)
	r.recordDoViewChange(m.From, m.View, p)
	r.maybeSendDoViewChange()
	r.tryMerge()
}

func (r *Replica) recordDoViewChange(from int, view uint64, m vsr.DoViewChange) {
	vsr.Assert(r.id, from >= 0, "vote_of_this_view", vsr.DetailHolds)
	vsr.Assert(r.id, from < r.n, "vote_of_this_view", vsr.DetailHolds)
	vsr.Assert(r.id, view == r.view, "vote_of_this_view", vsr.DetailHolds)
	vsr.Assert(r.id, suffixReadable(m.Op, m.Commit, m.Suffix), "vote_readable", vsr.DetailHolds)
	s := make([]vsr.SuffixEntry, len(m.Suffix))
	copy(s, m.Suffix)
	r.vc.vote(r.id, r.n, from, dvcVote{valid: true, logView: m.LogView, op: m.Op, commit: m.Commit, suffix: s})
}

// entry returns vote v's suffix entry at op, if its window covers op.
func (v *dvcVote) entry(op uint64) (*vsr.SuffixEntry, bool) {
	if op > v.op || len(v.suffix) == 0 {
		return nil, false
	}
	i := v.op - op
	if i >= uint64(len(v.suffix)) {
		return nil, false
	}
	return &v.suffix[i], true
}

// tryMerge merges a view-change quorum of votes into the canonical log once
// the replica's own vote is among them; mergeVotes decides, this installs.
func (r *Replica) tryMerge() {
	if r.vc.merged || r.status != vsr.StatusViewChange || !r.vc.dvcs[r.id].valid {
		return
	}
	votes := 0
	for i := 0; i < r.n; i++ {
		if r.vc.dvcs[i].valid {
			votes++
		}
	}
	if votes < vsr.QuorumViewChange(r.n) {
		return
	}
	res := mergeVotes(r.vc.dvcs[:r.n])
	// The merge's commit inference is only as good as the pipeline bound:
	// assert it on the head's header.
	if h, ok := r.voteHeader(res.votedHead); ok && h.Parent != 0 {
		vsr.Assert(r.id, h.Op <= h.Commit+vsr.PipelineMax, "pipeline_bound", "head op %d carries commit %d, more than %d below",
			h.Op, h.Commit, vsr.PipelineMax)
	}
	if !res.ready {
		r.fetchAwaitedBody(&res)
		return // wait for more votes, or the body
	}
	if r.headUnknown(&res) {
		return
	}
	r.vc.awaitBody = vsr.Header{}
	vsr.Assert(r.id, res.head >= res.commit, "merge_log_span", "commit %d head %d log %d", res.commit, res.head, uint64(len(res.log)))
	vsr.Assert(r.id, uint64(len(res.log)) == res.head-res.commit, "merge_log_span", "commit %d head %d log %d", res.commit, res.head, uint64(len(res.log)))
	r.markMerge(&res)
	for _, h := range res.truncated {
		r.fx.Emit(vsr.MergeTruncated{View: r.view, Op: h.Op, Checksum: h.Checksum, Nacks: uint64(res.truncateNacks)}.Event())
	}
	merged := r.logView < r.view
	acked := r.installCanonical(res.commit, res.head, res.log)
	// The journal now holds this view's log, merged from a quorum of votes:
	// a later vote must say so, should this view never start (D61). Its own
	// older log_view would pass the merged log off as that view's, with the
	// ops the merge cut missing from under acks it gave there (swarm seed
	// 1753: op 58 acked in view 13, cut by view 14's merge, voted absent
	// under log_view 13); the votes' log_view would pass off these ops as
	// theirs (swarm seed 420). The merged log is what this view's StartView
	// would carry, so the view is its log_view (installCanonical sets it,
	// before its reclaim: the merged log's anchor vouches as its own, D109).
	vsr.Assert(r.id, r.logView == r.view, "merge_installs_log_view", vsr.DetailHolds)
	r.cutAcks(min(res.head, acked))
	r.vc.mergeSources = res.sources
	r.vc.merged = true
	r.tryStartView()
	if merged && r.status == vsr.StatusViewChange {
		// Not started (a body to fetch): durable before any later vote
		// states it, with what it acked in it (nothing: Superblock.Merged);
		// a view that started wrote it already.
		vsr.Assert(r.id, !r.dur.sb.Amnesiac, "merge_not_amnesiac", vsr.DetailHolds)
		r.dur.sb.Merged = true
		r.writeSuperblock()
	}
}

// installCanonical makes the merged log this replica's: it drops journal
// entries that disagree or lie above the new head and keeps the canonical
// headers as adopted. It reports the highest op this replica's acks may
// still cover in that log (ackFork).
func (r *Replica) installCanonical(commit, head uint64, log []vsr.Header) (acked uint64) {
	if r.log.amnesiac {
		// A primary-elect recovering its head merged with its own vote
		// among the quorum (only that amnesia votes): the merged log is
		// the view's, and its head is known now, as an adopted StartView's
		// would be (D113).
		vsr.Assert(r.id, r.log.recoveringHead, "merge_amnesia_recovers_head", vsr.DetailHolds)
		r.endAmnesia(head)
	}
	r.advanceCommitMax(commit)
	r.clearAdopted()
	fork := r.ackedFork()
	r.log.adoptedLogView = r.view // the merged log's (D61)
	r.logView = r.view
	for _, h := range log {
		op := h.Op
		if j, ok := r.log.journal.Get(op); ok && j.Checksum != h.Checksum {
			fork.differs(j)
			r.journalRemove(op)
		}
		r.log.adopted.Put(h)
	}
	r.truncateJournalAbove(head)
	r.wm.sequencer = head
	r.log.adoptedHead = head
	if h, ok := r.mergedHeader(commit, log, head); ok {
		// At or below the commit point any vote's header is canonical.
		r.wm.headSum = h.Checksum
		if h.Parent != 0 {
			if j, ok := r.log.journal.Get(head); ok && j.Checksum != h.Checksum {
				fork.differs(j)
				r.journalRemove(head)
			}
			r.log.adopted.Put(h)
		}
	} else {
		vsr.Assert(r.id, head == 0, "merge_head_known", "no vote describes head %d", head)
		r.wm.headSum = genesisChecksum
	}
	r.pruneUnchained(commit + 1)
	if h, ok := r.voteHeader(commit); ok && commit > r.wm.commitMin {
		r.pruneChainFrom(commit, h.Checksum)
		r.log.commitAnchor = h
	} else if commit > r.wm.commitMin {
		r.pruneChainFrom(commit, 0) // no vote vouches for anything below
	}
	r.reclaim(commit, true)
	vsr.Assert(r.id, r.wm.sequencer == head, "install_canonical_head", vsr.DetailHolds)
	vsr.Assert(r.id, r.wm.commitMax >= commit, "install_canonical_head", vsr.DetailHolds)
	return fork.below()
}

// mergedHeader is the merged log's header at op: the log's own above the
// commit point (among them an implied header no vote names canonically,
// D98), a vote's at or below it (voteHeader).
func (r *Replica) mergedHeader(commit uint64, log []vsr.Header, op uint64) (vsr.Header, bool) {
	if op > commit && op-commit <= uint64(len(log)) {
		return log[op-commit-1], true
	}
	return r.voteHeader(op)
}

// voteHeader returns the header at op from the highest-log_view vote that
// describes it canonically: a vote of the canonical log_view, or one whose
// own commit point covers op (committed ops are canonical in every later
// view). A lower log_view's entry above its voter's commit point may be an
// op a later view replaced: taking one as the commit point's anchor once
// let a restarted primary repair and apply an older view's op (agreement,
// fuzz-lower-log-view-anchor.vsr, D49).
func (r *Replica) voteHeader(op uint64) (vsr.Header, bool) {
	var best vsr.Header
	found := false
	bestLogView := uint64(0)
	canonical, _ := mergeBounds(r.vc.dvcs[:r.n])
	for i := 0; i < r.n; i++ {
		v := &r.vc.dvcs[i]
		if !v.valid || (v.logView != canonical && op > v.commit) {
			continue
		}
		if e, ok := v.entry(op); ok && !e.Blank() && (!found || v.logView > bestLogView) {
			best, found, bestLogView = e.Header, true, v.logView
		}
	}
	return best, found
}

// verifyBelowSuffix checks the journal below a StartView's headers against
// them: the lowest header the primary sent anchors the hash chain, and every
// journal entry down to commit_min must chain to it. Only the message is
// trusted for the anchor, never this replica's own journal, which may hold an
// older view's leftovers at exactly those ops. With no anchor at all nothing
// between commit_min and commit_max can be vouched for, and it goes.
func (r *Replica) verifyBelowSuffix(suffix []vsr.SuffixEntry) {
	for i := len(suffix) - 1; i >= 0; i-- {
		e := suffix[i]
		if e.Blank() {
			continue
		}
		if e.Header.Op > r.wm.commitMin {
			r.pruneChainFrom(e.Header.Op, e.Header.Checksum)
			if e.Header.Op <= r.wm.commitMax {
				r.log.commitAnchor = e.Header
			}
		}
		return
	}
	r.pruneChainFrom(r.wm.commitMax, 0)
}

// tryStartView starts the view once the primary-elect holds every uncommitted
// body of the merged log; until then it repairs them from the senders that
// marked them present.
func (r *Replica) tryStartView() {
	if !r.vc.merged || r.status != vsr.StatusViewChange {
		return
	}
	for op := r.wm.commitMax + 1; op <= r.wm.sequencer; op++ {
		h, _ := r.log.adopted.Get(op)
		if !r.log.journal.Has(op, h.Checksum) {
			r.repairForView(op)
			return
		}
	}
	r.startView()
}

func (r *Replica) startView() {
	r.logView = r.view
	r.dur.sb.Merged = false // started: its acks in the view count from here
	r.pipeline = r.pipeline[:0]
	for op := r.wm.commitMax + 1; op <= r.wm.sequencer; op++ {
		h, ok := r.log.journal.Get(op)
		vsr.Assert(r.id, ok, "primary_holds_uncommitted", vsr.DetailHolds)
		vsr.Assert(r.id, len(r.pipeline) < cap(r.pipeline), "pipeline_capacity", vsr.DetailHolds)
		// The primary's own ack stands once the op's journal write has
		// landed; it is reported like any other: the oracle counts it
		// toward the op's quorum in this view.
		r.pipeline.Push(r.id, h, r.ownFence())
		r.noteAck(&h)
	}
	r.heartbeat = 0
	r.repair = repairSession{}
	r.setStatus(vsr.StatusNormal)
	r.writeSuperblock()
	for i := 0; i < r.n; i++ {
		if i != r.id {
			r.sendStartView(i, 0)
		}
	}
	r.startNormalTimeouts()
	r.onCommitTimeout()
	r.due |= dueCommitWalk // the new view's pipeline may hold a quorum already
	vsr.Assert(r.id, r.status == vsr.StatusNormal, "start_view_primary_normal", vsr.DetailHolds)
	vsr.Assert(r.id, r.logView == r.view, "start_view_primary_normal", vsr.DetailHolds)
	vsr.Assert(r.id, r.isPrimary(), "start_view_primary_normal", vsr.DetailHolds)
	r.pipeline.Check(r.id)
}

func (r *Replica) onViewChangeMessageTimeout() {
	if r.status != vsr.StatusViewChange {
		r.timers.VcMsg.Stop()
		return
	}
	r.fx.SendAll(vsr.StartViewChange{}.Message())
	if r.vc.leave&(1<<uint(r.id)) != 0 {
		// A standing wish to leave is said again: the others' windows forget
		// requests, and timeouts backed off apart may never meet in one.
		r.fx.Mark(marks.LeaveResent)
		r.fx.SendAll(vsr.StartViewChange{Leave: true}.Message())
	}
	if r.vc.dvcSent && vsr.PrimaryOf(r.view, r.n) != r.id {
		r.fx.Send(vsr.PrimaryOf(r.view, r.n), r.doViewChange().Message())
	}
	if r.vc.merged {
		r.tryStartView()
	} else if r.vc.awaitBody.Op != 0 {
		r.askAwaitedBody()
	}
	r.timers.VcMsg.BackoffNext(r.jitter)
}

// onViewChangeStatusTimeout escalates a stuck view change to the next view. The
// fixed behaviour holds the view instead while this replica lacks the votes for
// its DoViewChange and an older view's primary is still heartbeating it: its
// own StartViewChange may simply not have arrived yet.
func (r *Replica) onViewChangeStatusTimeout() {
	if r.status != vsr.StatusViewChange {
		r.timers.VcStatus.Stop()
		return
	}
	if !r.opts.Bugs.EscalateWithoutHold && bits.OnesCount16(r.vc.svcFrom) < r.f() && r.vc.oldPrimaryHB {
		r.vc.oldPrimaryHB = false
		r.fx.Mark(marks.EscalateHeldByPrimary)
		r.fx.Emit(vsr.ViewNoted{View: r.view}.Event(vsr.EvHold))
		r.timers.VcStatus.Reset(r.jitter)
		return
	}
	// Escalation: with the quorum window, a wish to leave for the next view.
	r.fx.Mark(marks.EscalateOnStatusTimeout)
	if r.vc.quorumWindow {
		r.timers.VcStatus.Reset(r.jitter)
		r.askToLeave()
		return
	}
	r.fx.Emit(vsr.ViewNoted{View: r.view + 1}.Event(vsr.EvViewEscalate))
	r.startViewChange(r.view + 1)
}

// fetchAwaitedBody fetches the body the merge res newly waits on.
func (r *Replica) fetchAwaitedBody(res *mergeResult) {
	if r.awaitBodyOf(res) {
		r.fetchAwaited()
	}
}

// fetchAwaited fetches the entry newly awaited: from the primary-elect's own
// set-aside copies, or else from its peers.
func (r *Replica) fetchAwaited() {
	if !r.takeOwnAwaitedBody() {
		r.askAwaitedBody()
	}
}

// takeOwnAwaitedBody journals the awaited body from the primary-elect's own
// set-aside copies (a restart read it intact and could not vouch for it, so
// its vote holds the op unsure) when it is the canonical header's entry, and
// votes again with it (D90). The checksum names one entry, as a peer's copy
// is checked; no peer need hold it.
func (r *Replica) takeOwnAwaitedBody() bool {
	h, ok := r.log.aside.Get(r.vc.awaitBody.Op)
	if !ok || !r.awaitedBody(&h) {
		return false
	}
	r.fx.Mark(marks.MergeBodyOwnAside)
	if !r.repairPut(h, nil) {
		return false // kept set aside
	}
	vsr.Assert(r.id, r.log.journal.Has(h.Op, h.Checksum), "own_awaited_body_journaled", "op %d", h.Op)
	return true
}
