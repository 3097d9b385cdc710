package sim

import (
	"vsrsim/replica"
	"vsrsim/vsr"
)

// livenessState is the harness's side of the liveness phase: which replicas
// form the core. Judging whether the core converged is the oracle's
// (check.Checker.Converged, Stalled).
type livenessState struct {
	active bool
	core   []int
	since  uint64 // the phase's first tick
}

// startLiveness ends the fault phase: it picks the core, restarts and connects
// it, and stops new faults and new requests. Faults outside the core may stay:
// a crashed replica outside the core stays down, extra delays stay.
func (c *Cluster) startLiveness() {
	n := c.cfg.Replicas
	core := c.cfg.Core
	if len(core) == 0 {
		core = c.drawCore()
	}
	c.liveness = livenessState{active: true, core: core, since: c.now}
	if c.recording != nil {
		c.recording.Core = append([]int(nil), core...)
	}
	c.net.SetFaultsEnabled(false)
	c.net.HealAll()
	c.coreDisksClean(core)
	c.aimedAtLiveness(core)
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
	if s, ok := c.script.(LivenessStarter); ok {
		s.LivenessStart(c, core)
	}
	// The clients keep asking until the healed core has served a request
	// issued in this phase and committed up to the floor (a run that
	// committed too little proves nothing); a continuing workload goes on
	// until the oracle judges the core progressing under it (one view held
	// for StableTicks, every core replica caught up with what was committed
	// when it began, replies coming). Then they go quiet and the core must
	// drain: the verdict never hangs on a moment when clients happen to be
	// idle (tickLiveness).
	c.workloadOn = true
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
	c.checker.StartLiveness(c.now, core)
	b := c.trace.begin(c.now, "phase")
	b = append(b, "liveness core="...)
	for k, i := range core {
		if k > 0 {
			b = append(b, ',')
		}
		b = vsr.AppendNode(b, i, n)
	}
	c.trace.end(c.now, "phase", b)
}

// drawCore draws the core from the faults stream: all replicas in half the
// seeds, else a random view-change quorum or more. As VOPR keeps its core
// recoverable, a drawn core then trades members so that it holds a
// view-change quorum of replicas whose journals survived (down replicas are
// restarted into the core, so with a WAL they count), when the cluster has
// that many.
func (c *Cluster) drawCore() []int {
	n := c.cfg.Replicas
	order := make([]int, n)
	for i := range order {
		order[i] = i
	}
	size := n
	if !c.faults.Bool() {
		q := c.checker.QuorumViewChange()
		size = q + int(c.faults.Uint64N(uint64(n-q+1)))
	}
	c.faults.Shuffle(n, func(i, j int) { order[i], order[j] = order[j], order[i] })
	if c.cfg.BareCore {
		size = c.checker.QuorumViewChange()
	}
	whole := func(i int) bool {
		// A replica down on a write-ahead journal comes back as whole as
		// it went down: one amnesiac then (its superblock lost, say) is
		// amnesiac still, and cannot vote until a view reaches it.
		down := c.replicas[i] == nil && c.cfg.Durability == replica.DurabilityWAL
		return c.checker.Whole(i) || (down && !c.checker.Amnesiac(i))
	}
	wholeIn := 0
	for _, i := range order[:size] {
		if whole(i) {
			wholeIn++
		}
	}
	for out := size; out < n && wholeIn < c.checker.QuorumViewChange(); out++ {
		if !whole(order[out]) {
			continue
		}
		for in := 0; in < size; in++ {
			if !whole(order[in]) {
				order[in], order[out] = order[out], order[in]
				wholeIn++
				break
			}
		}
	}
	core := order[:size]
	sortInts(core)
	return core
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

// tickLiveness advances the liveness phase; it reports true once the oracle
// judges the core converged.
func (c *Cluster) tickLiveness() bool {
	if c.workloadOn && c.checker.ServedNew() && c.checker.CommittedMax() >= c.cfg.CommitFloor &&
		(!c.cfg.LivenessWorkload || c.checker.Progressing(c.now, c.cfg.StableTicks)) {
		c.workloadOn = false
	}
	return c.checker.Converged(c.now, c.cfg.StableTicks, c.cfg.CommitFloor, c.outstandingRequests())
}

// Assist is one intervention of the harness that changed what a run had to
// survive: a replica cut off in the liveness phase so the core could converge.
// A run never gets help silently: each assist is in its result (JSON
// `assists`), a note line of its trace, and the sweep's `assisted` count.
type Assist struct {
	Tick    uint64 `json:"tick"`
	Replica int    `json:"replica"`
	Rule    string `json:"rule"`
	Cause   string `json:"cause"`
}

// Assist rules: a contract with the JSON output and docs/checkers.md.
const (
	// AssistLeaderCutOff: in a run without abdication, a replica outside
	// the core still led a view two StableTicks into the liveness phase
	// while a link into it from the core stayed slower than the heartbeat
	// timeout, or cut for good (D21, D28, narrowed by D43).
	AssistLeaderCutOff = "leader-cut-off"
	// AssistSourceStraggler: in a swarm run of a source protocol (no
	// StartViewChange quorum window) whose core had not settled two
	// StableTicks into the liveness phase, a replica outside the core that
	// hears the core later than the heartbeat timeout, or not at all (D27).
	AssistSourceStraggler = "source-straggler-cut-off"
	// AssistRecordedCutOff: a recorded run replays a straggler cut-off its
	// recording made (liveness isolate).
	AssistRecordedCutOff = "recorded-cut-off"
	// AssistHolderHealed: a replica one of the rules above would cut off
	// whose cut-off would leave the core an op it could not decide by the
	// core rules (the oracle's record: it holds the op's last reachable
	// copy, or its nack is one the core needs) has its kept faults healed
	// instead: its links' extra delays set to zero, its kept cuts raised
	// (D64).
	AssistHolderHealed = "holder-healed"
	// AssistRecordedHeal: a recorded run replays a heal its recording made
	// (liveness heal).
	AssistRecordedHeal = "recorded-heal"
)

func (c *Cluster) assist(i int, rule, cause string) {
	c.assists = append(c.assists, Assist{Tick: c.now, Replica: i, Rule: rule, Cause: cause})
}
