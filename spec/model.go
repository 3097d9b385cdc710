package spec

import (
	"fmt"
	"math/bits"
	"slices"
)

// snapshot is the part of a replica's state a message rule reads.
type snapshot struct {
	status  Status
	view    uint64
	logView uint64
}

// cause is what started a replica's step: a message delivered to it, or a
// tick (in which some of its timeouts may have fired).
type cause struct {
	delivered bool
	msg       Message // when delivered
	timeout   bool    // a timeout of its own fired in the step
	// mustHold: the view-change status timeout fired while the replica
	// had to hold its view (escalate_holds); held: it reported the hold.
	mustHold, held bool
	holdView       uint64 // the view it had to hold
}

// opSum is one journal entry: an op and its checksum.
type opSum struct{ op, sum uint64 }

// replicaState is the model's abstract state of one replica.
type replicaState struct {
	snapshot
	// announced: the replica reported a status in this life. A restarted
	// replica reports the status it came back in on its first step (or
	// stays recovering until it adopts a view); that first report is
	// judged by the restart's rules, not by the rules for entering a
	// status.
	announced bool
	// floor is the highest view the replica ever reported.
	floor uint64
	// log holds the checksum journaled at each op (0: none), as the
	// replica's journal events show it. Entries a replica lets go without
	// an event (a transfer install's wipe, a displacement into the evicted
	// ring, a disk's lost slot) stay, which can only make a rule pass.
	log []uint64
	// restored is the last entry the step's journal_restore events took
	// up (storage.go), for restore_chains.
	restored opSum
	// Votes delivered in this life, by view: StartViewChange (not leave)
	// and DoViewChange senders; and the senders of requests to leave this
	// replica's view or a later one since its last status change. The
	// replica counts no more than these. By view, not for the highest view
	// only: a recovering replica drops a vote for a view it may never
	// reach, and must still be credited for the votes of the view it does.
	// Maps are only looked up, never ranged over.
	svcs, dvcs map[uint64]uint16
	leaveFrom  uint16
	// oldHeartbeat: in this view change an older view's primary
	// heartbeat the replica (a Commit of its view, refused as old).
	oldHeartbeat bool
	// acks holds, by op, the checksum of every PrepareOk that left this
	// replica in ackView, the latest view it acked in, in any life: an ack
	// promises the op to every later vote of that log_view.
	ackView uint64
	acks    []uint64
	// lives counts the replica's restarts; ackLives holds, by op, the life
	// its ack in acks left in, and ackViewLife the life that first acked in
	// ackView: a finding that a vote lost an ack names the life that made
	// it (Finding.Life), so a disk that lost the replica's superblock after
	// that life, and only then, excuses it.
	lives, ackViewLife uint64
	ackLives           []uint64
	// older holds, by op, the last ack of an older view than ackView that
	// no journal event of the replica let go since (vote_keeps_older_acks);
	// olderLives the life each left in; acksGone, by op, the checksum of an
	// ack of ackView a journal event let go since (0: none).
	older, olderLives, acksGone []uint64
	// headLogView is the newest log_view whose head a status report gave
	// (LogHead).
	headLogView uint64
	// cutApplied is the first entry the step truncated that a replica
	// applied (truncate_keeps_applied); installed: the step installed a
	// checkpoint.
	cutApplied opSum
	installed  bool

	// The current step: what started it, every state the replica held in
	// it (a message is judged against any of them, since a step's events
	// and messages are reported apart, not interleaved), and the entries
	// it dropped (a message sent before the drop may name them).
	cause   cause
	seen    []snapshot
	removed []opSum
	// prepares are the prepare copies the step asked for, and asked the
	// last one asked for each slot in this life (storage.go).
	prepares []stepWrite
	asked    []askedEntry
	// stepSuperblock: the step asked for a superblock copy. commitBefore:
	// the commit point of the last superblock landed as the step began;
	// displaced, the acked ops the step's entries pushed off their slots
	// above it (storage.go). fences counts the fenced writes asked in this
	// life, and landing the superblocks among them until they land.
	stepSuperblock bool
	commitBefore   uint64
	displaced      []displacedOp
	fences         uint64
	fencesLanded   uint64 // how many of them the harness said landed (Landed)
	landing        []fencedCommit
	landed         uint64
	landedKnown    bool
	// durable is what the last fenced superblock copy asked for in this
	// life makes durable (durableAsked: one was asked; durable.go).
	durable      Durable
	durableAsked bool
	// settled is the highest op the replica applied, checkpointed or
	// installed, in any life (storage.go).
	settled uint64
	// forgot: a restart of it read back no whole superblock, and it has
	// not entered Normal since (amnesia.go).
	forgot bool
	// walk is what the commit walk rule keeps (walk.go).
	walk walkState
	// restoreLogView is the log_view of the superblock its last restart
	// came back at (restoreKnown: the harness reported one; storage.go).
	restoreLogView uint64
	restoreKnown   bool
}

// Model checks a run's steps against the protocol. It is fed in process by
// the harness, one replica step at a time: Delivered or Ticked opens a step,
// then the step's events (Status, TimedOut, Held, Journaled, Unjournaled)
// and the messages it sends (Sent) follow, and EndStep closes it. OnWire and
// Restart come between steps. Vote tallies are bit masks of replica ids:
// a cluster has at most 9 replicas, a mask holds 16.
type Model struct {
	cfg      Config
	replicas []replicaState
	now      uint64
	steps    uint64
	failure  *Finding
	// applied holds, by op, the checksum some replica applied there and
	// the lowest view it was applied in (committedKept): an applied op is
	// committed, and every later view's log holds it.
	applied []appliedOp
	// logs holds the entry each view's Prepares and StartViews stated at
	// each op (logs.go).
	logs viewLogs
}

// appliedOp is an op some replica applied: its checksum (0: none yet) and
// the lowest view a replica applied it in.
type appliedOp struct{ sum, view uint64 }

// New returns a model of a fresh cluster: every replica Normal in view 0
// with an empty log, as replicas start.
func New(cfg Config) *Model { return NewFrom(cfg, nil) }

// NewFrom is New reusing the memory of old, a model whose run is over (nil
// for none): a sweep worker's runs then allocate no model of their own.
// Nothing of old's record survives.
func NewFrom(cfg Config, old *Model) *Model {
	m := old
	if m == nil {
		m = &Model{}
	}
	replicas := m.replicas[:0]
	for i := range cfg.Replicas {
		var r replicaState
		if i < cap(replicas) {
			r = replicas[:i+1][i]
		}
		if r.svcs == nil {
			r.svcs, r.dvcs = map[uint64]uint16{}, map[uint64]uint16{}
		}
		clear(r.svcs)
		clear(r.dvcs)
		replicas = append(replicas, replicaState{announced: true, svcs: r.svcs, dvcs: r.dvcs,
			log: r.log[:0], acks: r.acks[:0], ackLives: r.ackLives[:0], older: r.older[:0], olderLives: r.olderLives[:0], acksGone: r.acksGone[:0], seen: r.seen[:0], removed: r.removed[:0],
			prepares: r.prepares[:0], asked: r.asked,
			walk: walkState{known: true, unread: r.walk.unread[:0], tops: r.walk.tops[:0]}})
		clear(replicas[i].asked)
	}
	logs := m.logs
	logs.reset()
	*m = Model{cfg: cfg, replicas: replicas, applied: m.applied[:0], logs: logs}
	return m
}

// Failed returns the first rule the run broke, or nil.
func (m *Model) Failed() *Finding { return m.failure }

// Steps is how many replica steps the model judged.
func (m *Model) Steps() uint64 { return m.steps }

func (m *Model) primary(view uint64) int { return int(view % uint64(m.cfg.Replicas)) }

func (m *Model) fail(i int, rule, format string, args ...any) {
	if m.failure != nil {
		return
	}
	r := &m.replicas[i]
	m.failure = &Finding{Rule: rule, Text: ruleTexts[rule], Tick: m.now, Replica: i, Step: m.steps,
		Evidence: fmt.Sprintf("replica %d at step %d (%s; model: %s view=%d log_view=%d): %s; rule: %s",
			i, m.steps, r.cause.describe(), r.status, r.view, r.logView, fmt.Sprintf(format, args...), ruleTexts[rule])}
}

// promisedIn names, on the finding just made, the life in which the replica
// made the promise it broke, and the life it broke it in.
func (m *Model) promisedIn(rule string, life uint64) {
	if f := m.failure; f != nil && f.Rule == rule {
		f.Promise, f.Life, f.Broke = true, life, m.replicas[f.Replica].lives
	}
}

// failOp is fail for a rule about one op: the finding names it.
func (m *Model) failOp(i int, op uint64, rule, format string, args ...any) {
	m.fail(i, rule, format, args...)
	if m.failure != nil && m.failure.Rule == rule && m.failure.Op == 0 {
		m.failure.Op = op
	}
}

// startViewChangeFor reports whether the step was opened by an unmarked
// StartViewChange for view v.
func (c *cause) startViewChangeFor(v uint64) bool {
	return c.delivered && c.msg.Command == CmdStartViewChange && !c.msg.Leave && c.msg.View == v
}

func (c *cause) describe() string {
	if c.delivered {
		return "on " + c.msg.String()
	}
	if c.timeout {
		return "on a timeout"
	}
	return "on a tick"
}

// begin opens a step of replica i.
func (m *Model) begin(tick uint64, i int, c cause) {
	m.now = tick
	m.steps++
	r := &m.replicas[i]
	r.cause = c
	r.seen = append(r.seen[:0], r.snapshot)
	r.removed = r.removed[:0]
	r.prepares = r.prepares[:0]
	r.stepSuperblock = false
	r.commitBefore = r.landed
	if !r.landedKnown {
		// A restart that read back no whole superblock copy: no displacement
		// is judged until a superblock of this life has landed.
		r.commitBefore = ^uint64(0)
	}
	r.displaced = r.displaced[:0]
	r.restored = opSum{}
	r.cutApplied, r.installed = opSum{}, false
}

// Ticked opens a step of replica i driven by the clock.
func (m *Model) Ticked(tick uint64, i int) { m.begin(tick, i, cause{}) }

// Delivered opens a step of replica i on a message delivered to it, and
// records the votes the message carries.
func (m *Model) Delivered(tick uint64, i int, msg *Message) {
	m.begin(tick, i, cause{delivered: true, msg: *msg})
	if msg.From < 0 || msg.From >= m.cfg.Replicas || msg.From == i {
		return
	}
	r := &m.replicas[i]
	bit := uint16(1) << uint(msg.From)
	switch msg.Command {
	case CmdCommit:
		if r.status == StatusViewChange && msg.View < r.view && msg.From == m.primary(msg.View) {
			r.oldHeartbeat = true
		}
	case CmdStartViewChange:
		if msg.Leave {
			if msg.View >= r.view {
				r.leaveFrom |= bit
			}
			return
		}
		r.svcs[msg.View] |= bit
	case CmdDoViewChange:
		r.dvcs[msg.View] |= bit
	}
}

// Timer names the timeouts a rule tells apart.
type Timer uint8

// Timers.
const (
	TimerOther            Timer = iota
	TimerViewChangeStatus       // the view-change status timeout, which escalates or holds
)

// TimedOut records that timeout t of replica i fired in its step.
func (m *Model) TimedOut(i int, t Timer) {
	r := &m.replicas[i]
	r.cause.timeout = true
	if t == TimerViewChangeStatus && r.status == StatusViewChange && r.oldHeartbeat &&
		r.votesFor(r.view) < quorumViewChange(m.cfg.Replicas)-1 {
		r.cause.mustHold, r.cause.holdView = true, r.view
	}
}

// votesFor counts the replicas heard joining view v's change: the senders
// of a StartViewChange or a DoViewChange for it (a vote joins it too). The
// replica counts no more than these.
func (r *replicaState) votesFor(v uint64) int {
	return bits.OnesCount16(r.svcs[v] | r.dvcs[v])
}

// Held records that replica i held its view instead of escalating.
func (m *Model) Held(i int) {
	r := &m.replicas[i]
	r.cause.held = true
	r.oldHeartbeat = false
}

// EndStep closes replica i's step: the rules that weigh the whole step.
func (m *Model) EndStep(i int) {
	m.endWrites(i)
	m.checkCommitWalk(i, &m.replicas[i])
	m.checkTruncated(i, &m.replicas[i])
	c := &m.replicas[i].cause
	if c.mustHold && !c.held {
		m.fail(i, RuleEscalateHolds, "escalates from view %d on its view-change status timeout while an older view's primary heartbeats it and it heard too few StartViewChange for its vote", c.holdView)
	}
	c.mustHold = false
}

// Journaled records that replica i journaled op with checksum sum.
func (m *Model) Journaled(i int, op, sum uint64) {
	r := &m.replicas[i]
	r.log = setAt(r.log, op, sum)
	r.walk.walkJournaled(op, m.cfg.JournalSlots)
}

// Unjournaled records that replica i dropped op (checksum sum) from its
// journal: truncated, pruned, set aside or evicted for good.
func (m *Model) Unjournaled(i int, op, sum uint64) {
	r := &m.replicas[i]
	if op < uint64(len(r.log)) && r.log[op] == sum {
		r.log[op] = 0
	}
	if op < uint64(len(r.older)) && r.older[op] == sum {
		r.older[op] = 0 // the replica let it go itself: a later log decides
	}
	if op < uint64(len(r.acks)) && r.acks[op] == sum && sum != 0 {
		r.acksGone = setAt(r.acksGone, op, sum) // for the older-acks rule alone
	}
	r.removed = append(r.removed, opSum{op, sum})
}

// Truncated records that replica i took op (checksum sum) out of its
// journal as not in its log (a view change's truncation, a repair's
// replacement), for truncate_keeps_applied at the step's end. It is
// Unjournaled too.
//
// Only an op applied in the log_view the replica held as the step began, or
// an earlier view, counts: that log holds it, as every later one does. An
// op applied in a later view may carry the same checksum as an entry of an
// older log the replica held (a client's retried request prepared again at
// the same op on the same parent), and a StartView of the later view rightly
// cuts the older log's entry (swarm seed 991).
func (m *Model) Truncated(i int, op, sum uint64) {
	r := &m.replicas[i]
	if r.cutApplied.sum == 0 && op < uint64(len(m.applied)) && m.applied[op].sum == sum && sum != 0 && m.applied[op].view <= r.seen[0].logView {
		r.cutApplied = opSum{op, sum}
	}
}

// checkTruncated: truncate_keeps_applied, unless the step installed a
// checkpoint: a state transfer replaces the log above it as its state does
// (the source's install cuts the whole journal, a protocol option), and
// repair fetches the ops again.
func (m *Model) checkTruncated(i int, r *replicaState) {
	c := r.cutApplied
	if c.sum == 0 || r.installed {
		return
	}
	m.failOp(i, c.op, RuleTruncateKeepsApplied, "truncates op %d checksum %x from its journal, which a replica applied in view %d, at or before its log_view %d: an applied op is committed, every later log holds it, and its body is kept (set aside where the log cannot vouch for it yet)",
		c.op, c.sum, m.applied[c.op].view, r.seen[0].logView)
}

// holds reports whether replica i held op with checksum sum in this step.
func (r *replicaState) holds(op, sum uint64) bool {
	if op < uint64(len(r.log)) && r.log[op] == sum && sum != 0 {
		return true
	}
	return slices.Contains(r.removed, opSum{op, sum})
}

// OnWire records a message that left the harness for the network: on a
// disk a PrepareOk waits in the harness until the write it stands on lands,
// and only an ack that left is a promise.
func (m *Model) OnWire(msg *Message) {
	if msg.From < 0 || msg.From >= m.cfg.Replicas {
		return
	}
	if msg.Command != CmdPrepareOk {
		m.stateOnWire(msg)
		return
	}
	r := &m.replicas[msg.From]
	switch {
	case msg.View > r.ackView:
		r.keepOlder()
		r.ackView, r.acks, r.ackLives, r.ackViewLife = msg.View, r.acks[:0], r.ackLives[:0], r.lives
		r.acksGone = r.acksGone[:0]
	case msg.View < r.ackView:
		return
	}
	r.acks = setAt(r.acks, msg.Op, msg.Checksum)
	r.ackLives = setAt(r.ackLives, msg.Op, r.lives)
	if msg.Op < uint64(len(r.acksGone)) {
		r.acksGone[msg.Op] = 0 // acked again: it binds again
	}
}

// setAt sets s[op] = sum, growing s with zeros as needed.
func setAt(s []uint64, op, sum uint64) []uint64 {
	if n := int(op) + 1; len(s) < n {
		// Doubling, not append's gentler growth for long slices: the
		// model's per-op records grow with a run, and their allocations
		// must stay a setup cost (sim's TestRunAllocationsFlat).
		old := len(s)
		if cap(s) < n {
			s = slices.Grow(s, max(n, 2*cap(s))-old)
		}
		s = s[:n]
		clear(s[old:]) // a slice cut to [:0] keeps its old values
	}
	s[op] = sum
	return s
}

// Restart records that replica i came back in a new life. keepLog says its
// journal survived as it was (a write-ahead journal in memory). On a disk it
// does not: the restart reports every entry it took up back from the disk
// at its first step (Restored), and nothing else counts as held.
func (m *Model) Restart(i int, keepLog bool) {
	r := &m.replicas[i]
	r.lives++
	r.announced = false
	r.status = StatusRecovering
	clear(r.svcs)
	clear(r.dvcs)
	r.leaveFrom = 0
	r.oldHeartbeat = false
	clear(r.asked) // a restart may read back any entry the disk holds
	r.durable, r.durableAsked = Durable{}, false
	r.fences, r.fencesLanded, r.landing, r.landedKnown = 0, 0, r.landing[:0], false
	lost := !keepLog || m.cfg.Disk
	if lost {
		r.log = r.log[:0]
	}
	r.walk.walkRestart(lost)
	r.restoreLogView, r.restoreKnown = 0, false
}

// Status is replica i's report of its status, view and log_view: the model's
// action for entering a status, with its rules.
func (m *Model) Status(i int, st Status, view, logView uint64) {
	if m.failure != nil {
		return
	}
	r := &m.replicas[i]
	if m.statusHolds(i, r, st, view, logView) && m.amnesiaHolds(i, r, st, view) {
		switch {
		case !r.announced:
			if st == StatusNormal && m.primary(view) == i {
				m.fail(i, RuleRestartPrimary, "restarts Normal as the primary of view %d", view)
			}
		case st == StatusNormal && (r.status != StatusNormal || r.view != view):
			m.enterNormal(i, view)
		case st == StatusViewChange && (r.status != StatusViewChange || r.view != view):
			m.enterViewChange(i, view)
		}
	}
	r.announced = true
	r.status, r.view, r.logView = st, view, logView
	r.floor = max(r.floor, view)
	// The replica forgets the requests to leave, and an older primary's
	// heartbeats, at every status change; a request that opened this step
	// may be handled after it (a restarted replica reports its status
	// first), so it counts again.
	r.leaveFrom = m.leaveOpening(i, view)
	r.oldHeartbeat = false
	r.seen = append(r.seen, r.snapshot)
}

// leaveOpening is the request to leave view or a later one that opened
// replica i's step, as a mask of its sender (0 if none).
func (m *Model) leaveOpening(i int, view uint64) uint16 {
	c := &m.replicas[i].cause
	if !c.delivered || c.msg.Command != CmdStartViewChange || !c.msg.Leave || c.msg.View < view ||
		c.msg.From < 0 || c.msg.From >= m.cfg.Replicas || c.msg.From == i {
		return 0
	}
	return 1 << uint(c.msg.From)
}

// statusHolds checks the invariants a reported status must satisfy
// whatever led to it, and reports whether they hold.
func (m *Model) statusHolds(i int, r *replicaState, st Status, view, logView uint64) bool {
	switch {
	case r.announced && view < r.view:
		m.fail(i, RuleViewMonotonic, "reports view %d below its view %d", view, r.view)
	case !r.announced && m.cfg.ViewFloor && view < r.floor:
		m.fail(i, RuleViewMonotonic, "restarts in view %d below view %d it reported before", view, r.floor)
	case logView > view:
		m.fail(i, RuleLogViewAtMostView, "reports log_view %d above view %d", logView, view)
	case st == StatusNormal && logView != view:
		m.fail(i, RuleNormalLogView, "reports Normal in view %d with log_view %d", view, logView)
	default:
		return true
	}
	return false
}

// enterNormal: VRR 4.2 steps 3 to 5. The primary starts view v after a
// quorum of DoViewChange votes; a backup enters it from a StartView.
func (m *Model) enterNormal(i int, view uint64) {
	r := &m.replicas[i]
	if m.primary(view) == i {
		others := bits.OnesCount16(r.dvcs[view])
		if need := quorumViewChange(m.cfg.Replicas) - 1; others < need {
			m.fail(i, RuleEnterNormal, "starts view %d as its primary with DoViewChange votes from %d other replicas, fewer than %d", view, others, need)
		}
		return
	}
	c := &r.cause
	if !c.delivered || c.msg.Command != CmdStartView || c.msg.View != view {
		m.fail(i, RuleEnterNormal, "enters Normal in view %d as a backup with no StartView for it delivered", view)
	}
}

// enterViewChange: VRR 4.2 step 1, with the StartViewChange window (D13,
// docs/protocol.md "StartViewChange quorum window").
func (m *Model) enterViewChange(i int, view uint64) {
	r := &m.replicas[i]
	c := &r.cause
	heard := c.delivered && (c.msg.Command == CmdStartViewChange || c.msg.Command == CmdDoViewChange ||
		c.msg.Command == CmdRequestStartView)
	if !heard && !c.timeout {
		m.fail(i, RuleViewChangeCause, "moves from %s view %d into a view change of view %d with no timeout and no view-change message", r.status, r.view, view)
		return
	}
	pulled := heard && c.msg.View == view && !(c.msg.Command == CmdStartViewChange && c.msg.Leave)
	if !m.cfg.LeaveWindow || pulled {
		return
	}
	asked := r.leaveFrom
	if c.timeout {
		asked |= 1 << uint(i)
	}
	if n, need := bits.OnesCount16(asked), quorumViewChange(m.cfg.Replicas); n < need {
		m.fail(i, RuleLeaveQuorum, "leaves view %d for %d with requests to leave from %d replicas (mask %b), fewer than %d", r.view, view, n, asked, need)
	}
}

// Sent is a message replica i sends in its step: the model's action for
// it, taken only if its precondition holds.
func (m *Model) Sent(i int, msg *Message) {
	if m.failure != nil || msg.Command == CmdOther {
		return
	}
	r := &m.replicas[i]
	if m.cfg.Disk {
		m.checkPromiseDurable(i, r, msg)
	}
	switch msg.Command {
	case CmdPrepare:
		m.sentPrepare(i, r, msg)
	case CmdPrepareOk:
		m.sentPrepareOk(i, r, msg)
	case CmdCommit:
		if m.primary(msg.View) != i || !r.wasIn(StatusNormal, msg.View) {
			m.fail(i, RuleCommit, "sends %s not as the Normal primary of the view", msg.String())
		}
	case CmdCommitOk:
		if m.primary(msg.View) == i || msg.To != m.primary(msg.View) || !r.wasIn(StatusNormal, msg.View) {
			m.fail(i, RuleCommitOk, "sends %s not as a Normal backup of the view to its primary", msg.String())
			break
		}
		m.sentCommitOk(i, r, msg)
	case CmdStartViewChange:
		m.sentStartViewChange(i, r, msg)
	case CmdDoViewChange:
		m.sentDoViewChange(i, r, msg)
	case CmdStartView:
		m.sentStartView(i, r, msg)
	case CmdRepairPrepare:
		m.sentRepair(i, r, msg)
		return // a repair states no view's log (one_log_per_view)
	case CmdStateChunk:
		m.sentChunk(i, r, msg)
		return
	}
	m.checkOneLog(i, msg) // after the rules that name a slip more closely
}

// wasIn reports whether the replica was in status st in view v at some
// point of its step.
func (r *replicaState) wasIn(st Status, v uint64) bool {
	for _, s := range r.seen {
		if s.status == st && s.view == v {
			return true
		}
	}
	return false
}

// sentPrepare: VRR 4.1 step 2 (the primary) and the chain topology's
// forwarding (docs/protocol.md "Replication").
func (m *Model) sentPrepare(i int, r *replicaState, msg *Message) {
	switch {
	case !r.wasIn(StatusNormal, msg.View):
		m.fail(i, RulePrepare, "sends %s while not Normal in its view", msg.String())
	case m.cfg.Star && m.primary(msg.View) != i:
		m.fail(i, RulePrepare, "sends %s as a backup of a star", msg.String())
	case !r.holds(msg.Op, msg.Checksum):
		m.fail(i, RulePrepare, "sends %s without holding the op with that checksum", msg.String())
	case !m.keepsApplied(msg.View, msg.Op, msg.Checksum):
		m.failOp(i, msg.Op, RuleCommittedKept, "sends %s, where a replica applied checksum %x in view %d",
			msg.String(), m.applied[msg.Op].sum, m.applied[msg.Op].view)
	}
}

// sentPrepareOk: VRR 4.1 step 4.
func (m *Model) sentPrepareOk(i int, r *replicaState, msg *Message) {
	switch {
	case m.primary(msg.View) == i:
		m.fail(i, RulePrepareOk, "sends %s as the primary of its view", msg.String())
	case msg.To != m.primary(msg.View):
		m.fail(i, RulePrepareOk, "sends %s to a replica other than the view's primary", msg.String())
	case !r.wasIn(StatusNormal, msg.View):
		m.fail(i, RulePrepareOk, "sends %s while not Normal in its view", msg.String())
	case !r.holds(msg.Op, msg.Checksum):
		m.fail(i, RulePrepareOk, "sends %s without holding the op with that checksum", msg.String())
	case r.cause.delivered && r.cause.msg.Command == CmdPrepare && r.cause.msg.Op == msg.Op &&
		m.cfg.JournalSlots > 0 && msg.Op > r.settled+uint64(m.cfg.JournalSlots):
		m.failOp(i, msg.Op, RuleAckWithinRing, "sends %s more than a ring of %d journal slots above op %d, the highest it applied: the op took the slot of one it has yet to apply", msg.String(), m.cfg.JournalSlots, r.settled)
	default:
		m.checkAckWritten(i, r, msg)
	}
}

// sentStartViewChange: VRR 4.2 step 1, and the request to leave a view.
func (m *Model) sentStartViewChange(i int, r *replicaState, msg *Message) {
	if msg.Leave {
		ok := false
		for _, s := range r.seen {
			ok = ok || (s.status != StatusRecovering && s.view <= msg.View)
		}
		if !ok {
			m.fail(i, RuleStartViewChange, "sends %s while recovering or in a later view", msg.String())
		}
		r.leaveFrom |= 1 << uint(i)
		return
	}
	if !r.wasIn(StatusViewChange, msg.View) {
		m.fail(i, RuleStartViewChange, "sends %s while not changing into that view", msg.String())
	}
}

// sentDoViewChange: VRR 4.2 step 2, and a Normal backup re-sending its vote
// for a straggler (docs/protocol.md "View change").
func (m *Model) sentDoViewChange(i int, r *replicaState, msg *Message) {
	v := msg.View
	if m.primary(v) == i || msg.To != m.primary(v) {
		m.fail(i, RuleDoViewChange, "sends %s: not from another replica to the view's primary", msg.String())
		return
	}
	svcs := bits.OnesCount16(r.svcs[v])
	changing := svcs >= quorumViewChange(m.cfg.Replicas)-1 && msg.LogView < v
	resent := msg.LogView == v && r.cause.startViewChangeFor(v)
	for _, s := range r.seen {
		if s.view != v || msg.LogView < s.logView {
			continue
		}
		if (s.status == StatusViewChange && changing) || (s.status == StatusNormal && resent) {
			m.checkVote(i, r, msg)
			return
		}
	}
	m.fail(i, RuleDoViewChange, "sends %s having heard StartViewChange for it from %d others", msg.String(), svcs)
}

// checkVote: a vote is readable (docs/protocol.md "Readability") and keeps
// what its sender acked in its log_view (VRR 4.2: the new view's log holds
// every op a quorum acked, which works only if every acker's vote shows its
// acks; D8 and D41 for unsure ops).
func (m *Model) checkVote(i int, r *replicaState, msg *Message) {
	if why := unreadable(msg); why != "" {
		m.fail(i, RuleSuffixReadable, "sends %s whose suffix of %d entries %s", msg.String(), len(msg.Suffix), why)
		return
	}
	switch {
	case msg.LogView < r.ackView:
		m.fail(i, RuleVoteKeepsAcks, "sends %s with log_view below view %d it acked in", msg.String(), r.ackView)
		m.promisedIn(RuleVoteKeepsAcks, r.ackViewLife)
		return
	case msg.LogView > r.ackView:
		if !m.keepsOlder(i, msg, r.acks, r.ackLives, r.acksGone) {
			return
		}
		m.keepsOlder(i, msg, r.older, r.olderLives, nil)
		return
	}
	for op := msg.Commit + 1; op < uint64(len(r.acks)); op++ {
		if sum := r.acks[op]; sum != 0 {
			if why := keeps(msg, op, sum); why != "" {
				m.fail(i, RuleVoteKeepsAcks, "sends %s, which %s op %d it acked with checksum %x", msg.String(), why, op, sum)
				m.promisedIn(RuleVoteKeepsAcks, r.ackLives[op])
				return
			}
		}
	}
	m.keepsOlder(i, msg, r.older, r.olderLives, nil)
}

// LogHead records the head of replica i's log as its status report in a
// step states it. Entering a newer log_view, its acks of older views above
// that head bind no vote (vote_keeps_older_acks): the view change that made
// the log cut them whether or not the replica held their bodies (a merge
// truncates a body-less op with no journal event), and an entry the log
// states there later is a new one, whatever its checksum (swarm seed
// 1313761364 from 0x4e4e0000: r1 acked op 39 in view 14, merged view 16
// without it, and voted it header-only in log_view 19, whose StartView
// named the same entry again).
func (m *Model) LogHead(i int, logView, head uint64) {
	r := &m.replicas[i]
	if logView <= r.headLogView {
		return
	}
	r.headLogView = logView
	for op := head + 1; op < uint64(len(r.older)); op++ {
		r.older[op] = 0
	}
	if r.ackView >= logView {
		return
	}
	for op := head + 1; op < uint64(len(r.acks)); op++ {
		if sum := r.acks[op]; sum != 0 {
			r.acksGone = setAt(r.acksGone, op, sum)
		}
	}
}

// keepOlder moves the acks of ackView into older as a newer view's ack
// replaces them.
func (r *replicaState) keepOlder() {
	for op, sum := range r.acks {
		if sum != 0 && (op >= len(r.acksGone) || r.acksGone[op] != sum) {
			r.older = setAt(r.older, uint64(op), sum)
			r.olderLives = setAt(r.olderLives, uint64(op), r.ackLives[op])
		}
	}
}

// keepsOlder: vote_keeps_older_acks, for the acks (by op, with the lives
// they left in) of views older than msg's log_view L. A replica that acked
// in an older view the very entry L's messages stated at the op, and let it
// go by no journal event of its own since, holds it in L's log, and its
// restart keeps it unsure where its disk lost it (the ack bound, D108): its
// vote never nacks it, names another header there, or holds the header
// without the body. A vote that stops below the op is judged by the
// restart rules, not here: an entry L stated later than the log the replica
// adopted may repeat an older one. gone, if not nil, lists by op the acks
// a journal event let go. It reports false once it failed.
func (m *Model) keepsOlder(i int, msg *Message, acks, lives, gone []uint64) bool {
	top := min(uint64(len(acks)), msg.Op+1)
	for op := msg.Commit + 1; op < top; op++ {
		sum := acks[op]
		if sum == 0 || (op < uint64(len(gone)) && gone[op] == sum) {
			continue
		}
		if stated, ok := m.logs.get(msg.LogView, op); !ok || stated != sum {
			continue
		}
		if why := keeps(msg, op, sum); why != "" && why != "stops below" {
			m.failOp(i, op, RuleVoteKeepsOlderAcks, "sends %s, which %s op %d it acked with checksum %x in a view before %d, whose messages stated that entry there",
				msg.String(), why, op, sum, msg.LogView)
			m.promisedIn(RuleVoteKeepsOlderAcks, lives[op])
			return false
		}
	}
	return true
}

// keeps says how a vote loses an acked op, or "" if it keeps it.
func keeps(msg *Message, op, sum uint64) string {
	if msg.Op < op {
		return "stops below"
	}
	k := msg.Op - op
	if k >= uint64(len(msg.Suffix)) {
		return "" // below a full window: the merge takes it as committed
	}
	e := &msg.Suffix[k]
	switch {
	case e.Nack:
		return "nacks"
	case e.Checksum == 0 || e.Unsure:
		return ""
	case e.Checksum != sum:
		return "names another header at"
	case !e.Present:
		return "holds only the header of"
	}
	return ""
}

// unreadable says where a suffix fails to start at the announced head and
// walk down one op at a time, each header naming the next as its parent;
// "" if it does not.
func unreadable(msg *Message) string {
	s := msg.Suffix
	if len(s) == 0 {
		if msg.Op <= msg.Commit || msg.Op == 0 {
			return ""
		}
		return "is empty above its commit point"
	}
	for k := range s {
		if s[k].Op != msg.Op-uint64(k) {
			return fmt.Sprintf("has op %d at entry %d, where op %d belongs", s[k].Op, k, msg.Op-uint64(k))
		}
		if k+1 < len(s) && s[k].Checksum != 0 && s[k+1].Checksum != 0 && s[k].Parent != 0 && s[k].Parent != s[k+1].Checksum {
			return fmt.Sprintf("names parent %x at op %d above a header %x (present %t, unsure %t)",
				s[k].Parent, s[k].Op, s[k+1].Checksum, s[k+1].Present, s[k+1].Unsure)
		}
	}
	return ""
}

// sentStartView: VRR 4.2 step 5, and the relayed view (D43, D48).
func (m *Model) sentStartView(i int, r *replicaState, msg *Message) {
	v := msg.View
	switch {
	case !r.wasIn(StatusNormal, v):
		m.fail(i, RuleStartView, "sends %s while not Normal in that view", msg.String())
	case msg.LogView != v:
		m.fail(i, RuleStartView, "sends %s stating another log_view", msg.String())
	case msg.Commit > msg.Op:
		m.fail(i, RuleStartView, "sends %s stating a commit point above its head", msg.String())
	case m.primary(v) != i && !m.cfg.Relay:
		m.fail(i, RuleStartView, "relays %s with relays off", msg.String())
	default:
		if why := unreadable(msg); why != "" {
			m.fail(i, RuleSuffixReadable, "sends %s whose suffix of %d entries %s", msg.String(), len(msg.Suffix), why)
			return
		}
		for k := range msg.Suffix {
			if e := &msg.Suffix[k]; e.Checksum != 0 && !m.keepsApplied(msg.View, e.Op, e.Checksum) {
				m.failOp(i, e.Op, RuleCommittedKept, "sends %s naming op %d checksum %x, where a replica applied checksum %x in view %d",
					msg.String(), e.Op, e.Checksum, m.applied[e.Op].sum, m.applied[e.Op].view)
				return
			}
		}
	}
}

// Applied records that replica i applied (op, sum) in view: the op is
// committed. The first checksum stands (a replica applying another is the
// oracle's agreement failure); the view is the lowest any applied it in.
func (m *Model) Applied(i int, view, op, sum uint64) {
	m.replicas[i].walk.walkApplied(op)
	for uint64(len(m.applied)) <= op {
		m.applied = append(m.applied, appliedOp{})
	}
	a := &m.applied[op]
	if a.sum == 0 {
		*a = appliedOp{sum: sum, view: view}
		return
	}
	a.view = min(a.view, view)
}

// keepsApplied reports whether a log of view v may state (op, sum): unless
// op was applied in v or an earlier view with another checksum.
func (m *Model) keepsApplied(v, op, sum uint64) bool {
	if op >= uint64(len(m.applied)) {
		return true
	}
	a := m.applied[op]
	return a.sum == 0 || a.view > v || a.sum == sum
}
