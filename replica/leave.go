package replica

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
	if r.leaveView < r.view {
		r.leave, r.leaveView = 0, r.view
	}
	r.leave |= 1 << uint(r.id)
	r.sendAll(Message{Command: CmdStartViewChange, View: max(r.view, r.leaveView), Leave: true})
	r.maybeLeave()
}

// onLeave counts another replica's request to leave this view. A request from
// a newer view says that view exists: ask its primary for it. But if this
// replica has itself given up on its own primary, it hears no primary at all,
// of its view or of the newer one: its wish to leave carries over to the newer
// view, where it counts with the sender's. Otherwise a replica left behind in
// an older view and the replicas of a newer view whose primary is gone would
// each ask to leave a view the others no longer (or never) count.
func (r *Replica) onLeave(m *Message) {
	if m.From < 0 || m.From >= r.n || m.From == r.id {
		return
	}
	own := uint16(1) << uint(r.id)
	if m.View > r.view {
		if r.leave&own == 0 {
			r.probeNewerView(m.View)
			return
		}
		if r.leaveView != m.View {
			r.leave, r.leaveView = own, m.View
			r.tLeave.stop()
		}
	} else if r.leaveView != r.view {
		r.leave &= own
		r.leaveView = r.view
	}
	if r.leave&^own == 0 {
		r.tLeave.start(nil) // the window opens with the first request from another replica
	}
	r.leave |= 1 << uint(m.From)
	r.maybeLeave()
}

func (r *Replica) maybeLeave() {
	if popcount16(r.leave) < QuorumViewChange(r.n) {
		return
	}
	from := max(r.view, r.leaveView)
	if r.status == StatusViewChange {
		r.emit(Event{Kind: EvViewEscalate, View: from + 1})
	}
	r.startViewChange(from + 1)
}

// onLeaveWindow expires the other replicas' requests; this replica's own
// stands until it hears its primary or leaves the view.
func (r *Replica) onLeaveWindow() {
	r.leave &= 1 << uint(r.id)
	r.tLeave.stop()
}
