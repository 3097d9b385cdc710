package room

import "vsrsim/vsr"

// abdication is a primary's watch over its own view, one room of its state
// (issue 36; protocol.md "Abdication", abdicate.go): whether it stepped
// aside, and why, and the stall watch of the current window (the op first in
// the pipeline when it began, whether a backup acked, in it, a prepare that
// still lacked a replication quorum, and how many windows in a row stalled).
type Abdication struct {
	Abdicated bool
	// stalled: this abdication was for stalled replication, which
	// hearing a quorum does not cure (it heard one all along).
	Stalled bool
	// stallOp is the first op the pipeline held when the window began (0:
	// none); ackProgress says a backup acked, in the window, a prepare it
	// had not acked that still lacked a replication quorum. An op pending
	// the whole window without such an ack is stalled replication.
	StallOp      uint64
	AckProgress  bool
	StallWindows int // windows in a row that stalled
}

// watch opens a new window of the stall watch over the pipeline whose first
// op is first (0: empty).
func (a *Abdication) Watch(first uint64) {
	a.AckProgress = false
	a.StallOp = first
}

// progressed notes a backup's ack of a prepare that still lacked a quorum.
func (a *Abdication) Progressed() { a.AckProgress = true }

// stalledSince reports whether the pipeline, whose first op is now first
// (0: empty), stalled over the whole window: its first op then is still in
// it and no ack it needed came.
func (a *Abdication) StalledSince(first uint64) bool {
	return a.StallOp != 0 && first != 0 && first <= a.StallOp && !a.AckProgress
}

// closeWindow counts a window that stalled, or starts the count afresh, and
// reports whether enough stalled in a row to abdicate over it.
func (a *Abdication) CloseWindow(stalled bool) bool {
	// A window stalls only over an op it watched (stalledSince).
	vsr.Assert(vsr.Unowned, !stalled || a.StallOp != 0, "abdication_stall_watched_an_op", vsr.DetailHolds)
	if stalled {
		a.StallWindows++
	} else {
		a.StallWindows = 0
	}
	return a.StallWindows >= StallWindowsMax
}

// stepAside records the primary abdicating, for stalled replication or for
// not hearing a quorum; it reports false if it had already.
func (a *Abdication) StepAside(stalled bool) bool {
	if a.Abdicated {
		return false
	}
	a.Abdicated, a.Stalled = true, stalled
	return true
}

// resume reports whether an abdication for want of hearing a quorum ends now
// that one is heard, and ends it. One for stalled replication stays.
func (a *Abdication) Resume() bool {
	// Only a Normal primary hears a quorum, and entering Normal (normal)
	// clears a stall a view change left behind.
	vsr.Assert(vsr.Unowned, a.Abdicated || !a.Stalled, "abdication_stalled_only_aside", vsr.DetailHolds)
	if !a.Abdicated || a.Stalled {
		return false
	}
	a.Abdicated = false
	return true
}

// normal starts the watch of a view the replica just entered Normal in.
func (a *Abdication) Normal(first uint64) {
	a.Abdicated, a.Stalled, a.StallWindows = false, false, 0
	a.Watch(first)
}

// stallWindowsMax is how many heartbeat timeouts in a row replication must
// stall before the primary abdicates over it: a round trip to the backups
// may take longer than one (two backups 600 ticks away each way answer a
// prepare after 1,200: slow-pair-primary-crash seed 50 churned views when
// one window was enough).
const StallWindowsMax = 3
