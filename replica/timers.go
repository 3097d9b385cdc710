package replica

// timers is every countdown a replica runs and the clock they share (one
// room of a replica's state, issue 36): the protocol arms and stops them by
// name, Tick fires them in their fixed order (timeouts), and the clock keeps
// the earliest deadline so a tick that fires nothing touches none.
type timers struct {
	prepare   timeout // a primary's retransmission of prepares not yet acked
	commit    timeout // a backup's patience with a silent primary
	heartbeat timeout // a primary's Commit heartbeat
	vcMsg     timeout // the view change's retransmission of its messages
	vcStatus  timeout // escalation of a view change that does not finish
	probe     timeout // a recovering replica's RequestStartView probe
	repair    timeout // a repair session's retries
	transfer  timeout // a state transfer's retries
	abdicate  timeout // a primary's check on its own replication
	leave     timeout // the window in which requests to leave count
	clk       timerClock
}

// init names every countdown and sets its period from opts, and gives each
// its turn in Tick and the shared clock.
func (t *timers) init(opts Options) {
	p := opts.Timeouts
	t.prepare = timeout{name: "prepare", after: p.PrepareTicks, backoff: true}
	t.commit = timeout{name: "commit", after: p.CommitTicks}
	t.heartbeat = timeout{name: "heartbeat", after: p.HeartbeatTicks}
	t.vcMsg = timeout{name: "view_change_message", after: p.ViewChangeMsgTicks, backoff: true}
	backoff := !opts.Protocol.BackoffOff
	// The status timeout backs off to 8x only: enough to outwait replicas
	// a view-change round trip apart (three 600-tick hops), while one that lands on
	// a crashed primary still escalates within seconds.
	t.vcStatus = timeout{name: "view_change_status", after: p.ViewChangeStatusTick, backoff: backoff, shiftMax: 3}
	t.probe = timeout{name: "start_view_probe", after: p.StartViewProbeTicks}
	t.repair = timeout{name: "repair", after: p.RepairTicks, backoff: backoff}
	t.transfer = timeout{name: "transfer", after: p.RepairTicks, backoff: backoff}
	t.abdicate = timeout{name: "abdicate", after: p.HeartbeatTicks}
	t.leave = timeout{name: "start_view_change_window", after: p.ViewChangeStatusTick}
	t.clk.pos = tickDone
	for i, c := range t.all() {
		c.clk, c.pos = &t.clk, i
	}
}

// all is every countdown in its turn's order (Tick fires them in it).
func (t *timers) all() [10]*timeout {
	return [10]*timeout{&t.prepare, &t.commit, &t.heartbeat, &t.vcMsg, &t.vcStatus,
		&t.probe, &t.repair, &t.transfer, &t.abdicate, &t.leave}
}

// findNext sets the clock's next tick to look at: the earliest deadline of
// a running countdown.
func (t *timers) findNext() {
	t.clk.next = uint64(1<<64 - 1)
	for _, c := range t.all() {
		if c.running {
			t.clk.next = min(t.clk.next, c.deadline)
		}
	}
}

// check asserts what lets a tick skip the countdowns: none running is due
// before the clock's next tick, and each keeps its own turn on this clock.
func (t *timers) check(self int) {
	for i, c := range t.all() {
		invariant(self, c.clk == &t.clk && c.pos == i, "timers_share_the_clock", "timer %d", uint64(i))
		invariant(self, !c.running || t.clk.next <= c.deadline, "timers_next_at_or_before_deadline",
			"timer %d deadline %d next %d", uint64(i), c.deadline, t.clk.next)
	}
}
