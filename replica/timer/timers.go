package timer

import "vsrsim/vsr"

// Timers is every countdown a replica runs and the clock they share (one
// room of a replica's state, issue 36): the protocol arms and stops them by
// name, Tick fires them in their fixed order (timeouts), and the clock keeps
// the earliest deadline so a tick that fires nothing touches none.
type Timers struct {
	Prepare   Timeout // a primary's retransmission of prepares not yet acked
	Commit    Timeout // a backup's patience with a silent primary
	Heartbeat Timeout // a primary's Commit heartbeat
	VcMsg     Timeout // the view change's retransmission of its messages
	VcStatus  Timeout // escalation of a view change that does not finish
	Probe     Timeout // a recovering replica's RequestStartView probe
	Repair    Timeout // a repair session's retries
	Transfer  Timeout // a state transfer's retries
	Abdicate  Timeout // a primary's check on its own replication
	Leave     Timeout // the window in which requests to leave count
	Scrub     Timeout // a replica on a disk: the scrubber's next read
	Clk       TimerClock
}

// Init names every countdown and sets its period from p (backoff: the
// retries back off, as the protocol option asks), and gives each its turn in
// Tick and the shared clock.
func (t *Timers) Init(p Timeouts, backoff bool) {
	t.Prepare = Timeout{Name: "prepare", After: p.PrepareTicks, Backoff: true}
	t.Commit = Timeout{Name: "commit", After: p.CommitTicks}
	t.Heartbeat = Timeout{Name: "heartbeat", After: p.HeartbeatTicks}
	t.VcMsg = Timeout{Name: "view_change_message", After: p.ViewChangeMsgTicks, Backoff: true}
	// The status timeout backs off to 16x, as the others do (D97, amending
	// D19's 8x): VR's liveness rests on timeouts outgrowing the delays, and
	// the swarm draws links up to 6,000 ticks slow; at 8x a voter the core
	// needs behind such a link was late to every round, for good.
	t.VcStatus = Timeout{Name: "view_change_status", After: p.ViewChangeStatusTick, Backoff: backoff}
	t.Probe = Timeout{Name: "start_view_probe", After: p.StartViewProbeTicks}
	t.Repair = Timeout{Name: "repair", After: p.RepairTicks, Backoff: backoff}
	t.Transfer = Timeout{Name: "transfer", After: p.RepairTicks, Backoff: backoff}
	t.Abdicate = Timeout{Name: "abdicate", After: p.HeartbeatTicks}
	t.Leave = Timeout{Name: "start_view_change_window", After: p.ViewChangeStatusTick}
	t.Scrub = Timeout{Name: "scrub", After: p.ScrubTicks}
	t.Clk.Pos = TickDone
	for i, c := range t.All() {
		c.Clk, c.Pos = &t.Clk, i
	}
}

// All is every countdown in its turn's order (Tick fires them in it).
func (t *Timers) All() [11]*Timeout {
	return [11]*Timeout{&t.Prepare, &t.Commit, &t.Heartbeat, &t.VcMsg, &t.VcStatus,
		&t.Probe, &t.Repair, &t.Transfer, &t.Abdicate, &t.Leave, &t.Scrub}
}

// FindNext sets the clock's next tick to look at: the earliest deadline of
// a running countdown.
func (t *Timers) FindNext() {
	t.Clk.Next = uint64(1<<64 - 1)
	for _, c := range t.All() {
		if c.Running {
			t.Clk.Next = min(t.Clk.Next, c.Deadline)
		}
	}
}

// Check asserts what lets a tick skip the countdowns: none running is due
// before the clock's next tick, and each keeps its own turn on this clock.
func (t *Timers) Check(self int) {
	for i, c := range t.All() {
		vsr.Assert(self, c.Clk == &t.Clk && c.Pos == i, "timers_share_the_clock", "timer %d", uint64(i))
		vsr.Assert(self, !c.Running || t.Clk.Next <= c.Deadline, "timers_next_at_or_before_deadline",
			"timer %d deadline %d next %d", uint64(i), c.Deadline, t.Clk.Next)
	}
}

// Timeouts are the replica's timeouts in ticks (1 tick = 10 ms).
type Timeouts struct {
	PrepareTicks         uint64 // primary: retransmit un-acked prepares
	CommitTicks          uint64 // primary: commit heartbeat
	HeartbeatTicks       uint64 // backup: no word from the primary
	ViewChangeMsgTicks   uint64 // StartViewChange / DoViewChange retransmit
	ViewChangeStatusTick uint64 // escalation backstop while in view change
	StartViewProbeTicks  uint64 // RequestStartView while recovering
	RepairTicks          uint64 // repair and state transfer retry
	// ScrubTicks: a replica on a disk reads one journal op's copies back
	// every ScrubTicks (repair_serve.go); 0, no scrubber. Last in the tick's
	// order, and armed without jitter, so a run off disks is unchanged.
	ScrubTicks uint64
}

// DefaultTimeouts are protocol.md's defaults.
func DefaultTimeouts() Timeouts {
	return Timeouts{
		PrepareTicks:         25,
		CommitTicks:          50,
		HeartbeatTicks:       500,
		ViewChangeMsgTicks:   50,
		ViewChangeStatusTick: 500,
		StartViewProbeTicks:  100,
		RepairTicks:          100,
		ScrubTicks:           ScrubTicksDefault,
	}
}

// ScrubTicksDefault is the scrubber's period: one op's two copies read back
// every 20 ticks, so the ops above a checkpoint of 64 are all read within
// about 1,300 ticks of being written.
const ScrubTicksDefault = 50
