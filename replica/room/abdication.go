package room

import "vsrsim/vsr"

// Abdication is a primary's watch over its own view, one room of its state
// (issue 36; protocol.md "Abdication", abdicate.go): whether it stepped
// aside, and why, and the stall watch of the current window (the op first in
// the pipeline when it began, whether a backup acked, in it, a prepare that
// still lacked a replication quorum, and how many windows in a row stalled).
type Abdication struct {
	Abdicated bool
	// Stalled: this abdication was for stalled replication, which
	// hearing a quorum does not cure (it heard one all along).
	Stalled bool
	// StallOp is the first op the pipeline held when the window began (0:
	// none); ackProgress says a backup acked, in the window, a prepare it
	// had not acked that still lacked a replication quorum. An op pending
	// the whole window without such an ack is stalled replication.
	StallOp      uint64
	AckProgress  bool
	StallWindows int // windows in a row that stalled

	// mode is what of abdication this replica runs (SetMode): all of it
	// unless a protocol option models a source system that lacks some.
	mode AbdicationMode
}

// AbdicationMode turns off parts of abdication, for a source system that
// lacks them (Options.Protocol, D13); the zero value is the robust protocol.
type AbdicationMode struct {
	Off       bool // no abdication, no CommitOk on heartbeats, no forwarded-request watch
	ByHearing bool // abdicate on hearing no quorum only, never on stalled replication
	NoPush    bool // a StartView goes out only when asked, never pushed
}

// SetMode sets what of abdication this replica runs, once, at its making.
func (a *Abdication) SetMode(m AbdicationMode) { a.mode = m }

// On reports whether the primary watches its view at all (the abdicate
// timer runs, and backups answer its heartbeats with CommitOk).
func (a *Abdication) On() bool { return !a.mode.Off }

// ByHearing reports whether abdication goes by hearing alone: a primary
// that hears no quorum steps aside even with nothing in its pipeline.
func (a *Abdication) ByHearing() bool { return a.mode.ByHearing }

// WatchesForwarded reports whether a backup that forwarded a request waits
// for its primary to show it can act (the robust abdication only).
func (a *Abdication) WatchesForwarded() bool { return !a.mode.Off && !a.mode.ByHearing }

// PushesStartView reports whether the primary pushes its StartView to
// replicas outside its view, unasked.
func (a *Abdication) PushesStartView() bool { return !a.mode.NoPush }

// ReplicationStalled reports whether the pipeline, whose first op is now
// first, stalled over the whole window, where stalled replication counts
// (not when abdication goes by hearing alone).
func (a *Abdication) ReplicationStalled(first uint64) bool {
	return !a.mode.ByHearing && a.StalledSince(first)
}

// Watch opens a new window of the stall watch over the pipeline whose first
// op is first (0: empty).
func (a *Abdication) Watch(first uint64) {
	a.AckProgress = false
	a.StallOp = first
}

// Progressed notes a backup's ack of a prepare that still lacked a quorum.
func (a *Abdication) Progressed() { a.AckProgress = true }

// StalledSince reports whether the pipeline, whose first op is now first
// (0: empty), stalled over the whole window: its first op then is still in
// it and no ack it needed came.
func (a *Abdication) StalledSince(first uint64) bool {
	return a.StallOp != 0 && first != 0 && first <= a.StallOp && !a.AckProgress
}

// CloseWindow counts a window that stalled, or starts the count afresh, and
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

// StepAside records the primary abdicating, for stalled replication or for
// not hearing a quorum; it reports false if it had already.
func (a *Abdication) StepAside(stalled bool) bool {
	if a.Abdicated {
		return false
	}
	a.Abdicated, a.Stalled = true, stalled
	return true
}

// Resume reports whether an abdication for want of hearing a quorum ends now
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

// Normal starts the watch of a view the replica just entered Normal in.
func (a *Abdication) Normal(first uint64) {
	a.Abdicated, a.Stalled, a.StallWindows = false, false, 0
	a.Watch(first)
}

// StallWindowsMax is how many heartbeat timeouts in a row replication must
// stall before the primary abdicates over it: a round trip to the backups
// may take longer than one (two backups 600 ticks away each way answer a
// prepare after 1,200: slow-pair-primary-crash seed 50 churned views when
// one window was enough).
const StallWindowsMax = 3
