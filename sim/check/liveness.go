package check

import (
	"fmt"
	"strings"
)

// livenessRecord is the second phase of a run (as in TigerBeetle's VOPR):
// after the faults stop, a core of replicas must converge within a budget.
type livenessRecord struct {
	active         bool
	startAt        uint64 // the tick the phase began: the faults' end
	core           []int
	stable         bool
	stableSince    uint64
	stableView     uint64
	viewAtStart    uint64
	logViewAtStart uint64
	now            uint64 // the tick Converged last judged
	// servedNew: a client got the reply to a request issued after the phase
	// began. Finishing old requests is not enough: the core must serve.
	servedNew   bool
	lastReplyAt uint64 // the last reply a client got in this phase
	topAtStable uint64 // the commit point when the stable view began

	// Evidence of the stall's mechanism, gathered while the phase runs.
	gapDrops     map[gapKey]uint64 // looked up only, never iterated
	gapWorst     gapKey
	gapWorstN    uint64
	unreadable   uint64
	unreadableOp uint64
	gapVotes     uint64
	gapVoteOp    uint64
	gapVoteLow   uint64 // the vote's commit point + 1
	gapVoteHigh  uint64 // the bottom of its suffix window
	offersStale  uint64
	offerReason  string
	offerGuard   uint64
	offerOp      uint64
	escalations  uint64
	escalatedBy  [ReplicasMax]uint64
	holds        uint64
}

type gapKey struct {
	replica int
	op      uint64
}

// StartLiveness begins the liveness phase with the given core at tick.
func (c *Checker) StartLiveness(tick uint64, core []int) {
	l := &c.live
	*l = livenessRecord{active: true, core: core, gapDrops: map[gapKey]uint64{}, startAt: tick}
	l.viewAtStart, l.logViewAtStart = c.coreViews()
}

// Drop reasons and refusals the evidence names. They are the replica's words
// for its own drops; the oracle only counts them.
const (
	ReasonGap           = "gap"
	ReasonDVCUnreadable = "dvc-unreadable"
	ReasonDVCGap        = "dvc-gap"
	ReasonStale         = "stale"
	// ReasonBelowAcceptedHead: the source's stale guard refused an offer below
	// an op the replica may have acked. Rightful, but if it repeats the
	// replica never catches up, so the evidence names it too.
	ReasonBelowAcceptedHead = "below-accepted-head"
)

// ReplicaDropped records a message replica i dropped, with the replica's
// reason, during the liveness phase (for a vote dropped for a gap, commit is
// the vote's commit point and aux the bottom of its suffix window).
func (c *Checker) ReplicaDropped(i int, reason string, op, commit, aux uint64) {
	l := &c.live
	if !l.active {
		return
	}
	switch reason {
	case ReasonGap:
		k := gapKey{i, op}
		l.gapDrops[k]++
		if n := l.gapDrops[k]; n > l.gapWorstN {
			l.gapWorstN, l.gapWorst = n, k
		}
	case ReasonDVCUnreadable:
		l.unreadable++
		l.unreadableOp = aux
	case ReasonDVCGap:
		l.gapVotes++
		l.gapVoteOp, l.gapVoteLow, l.gapVoteHigh = op, commit+1, aux
	}
}

// OfferRefused records a refused state-transfer offer at op (guard: the op
// the replica's guard protected).
func (c *Checker) OfferRefused(reason string, op, guard uint64) {
	if l := &c.live; l.active && (reason == ReasonStale || reason == ReasonBelowAcceptedHead) {
		l.offersStale++
		l.offerOp, l.offerGuard, l.offerReason = op, guard, reason
	}
}

// Escalated records that replica i's view-change timeout escalated its view.
func (c *Checker) Escalated(i int) {
	if l := &c.live; l.active {
		l.escalations++
		l.escalatedBy[i]++
	}
}

// Held records a view change held instead of escalated.
func (c *Checker) Held() {
	if l := &c.live; l.active {
		l.holds++
	}
}

func (c *Checker) coreViews() (view, logView uint64) {
	for _, i := range c.live.core {
		r := &c.replicas[i]
		if r.up && r.view > view {
			view = r.view
		}
		if r.up && r.logView > logView {
			logView = r.logView
		}
	}
	return view, logView
}

// coreView reports the view every core replica reported Normal in, if they
// agree and that view's primary (in the core or not) is up and Normal in it.
func (c *Checker) coreView() (uint64, bool) {
	var view uint64
	for k, i := range c.live.core {
		r := &c.replicas[i]
		if !r.up || r.status != StatusNormal {
			return 0, false
		}
		if k == 0 {
			view = r.view
		} else if r.view != view {
			return 0, false
		}
	}
	p := &c.replicas[c.primaryOf(view)]
	return view, p.up && p.status == StatusNormal && p.view == view
}

// Converged advances the liveness phase by one tick and reports whether the
// core has held one view for stableTicks and caught up: every committed op
// applied by every core replica, nothing the primary prepared left
// uncommitted, at least floor ops committed, a request issued in this phase
// served, and no client request outstanding. A view that keeps being
// disturbed never converges. On convergence the end-of-run durability check
// runs.
func (c *Checker) Converged(now, stableTicks, floor uint64, outstanding int) bool {
	l := &c.live
	l.now = now
	if !c.Settled(now, stableTicks) || c.top < floor || outstanding != 0 || !l.servedNew {
		return false
	}
	view := l.stableView
	for _, i := range l.core {
		if c.replicas[i].applied != c.top {
			return false
		}
	}
	if p := &c.replicas[c.primaryOf(view)]; p.ownAckView == view && p.ownAckOp > c.top {
		return false
	}
	c.checkEnd(now)
	return true
}

// Settled reports whether the core has held one view, with its primary up
// and Normal in it, for stableTicks up to now. It is the oracle's record of
// roles: the harness asks it, never a replica, who leads.
func (c *Checker) Settled(now, stableTicks uint64) bool {
	l := &c.live
	view, ok := c.coreView()
	if !ok {
		l.stable = false
		return false
	}
	if !l.stable || view != l.stableView {
		l.stable, l.stableSince, l.stableView = true, now, view
		l.topAtStable = c.top
	}
	return now-l.stableSince >= stableTicks
}

// Progressing judges a core under a continuing workload, where a moment with
// no request outstanding is luck: the core has held one view for
// stableTicks, every core replica has applied at least what was committed
// when that view began to hold, a request issued in this phase was served,
// and replies kept coming within the stable window. The harness then stops
// the workload and Converged asks the core to drain.
func (c *Checker) Progressing(now, stableTicks uint64) bool {
	l := &c.live
	if !c.Settled(now, stableTicks) || !l.servedNew || l.lastReplyAt < l.stableSince {
		return false
	}
	for _, i := range l.core {
		if c.replicas[i].applied < l.topAtStable {
			return false
		}
	}
	return true
}

// ViewClimbing reports whether the core's view has climbed three or more
// views since the liveness phase began: the mark of a view change that
// never settles.
func (c *Checker) ViewClimbing() bool {
	view, _ := c.coreViews()
	return view >= c.live.viewAtStart+3
}

// ServedNew reports whether the core served a request issued in the
// liveness phase.
func (c *Checker) ServedNew() bool { return c.live.servedNew }

// LeadsNormal reports whether the record has replica i up and Normal as the
// primary of the view it last reported.
func (c *Checker) LeadsNormal(i int) bool {
	r := &c.replicas[i]
	return r.up && r.status == StatusNormal && c.primaryOf(r.view) == i
}

// cutOffText names the replicas the harness cut off, for the evidence.
func cutOffText(cut uint16) string {
	if cut == 0 {
		return ""
	}
	return ", or the harness cut them off (" + replicaList(cut) + ")"
}

func (c *Checker) stallEvidence(livenessTicks uint64, outstanding int) string {
	l := &c.live
	var parts []string
	view, logView := c.coreViews()
	if l.gapWorstN >= 10 {
		parts = append(parts, fmt.Sprintf("r%d dropped Prepare op=%d by the gap check %d times",
			l.gapWorst.replica, l.gapWorst.op, l.gapWorstN))
	}
	if s := c.pipelineStuck(); s != "" {
		parts = append(parts, s)
	}
	if l.unreadable > 0 {
		parts = append(parts, fmt.Sprintf("%d DoViewChange votes dropped as unreadable (last op=%d)", l.unreadable, l.unreadableOp))
	}
	if l.gapVotes > 0 {
		parts = append(parts, fmt.Sprintf("%d DoViewChange votes dropped for a gap (last op=%d): ops %d..%d lie above the vote's commit %d and below its window, which starts at %d",
			l.gapVotes, l.gapVoteOp, l.gapVoteLow, l.gapVoteHigh-1, l.gapVoteLow-1, l.gapVoteHigh))
	}
	if view >= l.viewAtStart+3 && logView == l.logViewAtStart {
		parts = append(parts, fmt.Sprintf("view climbed %d -> %d while log_view stayed %d", l.viewAtStart, view, logView))
	} else if view >= l.viewAtStart+3 {
		top := 0
		for i := range l.escalatedBy {
			if l.escalatedBy[i] > l.escalatedBy[top] {
				top = i
			}
		}
		parts = append(parts, fmt.Sprintf("view climbed %d -> %d without settling (%d escalations, %d by r%d)",
			l.viewAtStart, view, l.escalations, l.escalatedBy[top], top))
	}
	if l.offersStale > 0 {
		parts = append(parts, fmt.Sprintf("%d state-transfer offers refused as %s (last commit_op=%d guard=%d)",
			l.offersStale, l.offerReason, l.offerOp, l.offerGuard))
	}
	var b strings.Builder
	fmt.Fprintf(&b, "core did not converge in %d ticks:", livenessTicks)
	for _, i := range l.core {
		b.WriteString(" ")
		b.WriteString(c.describe(i))
	}
	fmt.Fprintf(&b, ", committed %d", c.top)
	if outstanding > 0 {
		fmt.Fprintf(&b, ", %d requests outstanding", outstanding)
	}
	if !l.servedNew {
		b.WriteString(", no request issued in the liveness phase was served")
	}
	parts = append(parts, b.String())
	return strings.Join(parts, "; ")
}

// pipelineStuck names a commit walk blocked by one op: in the current view of
// a live Normal primary, the first op above the commit point lacks a quorum
// the primary could count while a later op has one.
func (c *Checker) pipelineStuck() string {
	view, _ := c.coreViews()
	p := c.primaryOf(view)
	if pr := &c.replicas[p]; !pr.up || pr.status != StatusNormal || pr.view != view {
		return ""
	}
	first := c.top + 1
	if first >= uint64(len(c.acks)) {
		return ""
	}
	best := func(op uint64) int {
		n := 0
		for k := range c.acks[op] {
			if s := &c.acks[op][k]; s.view == view {
				if m := popcount(c.countedAcks(s)); m > n {
					n = m
				}
			}
		}
		return n
	}
	if best(first) >= c.qRep {
		return ""
	}
	for op := first + 1; op < uint64(len(c.acks)); op++ {
		if best(op) >= c.qRep {
			return fmt.Sprintf("commit stuck at %d: op %d has %d ack(s), op %d has a replication quorum",
				c.top, first, best(first), op)
		}
	}
	return ""
}
