package replica

import (
	"vsrsim/marks"
	"vsrsim/vsr"
)

// Relayed StartViews (protocol.md "Relayed StartView"). A replica that wants
// out of a view the rest of the cluster has moved past, or that is stuck
// changing into a view that already runs, may be unable to reach the one
// replica that answers it today, the view's primary: a slow or cut link into
// the primary, or a primary outside the core that never pushes (abdication
// off). A backup that follows the current view well answers such a peer with
// the view's StartView built from its own log, commit point included.
//
// Why it is safe: a Normal backup of view v with log_view v holds a prefix of
// v's log no shorter than the head v began with (every op committed before v
// lies at or below that head, and within v the log only grows), so its
// StartView is one the primary could have sent earlier, delayed. The gate
// already refuses a delayed StartView that would rewind what the receiver
// applied or acknowledged in v (below-commit, below-ack), and the view's own
// primary never adopts one: it would prepare over ops it may have lost.

// learnRelayedCommit takes the commit point of a StartView a peer relayed to
// this replica, Normal in that view already: it asked to leave because it
// hears nothing from its primary, and a commit point is what it lacks to
// repair its way up (and, past what its peers retain, to transfer). The
// relayer is Normal in this view, so its commit point is committed in it,
// exactly as a Commit heartbeat's would be; the headers are not taken, since
// this replica's log of the view may run past the relayer's.
func (r *Replica) learnRelayedCommit(p vsr.StartView) {
	if p.Commit <= r.wm.commitMax {
		return
	}
	r.fx.Mark(marks.CommitRelayed)
	vsr.Assert(r.id, r.status == vsr.StatusNormal && !r.isPrimary(), "relayed_commit_to_a_backup", vsr.DetailHolds)
	r.advanceCommitMax(p.Commit)
	r.commitUpTo()
	r.repairKick()
	vsr.Assert(r.id, r.wm.commitMax >= p.Commit, "relayed_commit_learned", vsr.DetailHolds)
}

// tellCommitToPrimary: the primary retransmits a prepare this backup applied
// past without holding it (a state transfer installed beyond it), so it can
// never ack it, and the primary waits for that ack. It tells the primary its
// commit point with its checksum, at most once a heartbeat period; the
// primary takes it if its log holds the same op (learnCommitFromBackup). A
// cluster without abdication sends no CommitOk on heartbeats, and without this
// a primary elected by votes that knew less waited for good (swarm seed 707).
func (r *Replica) tellCommitToPrimary() {
	if !r.peers.Relays() || r.wm.commitMin == 0 {
		return
	}
	if !r.fwd.TellCommitDue(r.timers.Clk.Now, r.opts.Timeouts.CommitTicks) {
		return
	}
	r.fx.Mark(marks.CommitToldPrimary)
	r.fx.Send(r.primary(), vsr.CommitOk{Commit: r.wm.commitMin, Checksum: r.wm.commitSum, Incarnation: r.dur.incarnation}.Message())
}

// relayStartView answers m, a StartViewChange or a recovering replica's
// RequestStartView for this replica's view or an older one, with this view's
// StartView (carrying nonce) when this replica is a backup that follows its
// view well (followsItsView). It reports whether it relayed.
func (r *Replica) relayStartView(m *vsr.Envelope, nonce uint64) bool {
	if !r.followsItsView() || m.View > r.view || m.From == r.primary() || m.From < 0 || m.From >= r.n {
		return false
	}
	if !r.peers.MayRelay(m.From, r.timers.Clk.Now, r.opts.Timeouts.ViewChangeMsgTicks) {
		return true // one per retransmit period: the peer's asks are resent anyway
	}
	sv := r.startViewOf(nonce)
	for i := range sv.Suffix {
		if sv.Suffix[i].Blank() {
			// A header this backup lacks (a restart from a faulty
			// slot): its peer could then verify no body for that op,
			// and the primary never acked past it (swarm seed
			// 981246745). Only a log held whole is relayed.
			return false
		}
	}
	r.peers.Relayed(m.From, r.timers.Clk.Now)
	r.fx.Mark(marks.StartViewRelayed)
	r.fx.Send(m.From, sv.Message())
	vsr.Assert(r.id, r.logView == r.view, "relay_from_its_view_log", vsr.DetailHolds)
	vsr.Assert(r.id, sv.Op >= sv.Commit, "relay_log_reaches_commit", "op %d commit %d", sv.Op, sv.Commit)
	return true
}

// followsItsView reports whether this replica is a backup that follows its
// view well enough to hand it on: Normal, its log of this view, held up to
// its commit point, its primary heard within the heartbeat timeout and acting
// on what it forwards, and no wish of its own to leave. A log that stops
// below its commit point (the commit came by heartbeat, the ops are still to
// repair) would name a head with no header to chain the next prepare to:
// swarm seed 2998 reached the parent-mismatch never-mark so.
func (r *Replica) followsItsView() bool {
	return r.peers.Relays() && r.status == vsr.StatusNormal && !r.isPrimary() &&
		r.logView == r.view && !r.fwd.Waiting && r.vc.leave&(1<<uint(r.id)) == 0 &&
		r.wm.sequencer >= r.wm.commitMax
}
