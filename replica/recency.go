package replica

import (
	"vsrsim/marks"
	"vsrsim/vsr"
)

// Recency (protocol.md "Prompt recovery"). Each replica notes when it last
// heard each peer. Two things follow. A replica whose retries backed off while
// it was cut off starts them afresh once it hears a replication quorum again
// (itself included): the backoff exists to spare a cluster that cannot answer,
// and a healed one can (a backup whose repair timer had reached its cap
// waited up to 1,600 ticks after a heal before asking again). And a repair,
// a range a peer evicted, or a state transfer's request for an offer passes
// over a primary that has gone silent (cut off from this replica) while
// another peer may answer: asking it would cost a whole retry period.

// recentTicks is how lately a peer must have been heard to count as
// answering: a backup's heartbeat timeout, the longest a healthy view leaves
// a backup without a word from its primary.
func (r *Replica) recentTicks() uint64 { return r.opts.Timeouts.HeartbeatTicks }

// noteHeard records that m came from a peer, and starts backed-off retries
// afresh when it makes a quorum heard again.
func (r *Replica) noteHeard(m *vsr.Message) {
	f := m.From
	if !r.peers.IsPeer(f) {
		return
	}
	if r.peers.Hear(f, r.timers.Clk.Now, r.recentTicks()) {
		return // already recent: the count of peers heard did not change
	}
	if r.peersHeard()+1 == vsr.QuorumReplication(r.n) {
		r.resetBackoff()
	}
}

// heardRecently reports whether peer i was heard within recentTicks.
func (r *Replica) heardRecently(i int) bool {
	return r.peers.HeardWithin(i, r.timers.Clk.Now, r.recentTicks())
}

// peersHeard counts the peers heard recently.
func (r *Replica) peersHeard() int {
	return r.peers.CountHeardWithin(r.timers.Clk.Now, r.recentTicks())
}

// resetBackoff starts the retries that backed off afresh: repair (asked again
// at once, from the primary on), the state transfer's next request, and
// view-change retransmits.
func (r *Replica) resetBackoff() {
	if !r.peers.ResetsBackoff() {
		return
	}
	reset := false
	if r.repair.stalls > 0 && r.status == vsr.StatusNormal {
		// Ask again now, from the primary on: the session that waited
		// went to a peer that could not answer.
		r.repair.stalls = 0
		r.repair.unhelpful = 0
		if r.repair.active && !r.repair.progress {
			r.repair.active = false
		}
		r.repairKick()
		if !r.repair.active && r.timers.Repair.Running {
			r.timers.Repair.Retry(r.jitter, 0)
		}
		vsr.Assert(r.id, r.repairRounds() == 0, "backoff_reset_repair_rounds", vsr.DetailHolds)
		reset = true
	}
	if r.transfer.active && r.timers.Transfer.Running && r.timers.Transfer.Attempts > 0 {
		r.timers.Transfer.Retry(r.jitter, 0)
		reset = true
	}
	if r.timers.VcMsg.Running && r.timers.VcMsg.Attempts > 0 {
		r.timers.VcMsg.Retry(r.jitter, 0)
		reset = true
	}
	// The view-change status timeout (escalation) keeps its backoff: a
	// peer behind a link slower than recentTicks is heard, lost and heard
	// again every round trip, and starting escalation afresh each time
	// kept a view change with 1,200-tick round trips from ever completing
	// (slow-pair-primary-crash).
	if reset {
		r.fx.Mark(marks.BackoffReset)
	}
}

// nextPeer returns the first peer, in rotation from start on, that ok
// accepts, passing over a silent primary while another peer is acceptable;
// -1 if none is. Only the primary's silence says anything: it heartbeats
// every backup, while backups of a star never speak to each other unasked.
func (r *Replica) nextPeer(start int, ok func(int) bool) int {
	silent := -1
	for k := 0; k < r.n; k++ {
		c := (start + k) % r.n
		if c == r.id || !ok(c) {
			continue
		}
		if r.silentPrimary(c) {
			silent = c
			continue
		}
		if silent >= 0 {
			r.fx.Mark(marks.PeerRecentChosen) // the silent primary passed over
		}
		vsr.Assert(r.id, c != r.id, "next_peer_is_a_peer", vsr.DetailHolds)
		return c
	}
	// The only peer passed over for silence is the primary.
	vsr.Assert(r.id, silent < 0 || silent == r.primary(), "next_peer_silent_is_primary", "peer %d", uint64(silent))
	return silent
}

// silentPrimary reports whether c is this replica's primary and has not been
// heard within recentTicks: a request to it would wait out a retry period.
func (r *Replica) silentPrimary(c int) bool {
	return r.peers.ResetsBackoff() && c == r.primary() && !r.heardRecently(c)
}
