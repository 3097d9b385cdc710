package replica

import (
	"math/bits"
	"vsrsim/marks"
	"vsrsim/vsr"
)

// The StartViewChange quorum window (protocol.md "View change"). A replica's
// own timeout (a backup that lost its primary, an abdicated primary, a view
// change that did not complete) does not move it to the next view: it asks to
// leave its view, a StartViewChange marked Leave, and counts itself. A replica
// leaves view v only when a view-change quorum of replicas, itself included
// if its own timeout fired, asked to leave v within one window; the other
// requests expire with the window. So one replica that cannot hear its primary
// (a send-only backup) neither climbs views alone nor deposes a working
// quorum, and rejoins as soon as it hears the primary again.
//
// A StartViewChange without the mark still announces that its sender is
// changing into that view, and pulls a replica of a lower view into it: only a
// quorum (or a restarted primary) starts a view change, so that never repeats
// for one lone replica. Protocol.SVCQuorumOff turns the window off.

// askToLeave records this replica's own wish to leave its view and tells the
// others.
func (r *Replica) askToLeave() {
	r.vc.leave |= 1 << uint(r.id)
	r.vc.leaveTo = max(r.vc.leaveTo, r.view+1)
	r.fx.SendAll(vsr.StartViewChange{Leave: true}.Message())
	r.maybeLeave()
}

// onLeave counts another replica's request to leave this view. A request to
// leave a newer view counts too (that replica has left ours already, and wants
// out of its own), and raises the view this one moves to; it also probes the
// newer view's primary, in case that view works.
func (r *Replica) onLeave(m *vsr.Envelope) {
	vsr.Assert(r.id, m.From >= 0, "leave_gate_sender", vsr.DetailGate)
	vsr.Assert(r.id, m.From < r.n, "leave_gate_sender", vsr.DetailGate)
	vsr.Assert(r.id, m.From != r.id, "leave_gate_sender", vsr.DetailGate)
	if m.View == r.view {
		// A peer that wants out of a view this replica follows well
		// may only have lost its primary: hand it the view.
		r.relayStartView(m, 0)
	}
	if m.View > r.view {
		if r.vc.leave&(1<<uint(r.id)) != 0 {
			// Our own wish counts toward the newer view too.
			r.fx.Mark(marks.LeaveCarriedForward)
		}
		r.probeNewerView(m.View)
	}
	if r.vc.leave&^(1<<uint(r.id)) == 0 {
		r.timers.Leave.Start(nil) // the window opens with the first request from another replica
	}
	r.vc.leave |= 1 << uint(m.From)
	r.vc.leaveTo = max(r.vc.leaveTo, m.View+1)
	if bits.OnesCount16(r.vc.leave) < vsr.QuorumViewChange(r.n) {
		r.fx.Mark(marks.SVCHeldByWindow)
	}
	r.maybeLeave()
	vsr.Assert(r.id, r.vc.leaveTo > m.View || r.view > m.View, "leave_counts_toward_a_newer_view", vsr.DetailHolds)
}

func (r *Replica) maybeLeave() {
	if bits.OnesCount16(r.vc.leave) < vsr.QuorumViewChange(r.n) {
		return
	}
	r.fx.Mark(marks.SVCQuorumReached)
	to := max(r.vc.leaveTo, r.view+1)
	if r.status == vsr.StatusViewChange {
		r.fx.Emit(vsr.ViewNoted{View: to}.Event(vsr.EvViewEscalate))
	}
	r.startViewChange(to)
}

// onLeaveWindow expires the other replicas' requests; this replica's own
// stands until it hears its primary or leaves the view.
func (r *Replica) onLeaveWindow() {
	r.vc.leave &= 1 << uint(r.id)
	r.vc.leaveTo = r.view + 1
	r.timers.Leave.Stop()
}
