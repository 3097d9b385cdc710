package sim

import (
	"fmt"
	"strings"

	"vsrsim/replica"
)

// livenessState tracks the second phase of a run (as in TigerBeetle's VOPR):
// after the faults stop, a core of replicas must converge within a budget.
type livenessState struct {
	active      bool
	start       uint64
	core        []int
	stableSince uint64
	stableView  uint64
	converged   bool
	done        bool

	// Evidence gathered while the core fails to converge.
	gapDrops       map[gapKey]uint64
	gapWorst       gapKey
	gapWorstN      uint64
	unreadable     uint64
	unreadableOp   uint64
	offersStale    uint64
	offerGuard     uint64
	offerOp        uint64
	escalations    uint64
	escalatedBy    [replica.ReplicasMax]uint64
	holds          uint64
	viewAtStart    uint64
	logViewAtStart uint64

	// needsOutside says why the core could not settle a view by itself when
	// the phase began: too few of its replicas could vote and no primary was
	// up anywhere, so a view change needed replicas outside the core, which
	// may stay slow or cut off. A stall then is not the protocol's fault.
	needsOutside string
}

type gapKey struct {
	replica int
	op      uint64
}

func (l *livenessState) observe(e *replica.Event) {
	switch e.Kind {
	case replica.EvDrop:
		switch e.Reason {
		case "gap":
			k := gapKey{e.Replica, e.Op}
			l.gapDrops[k]++
			if n := l.gapDrops[k]; n > l.gapWorstN {
				l.gapWorstN = n
				l.gapWorst = k
			}
		case "dvc-unreadable":
			l.unreadable++
			l.unreadableOp = e.Aux
		}
	case replica.EvOfferRefused:
		if e.Reason == "stale" {
			l.offersStale++
			l.offerGuard = e.Aux
			l.offerOp = e.Op
		}
	case replica.EvViewEscalate:
		l.escalations++
		l.escalatedBy[e.Replica]++
	case replica.EvHold:
		l.holds++
	}
}

// startLiveness ends the fault phase: it picks the core, restarts and connects
// it, and stops new faults and new requests. Faults outside the core may stay:
// a crashed replica outside the core stays down, extra delays stay.
func (c *Cluster) startLiveness() {
	n := c.cfg.Replicas
	core := c.cfg.Core
	if len(core) == 0 {
		order := make([]int, n)
		for i := range order {
			order[i] = i
		}
		size := n
		if !c.faults.Bool() {
			q := replica.QuorumViewChange(n)
			size = q + int(c.faults.Uint64N(uint64(n-q+1)))
		}
		c.faults.Shuffle(n, func(i, j int) { order[i], order[j] = order[j], order[i] })
		core = order[:size]
		sortInts(core)
	}
	c.liveness = livenessState{active: true, start: c.now, core: core, gapDrops: map[gapKey]uint64{}}
	c.net.SetFaultsEnabled(false)
	c.net.HealAll()
	// Fully connect the core: no extra delay between core replicas or between
	// them and the clients. A replica outside the core keeps its slow links.
	nodes := n + c.cfg.Clients
	for _, i := range core {
		for j := 0; j < nodes; j++ {
			if j < n && !inCore(core, j) {
				continue
			}
			c.net.SetExtraDelay(i, j, 0)
			c.net.SetExtraDelay(j, i, 0)
		}
	}
	if s, ok := c.cfg.Script.(LivenessStarter); ok {
		s.LivenessStart(c, core)
	}
	// A run that committed too little proves nothing: the healed core must
	// then commit up to the floor itself before its clients go quiet.
	c.workloadOn = c.cfg.LivenessWorkload || c.checker.CommittedMax() < c.cfg.CommitFloor
	for _, i := range core {
		if c.replicas[i] == nil {
			c.Restart(i)
		}
	}
	for i := 0; i < n; i++ {
		if c.replicas[i] == nil && !inCore(core, i) {
			c.restartAt[i] = 0 // stays down
		}
	}
	view, logView := c.coreViews()
	c.liveness.viewAtStart, c.liveness.logViewAtStart = view, logView
	c.liveness.needsOutside = c.coreNeedsOutside()
	b := c.trace.begin(c.now, "phase")
	b = append(b, "liveness core="...)
	for k, i := range core {
		if k > 0 {
			b = append(b, ',')
		}
		b = replica.AppendNode(b, i, n)
	}
	c.trace.end(c.now, "phase", b)
}

func inCore(core []int, i int) bool {
	for _, k := range core {
		if k == i {
			return true
		}
	}
	return false
}

func sortInts(s []int) {
	for i := 1; i < len(s); i++ {
		for j := i; j > 0 && s[j] < s[j-1]; j-- {
			s[j], s[j-1] = s[j-1], s[j]
		}
	}
}

func (c *Cluster) coreViews() (view, logView uint64) {
	for _, i := range c.liveness.core {
		if r := c.replicas[i]; r != nil {
			info := r.Info()
			if info.View > view {
				view = info.View
			}
			if info.LogView > logView {
				logView = info.LogView
			}
		}
	}
	return view, logView
}

// coreView reports the view every core replica is Normal in, if they agree and
// that view's primary (in the core or not) is up and Normal.
func (c *Cluster) coreView() (uint64, bool) {
	var view uint64
	for k, i := range c.liveness.core {
		r := c.replicas[i]
		if r == nil {
			return 0, false
		}
		info := r.Info()
		if info.Status != replica.StatusNormal {
			return 0, false
		}
		if k == 0 {
			view = info.View
		} else if info.View != view {
			return 0, false
		}
	}
	p := replica.PrimaryOf(view, c.cfg.Replicas)
	if c.replicas[p] == nil {
		return 0, false
	}
	info := c.replicas[p].Info()
	return view, info.Primary && info.View == view
}

// checkConverged reports whether the core has caught up now: every core replica
// has commit_min == commit_max == head at the same op, none is transferring,
// and no client request is outstanding.
func (c *Cluster) checkConverged() bool {
	var head uint64
	for k, i := range c.liveness.core {
		info := c.replicas[i].Info()
		if info.Transferring {
			return false
		}
		if k == 0 {
			head = info.Sequencer
		}
		if info.Sequencer != head || info.CommitMin != head || info.CommitMax != head {
			return false
		}
	}
	return c.outstandingRequests() == 0
}

// tickLiveness advances the liveness phase; it reports true once the core has
// held one view for StableTicks and has caught up. A view that keeps being
// disturbed never passes, even if the core catches up between disturbances.
func (c *Cluster) tickLiveness() bool {
	l := &c.liveness
	if c.workloadOn && !c.cfg.LivenessWorkload && c.checker.CommittedMax() >= c.cfg.CommitFloor {
		c.workloadOn = false
	}
	view, ok := c.coreView()
	if !ok {
		l.converged = false
		return false
	}
	if !l.converged || view != l.stableView {
		l.converged = true
		l.stableSince = c.now
		l.stableView = view
	}
	return c.now-l.stableSince >= c.cfg.StableTicks && c.checker.CommittedMax() >= c.cfg.CommitFloor && c.checkConverged()
}

func (c *Cluster) coreNeedsOutside() string {
	voters := 0
	for _, i := range c.liveness.core {
		if r := c.replicas[i]; r != nil && r.Info().Status != replica.StatusRecovering {
			voters++
		}
	}
	need := replica.QuorumViewChange(c.cfg.Replicas)
	if voters >= need {
		return ""
	}
	for _, r := range c.replicas {
		if r != nil && r.Info().Primary {
			return ""
		}
	}
	return fmt.Sprintf("when the liveness phase began only %d core replicas could vote (need %d) and no primary was up: electing one needed replicas outside the core", voters, need)
}

// recoverable reports whether the core could converge in principle (VOPR's
// cluster_recoverable): enough replicas able to vote, or a primary the
// recovering ones can adopt; and every op that may have committed still held by
// some core replica. A run that fails this is unrecoverable, not a failure.
func (c *Cluster) recoverable() (bool, string) {
	voters := 0
	primary := false
	for _, i := range c.liveness.core {
		r := c.replicas[i]
		if r == nil {
			continue
		}
		info := r.Info()
		if info.Status != replica.StatusRecovering {
			voters++
		}
		if info.Primary {
			primary = true
		}
	}
	if voters < replica.QuorumViewChange(c.cfg.Replicas) && !primary {
		return false, fmt.Sprintf("only %d core replicas can vote (need %d) and no primary is up", voters, replica.QuorumViewChange(c.cfg.Replicas))
	}
	missing := uint64(0)
	held := func(op, sum uint64) bool {
		for _, i := range c.liveness.core {
			if r := c.replicas[i]; r != nil && r.Holds(op, sum) {
				return true
			}
		}
		return false
	}
	top := c.checker.CommittedMax()
	for op := uint64(1); op <= top; op++ {
		if sum, ok := c.checker.Canonical(op); ok && !held(op, sum) {
			missing = op
			break
		}
	}
	if missing == 0 {
		c.checker.DurableOps(func(op, sum uint64) {
			if missing == 0 && !held(op, sum) {
				missing = op
			}
		})
	}
	if missing != 0 {
		return false, fmt.Sprintf("op %d may have committed but no core replica holds it", missing)
	}
	for _, i := range c.liveness.core {
		r := c.replicas[i]
		if r == nil {
			continue
		}
		r.UnsureHollow(func(op, sum uint64) {
			if missing == 0 && !held(op, sum) {
				missing = op
			}
		})
		if missing != 0 {
			return false, fmt.Sprintf("op %d may have been acknowledged by r%d before it lost its journal, and no core replica holds it", missing, i)
		}
	}
	return true, ""
}

// stallEvidence names the mechanism of a liveness failure where it can.
func (c *Cluster) stallEvidence() string {
	l := &c.liveness
	var parts []string
	view, logView := c.coreViews()
	if l.gapWorstN >= 10 {
		parts = append(parts, fmt.Sprintf("r%d dropped Prepare op=%d by the gap check %d times",
			l.gapWorst.replica, l.gapWorst.op, l.gapWorstN))
	}
	for _, i := range l.core {
		r := c.replicas[i]
		if r == nil {
			continue
		}
		info := r.Info()
		if info.Primary && info.PipelineHead > 0 && info.PipelineLaterQuorum {
			parts = append(parts, fmt.Sprintf("commit stuck at %d: op %d has %d ack(s), op %d has a replication quorum",
				info.CommitMax, info.PipelineHead, info.PipelineHeadAcks, info.PipelineLaterQuorumOp))
		}
	}
	if l.unreadable > 0 {
		parts = append(parts, fmt.Sprintf("%d DoViewChange votes dropped as unreadable (last op=%d)", l.unreadable, l.unreadableOp))
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
		parts = append(parts, fmt.Sprintf("%d state-transfer offers refused as stale (last commit_op=%d guard=%d)",
			l.offersStale, l.offerOp, l.offerGuard))
	}
	parts = append(parts, c.coreSummary())
	return strings.Join(parts, "; ")
}

func (c *Cluster) coreSummary() string {
	var b strings.Builder
	fmt.Fprintf(&b, "core did not converge in %d ticks:", c.cfg.LivenessTicks)
	for _, i := range c.liveness.core {
		r := c.replicas[i]
		if r == nil {
			fmt.Fprintf(&b, " r%d down", i)
			continue
		}
		info := r.Info()
		fmt.Fprintf(&b, " r%d %s v=%d op=%d commit=%d/%d", i, info.Status, info.View, info.Sequencer, info.CommitMin, info.CommitMax)
	}
	if n := c.outstandingRequests(); n > 0 {
		fmt.Fprintf(&b, ", %d requests outstanding", n)
	}
	return b.String()
}
