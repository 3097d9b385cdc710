package replica

import "vsrsim/vsr"

// abdication is a primary's watch over its own view, one room of its state
// (issue 36; protocol.md "Abdication", abdicate.go): whether it stepped
// aside, and why, and the stall watch of the current window (the op first in
// the pipeline when it began, whether a backup acked, in it, a prepare that
// still lacked a replication quorum, and how many windows in a row stalled).
type abdication struct {
	abdicated bool
	// stalled: this abdication was for stalled replication, which
	// hearing a quorum does not cure (it heard one all along).
	stalled bool
	// stallOp is the first op the pipeline held when the window began (0:
	// none); ackProgress says a backup acked, in the window, a prepare it
	// had not acked that still lacked a replication quorum. An op pending
	// the whole window without such an ack is stalled replication.
	stallOp      uint64
	ackProgress  bool
	stallWindows int // windows in a row that stalled
}

// watch opens a new window of the stall watch over the pipeline whose first
// op is first (0: empty).
func (a *abdication) watch(first uint64) {
	a.ackProgress = false
	a.stallOp = first
}

// progressed notes a backup's ack of a prepare that still lacked a quorum.
func (a *abdication) progressed() { a.ackProgress = true }

// stalledSince reports whether the pipeline, whose first op is now first
// (0: empty), stalled over the whole window: its first op then is still in
// it and no ack it needed came.
func (a *abdication) stalledSince(first uint64) bool {
	return a.stallOp != 0 && first != 0 && first <= a.stallOp && !a.ackProgress
}

// closeWindow counts a window that stalled, or starts the count afresh, and
// reports whether enough stalled in a row to abdicate over it.
func (a *abdication) closeWindow(stalled bool) bool {
	// A window stalls only over an op it watched (stalledSince).
	vsr.Assert(vsr.Unowned, !stalled || a.stallOp != 0, "abdication_stall_watched_an_op", vsr.DetailHolds)
	if stalled {
		a.stallWindows++
	} else {
		a.stallWindows = 0
	}
	return a.stallWindows >= stallWindowsMax
}

// stepAside records the primary abdicating, for stalled replication or for
// not hearing a quorum; it reports false if it had already.
func (a *abdication) stepAside(stalled bool) bool {
	if a.abdicated {
		return false
	}
	a.abdicated, a.stalled = true, stalled
	return true
}

// resume reports whether an abdication for want of hearing a quorum ends now
// that one is heard, and ends it. One for stalled replication stays.
func (a *abdication) resume() bool {
	// Only a Normal primary hears a quorum, and entering Normal (normal)
	// clears a stall a view change left behind.
	vsr.Assert(vsr.Unowned, a.abdicated || !a.stalled, "abdication_stalled_only_aside", vsr.DetailHolds)
	if !a.abdicated || a.stalled {
		return false
	}
	a.abdicated = false
	return true
}

// normal starts the watch of a view the replica just entered Normal in.
func (a *abdication) normal(first uint64) {
	a.abdicated, a.stalled, a.stallWindows = false, false, 0
	a.watch(first)
}

// stallWindowsMax is how many heartbeat timeouts in a row replication must
// stall before the primary abdicates over it: a round trip to the backups
// may take longer than one (two backups 600 ticks away each way answer a
// prepare after 1,200: slow-pair-primary-crash seed 50 churned views when
// one window was enough).
const stallWindowsMax = 3
