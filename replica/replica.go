// Package replica is a Viewstamped Replication replica as a pure state machine:
// messages and ticks in, messages and effects out. It does no I/O, reads no
// clock, and draws randomness only from the jitter stream it is handed.
//
// The model follows "Viewstamped Replication Revisited" (Liskov and Cowling,
// 2012) in the flavour of TigerBeetle and Apache Iggy: a persistent superblock
// instead of the VRR recovery protocol, hash-chained prepares, repair by request
// and state transfer. See docs/protocol.md.
package replica

import (
	"vsrsim/marks"
	"vsrsim/vsr"
)

// Superblock is the replica's durable state: it survives every restart.
type Superblock struct {
	View        uint64
	LogView     uint64
	CommitMax   uint64
	Incarnation uint64
	Checkpoint  vsr.Snapshot
	// AckHead is the highest op this replica ever acknowledged (a backup's
	// PrepareOk, a primary's own ack), recorded before the ack leaves: after
	// a restart without a journal the ops it may have acked and forgotten lie
	// at or below it, and no others.
	AckHead uint64
	// AckView is the newest view this replica acknowledged an op in, and
	// AckViewHead the highest op it acknowledged in that view. A view's head
	// only grows, so a StartView of AckView with a head below AckViewHead is
	// an old one of that view, delayed.
	AckView     uint64
	AckViewHead uint64
	// Head and HeadSum are the log's head op and its checksum, kept only by
	// a replica on a disk (Options.Storage): after a restart the head is the
	// one its last landed superblock names, no newer than what it promised.
	Head, HeadSum uint64
}

// Durable is what survives a crash: the superblock, and the journal when the
// cluster's journals are write-ahead logs. With a write-ahead log the view's
// headers survive too (the adopted headers, the head they lead to and the
// commit anchor), as a production replica keeps them beside its superblock:
// without them a replica that held a header but not yet its body would vote
// after a restart as if the op did not exist.
type Durable struct {
	Superblock Superblock
	journal    *journal
	view       *viewHeaders
	// Read, set by the harness for a replica on a disk (Options.Storage),
	// reads the disk back: the superblock and the journal's live slots
	// then come from it, not from memory (recover.go).
	Read vsr.ReadFunc
	// checkpoints are the last checkpoints the replica wrote: their states
	// live beside the disk, and the superblock read back names one.
	checkpoints *checkpointHistory
}

// viewHeaders is the part of the log that a write-ahead journal alone does not
// describe: headers adopted without bodies and the head above them.
type viewHeaders struct {
	adopted     ring
	aside       ring
	adoptedHead uint64
	sequencer   uint64
	headSum     uint64
	anchor      vsr.Header
}

type repairSession struct {
	active   bool
	peer     int
	from, to uint64
	stalls   int
	progress bool
	// unhelpful: peers that answered RangeEvicted, or RepairDone without
	// anything new, since the last progress.
	unhelpful uint16
	// pending holds committed-range bodies that arrived before anything
	// could vouch for them; a verified op above lets its parent in.
	pending []vsr.Header
}

type transferState struct {
	active    bool
	pinned    bool
	peer      int
	offerView uint64
	commitOp  uint64
	next      int
	snapshot  *vsr.Snapshot
	stalls    int
	asks      uint64
	// unanswered counts offer requests sent since the last offer.
	unanswered int
	// abandons counts pinned offers given up for silence; each doubles the
	// patience for the next, so a slow link (latency, not loss) still
	// delivers a whole checkpoint eventually.
	abandons int
}

type dvcVote struct {
	valid   bool
	logView uint64
	op      uint64
	commit  uint64
	suffix  []vsr.SuffixEntry
}

// dvcCacheTag says when a cached DoViewChange suffix is still valid. The
// generation counts journal and adopted-header mutations; the
// dvc-cache-ignores-journal defect leaves it out.
type dvcCacheTag struct {
	op, commit, generation uint64
}

// Replica is one VSR replica.
type Replica struct {
	opts   Options
	id     int
	n      int
	jitter Jitter

	sb          Superblock
	status      vsr.Status
	view        uint64
	logView     uint64
	wm          watermarks
	journal     *journal
	adopted     ring // headers known from a StartView or merge, bodies maybe not held
	aside       ring // committed-range bodies a chain walk could not vouch for (see pruneChainFrom)
	sm          vsr.StateMachine
	journalGen  uint64
	ackHead     uint64
	incarnation uint64

	// Primary.
	pipeline  pipeline // prepares in flight (pipeline.go)
	requests  []vsr.Request
	heartbeat uint64
	offers    []*vsr.Snapshot
	due       due // follow-up work the driver (settle) runs before the step ends
	// fencesAsked counts the fenced writes this incarnation asked for and
	// fencesLanded how many of the first of them the harness said landed
	// (Landed); ownAckWaits: the pipeline's first op lacks a quorum only
	// because the primary's own write of it has not landed.
	fencesAsked, fencesLanded uint64
	ownAckWaits               bool
	// abd is the primary's watch over its own view (abdication.go).
	abd abdication
	// fwdWaiting: this backup forwarded a client's request and has not seen
	// its primary act since (awaitForwarded); fwdCommit is the commit point
	// it knew then.
	fwdWaiting bool
	fwdCommit  uint64

	// vc is the view change in progress or last completed (viewchange_state.go).
	vc            viewChange
	adoptedHead   uint64
	repairArmedTo uint64 // top of the repair window armed by the last adoption
	repairFloor   uint64 // lowest op peers still retain, after a RangeEvicted
	journalFloor  uint64 // lowest op this journal can hold (after amnesia or a transfer)
	// amnesiac: the journal was lost in a restart and no view adopted since.
	// unsureTop: ops at or below it may have been acknowledged before a lost
	// journal, so this replica never nacks them (protocol.md "Crash and restart").
	amnesiac  bool
	unsureTop uint64
	// commitAnchor is the canonical checksum at an op no higher than
	// commit_max, learned from a StartView or a merge even when only the
	// checksum travelled (the commit point's entry of a suffix).
	commitAnchor vsr.Header
	// toldCommitAt is one past the tick this backup last told its primary
	// its commit point unasked (tellCommitToPrimary).
	toldCommitAt uint64
	// peers is what this replica knows of the others (peers.go).
	peers peers

	repair   repairSession
	transfer transferState

	tPrepare   timeout
	tCommit    timeout
	tHeartbeat timeout
	tVCMsg     timeout
	tVCStatus  timeout
	tProbe     timeout
	tRepair    timeout
	tTransfer  timeout
	tAbdicate  timeout
	tLeave     timeout
	clk        timerClock
	// announce: a restart changed the status outside a step; the first tick
	// reports it.
	announce bool
	// amnesiaUncounted: an amnesiac restart not yet marked; Restart has no
	// Output to count into, so the first step does.
	amnesiaUncounted bool

	out *vsr.Output

	// rewoundCommit: the checkpoint a defective install rewound to, stated
	// as the vote's commit point until a view settles (see voteCommit).
	rewoundCommit uint64

	// store tracks the writes of a replica on a disk (storage.go); nil
	// without Options.Storage. checkpoints are the last it wrote, newest
	// first; storageMarks the marks a restart from disk owes its first step.
	store        *storageState
	checkpoints  *checkpointHistory
	storageMarks []marks.Mark
	// unsureOps are ops whose journal slot was faulty at a restart from
	// disk, at or below the durable ack head and the known head: the vote
	// holds them unsure until repair journals them (recover.go).
	unsureOps []uint64
}

// New returns a replica starting a fresh cluster: view 0, Normal, empty log.
func New(opts Options, jitter Jitter) (*Replica, error) {
	if err := opts.Validate(); err != nil {
		return nil, err
	}
	r := newReplica(opts, jitter)
	r.journal = newJournal(opts.JournalSlots, opts.Spare)
	r.sb.Checkpoint = genesisSnapshot()
	r.wm.commitSum = r.sb.Checkpoint.OpChecksum
	r.wm.headSum = r.wm.commitSum
	r.status = vsr.StatusNormal
	r.startNormalTimeouts()
	if opts.Storage {
		r.store = newStorageState(opts.JournalSlots)
		r.journal.live.store = r.store
		r.checkpoints = new(checkpointHistory)
	}
	return r, nil
}

// Restart returns a replica recovering from its durable state after a crash.
// From a write-ahead journal it rejoins with its durable view, log_view and log
// (see rejoin). After amnesia (a memory journal) it comes up Recovering: it
// votes and acks nothing until it adopts a view.
func Restart(opts Options, jitter Jitter, d Durable) (*Replica, error) {
	if err := opts.Validate(); err != nil {
		return nil, err
	}
	if opts.Storage && d.Read != nil && d.journal != nil {
		return recoverFromDisk(opts, jitter, d)
	}
	r := newReplica(opts, jitter)
	r.sb = d.Superblock
	r.restoreSuperblock()
	if opts.Durability == DurabilityWAL && d.journal != nil {
		r.journal = d.journal
		r.restoreWAL(d)
		r.rejoin()
		return r, nil
	}
	r.journal = newJournal(opts.JournalSlots, opts.Spare)
	r.journalFloor = r.sb.Checkpoint.Op + 1
	r.amnesiac = true
	r.amnesiaUncounted = true
	r.unsureTop = r.sb.AckHead
	r.status = vsr.StatusRecovering
	r.tProbe.start(r.jitter)
	r.tRepair.stop()
	return r, nil
}

// restoreSuperblock takes up the view, the commit point and the checkpoint's
// state from the superblock, in a new incarnation.
func (r *Replica) restoreSuperblock() {
	r.sb.Incarnation++
	r.incarnation = r.sb.Incarnation
	r.view = r.sb.View
	r.logView = r.sb.LogView
	r.wm.commitMax = r.sb.CommitMax
	cp := r.sb.Checkpoint
	r.sm = cp.State
	r.wm.commitMin = cp.Op
	r.wm.commitSum = cp.OpChecksum
	r.wm.sequencer = cp.Op
	r.wm.headSum = cp.OpChecksum
	if r.wm.commitMax < r.wm.commitMin {
		r.wm.commitMax = r.wm.commitMin
	}
}

// restoreWAL takes up a surviving write-ahead journal: the head is the end of
// the chain that links to what the checkpoint applied, and the view's headers
// come back beside it (see rejoin).
func (r *Replica) restoreWAL(d Durable) {
	for {
		h, ok := r.journal.get(r.wm.sequencer + 1)
		if !ok || h.Parent != r.wm.headSum {
			break
		}
		r.wm.sequencer = h.Op
		r.wm.headSum = h.Checksum
	}
	// Entries above a gap stay: this replica may have acked them, and
	// the view it adopts next decides which of them are canonical.
	v := d.view
	if v == nil {
		return
	}
	r.adopted = v.adopted
	r.aside = v.aside
	r.adoptedHead = v.adoptedHead
	r.commitAnchor = v.anchor
	switch {
	case v.sequencer <= r.wm.sequencer:
	case r.opts.Bugs.RestartSkipsAdoptedHead:
		// The defect takes the chained prefix for the whole adopted
		// view: the head above it, and every op acked past the gap,
		// drop out of the next vote.
		r.adoptedHead = min(r.adoptedHead, r.wm.sequencer)
	default:
		// The head of an adopted view whose bodies were still being
		// repaired (after a transfer install below it, say): the log
		// reaches it although the chain has a gap.
		r.wm.sequencer = v.sequencer
		r.wm.headSum = v.headSum
	}
}

// rejoin resumes a replica whose write-ahead journal survived: it remembers
// everything it acknowledged, so it may vote and ack at once. A backup of a
// settled view resumes it; a replica that was mid view change carries on; a
// primary cannot know what its lost pipeline had gathered, so it leaves its
// view for the next one. The status change is reported on the first tick.
func (r *Replica) rejoin() {
	r.announce = true
	if r.logView == r.view && !r.isPrimary() {
		r.status = vsr.StatusNormal
		r.startNormalTimeouts()
		return
	}
	if r.logView == r.view {
		r.view++
	}
	r.status = vsr.StatusViewChange
	r.writeSuperblock()
	r.tVCMsg.start(r.jitter)
	r.tVCStatus.start(r.jitter)
}

// begin opens a step: it reports a restart that happened outside one.
func (r *Replica) begin(out *vsr.Output) {
	r.out = out
	if r.amnesiaUncounted || r.announce || r.storageMarks != nil {
		// Only a restart's first tick or step: the rest is a call away.
		r.beginRestarted()
	}
}

func (r *Replica) beginRestarted() {
	if r.amnesiaUncounted {
		r.amnesiaUncounted = false
		r.mark(marks.RestartAmnesiac)
	}
	for _, m := range r.storageMarks {
		r.mark(m)
	}
	r.storageMarks = nil
	if r.announce {
		r.resume()
	}
}

// resume reports the status a write-ahead restart came back in, joins the
// view change it is in, replays its journal up to the commit point, and
// votes at once if its own vote is a quorum.
func (r *Replica) resume() {
	r.announce = false
	r.mark(marks.RestartWAL)
	r.emitStatus()
	if r.status == vsr.StatusViewChange {
		r.sendAll(vsr.StartViewChange{}.Message())
	}
	// The repair window armed when the view was adopted died with the
	// process, while the journal kept the view's headers without bodies:
	// arm it again, or ops above the commit point stay hollow, the gap check
	// refuses the primary's retransmits below the head, and the primary waits
	// for those acks for ever (swarm seed 2265).
	r.armRepairOnAdopt()
	r.commitUpTo()
	// A view change of one replica needs no peer: its own vote is a
	// view-change quorum (f = 0), so it votes now rather than a status
	// timeout later. With peers, f >= 1 and this waits for their
	// StartViewChange as before.
	r.maybeSendDoViewChange()
}

func newReplica(opts Options, jitter Jitter) *Replica {
	t := opts.Timeouts
	r := &Replica{
		opts:    opts,
		id:      opts.ID,
		n:       opts.Replicas,
		jitter:  jitter,
		adopted: newRing(opts.JournalSlots, opts.Spare),
		aside:   newRing(opts.JournalSlots, opts.Spare),
		peers:   newPeers(opts.ID, opts.Replicas),
	}
	r.tPrepare = timeout{name: "prepare", after: t.PrepareTicks, backoff: true}
	r.tCommit = timeout{name: "commit", after: t.CommitTicks}
	r.tHeartbeat = timeout{name: "heartbeat", after: t.HeartbeatTicks}
	r.tVCMsg = timeout{name: "view_change_message", after: t.ViewChangeMsgTicks, backoff: true}
	backoff := !opts.Protocol.BackoffOff
	// The status timeout backs off to 8x only: enough to outwait replicas
	// a view-change round trip apart (three 600-tick hops), while one that lands on
	// a crashed primary still escalates within seconds.
	r.tVCStatus = timeout{name: "view_change_status", after: t.ViewChangeStatusTick, backoff: backoff, shiftMax: 3}
	r.tProbe = timeout{name: "start_view_probe", after: t.StartViewProbeTicks}
	r.tRepair = timeout{name: "repair", after: t.RepairTicks, backoff: backoff}
	r.tTransfer = timeout{name: "transfer", after: t.RepairTicks, backoff: backoff}
	r.tAbdicate = timeout{name: "abdicate", after: t.HeartbeatTicks}
	r.tLeave = timeout{name: "start_view_change_window", after: t.ViewChangeStatusTick}
	r.clk.pos = tickDone
	for i, t := range r.timeouts() {
		t.clk, t.pos = &r.clk, i
	}
	r.pipeline = opts.Spare.takePipeline()
	// requests grows on demand: only a primary queues, and most replicas of
	// a run never lead.
	return r
}

func genesisSnapshot() vsr.Snapshot {
	var s vsr.Snapshot
	s.OpChecksum = genesisChecksum
	s.StateChecksum = s.State.Checksum()
	return s
}

// genesisChecksum is the parent of op 1.
const genesisChecksum = 0x5eed5eed5eed5eed

// Durable returns what survives a crash of this replica right now. The journal
// is handed over whole: the crashed replica is never stepped again.
func (r *Replica) Durable() Durable {
	d := Durable{Superblock: r.sb, checkpoints: r.checkpoints}
	if r.opts.Durability == DurabilityWAL {
		d.journal = r.journal
		d.view = &viewHeaders{adopted: r.adopted, aside: r.aside, adoptedHead: r.adoptedHead,
			sequencer: r.wm.sequencer, headSum: r.wm.headSum, anchor: r.commitAnchor}
	}
	return d
}

// Tick advances the replica's timeouts by one tick.
func (r *Replica) Tick(out *vsr.Output) {
	r.clk.now++
	r.clk.pos = tickBegin
	// Most ticks are quiet: nothing is due, no restart to report, no timeout
	// fires. Such a tick moves only the clock, which no invariant reads, so
	// the state the last step or tick checked is checked still.
	busy := r.due != 0 || r.announce || r.amnesiaUncounted || r.storageMarks != nil || r.clk.now >= r.clk.next
	r.begin(out)
	r.settle()
	if r.clk.now >= r.clk.next {
		r.tickTimeouts()
	}
	r.clk.pos = tickDone
	if busy {
		// A quiet tick moves only the clock: nothing to check, nothing
		// to write.
		r.checkInvariants()
		if r.store != nil {
			r.flushStorage()
		}
	}
	r.out = nil
}

// timeouts lists the timeouts in their turns in Tick.
func (r *Replica) timeouts() [10]*timeout {
	return [10]*timeout{&r.tPrepare, &r.tCommit, &r.tHeartbeat, &r.tVCMsg, &r.tVCStatus,
		&r.tProbe, &r.tRepair, &r.tTransfer, &r.tAbdicate, &r.tLeave}
}

// tickTimeouts gives each timeout its turn, in the order of timeouts, and
// then finds the next tick at which one is due.
func (r *Replica) tickTimeouts() {
	if r.tPrepare.tick() {
		r.fire(&r.tPrepare, r.onPrepareTimeout)
	}
	if r.tCommit.tick() {
		r.fire(&r.tCommit, r.onCommitTimeout)
	}
	if r.tHeartbeat.tick() {
		r.fire(&r.tHeartbeat, r.onHeartbeatTimeout)
	}
	if r.tVCMsg.tick() {
		r.fire(&r.tVCMsg, r.onViewChangeMessageTimeout)
	}
	if r.tVCStatus.tick() {
		r.fire(&r.tVCStatus, r.onViewChangeStatusTimeout)
	}
	if r.tProbe.tick() {
		r.fire(&r.tProbe, r.onProbeTimeout)
	}
	if r.tRepair.tick() {
		r.fire(&r.tRepair, r.onRepairTimeout)
	}
	if r.tTransfer.tick() {
		r.fire(&r.tTransfer, r.onTransferTimeout)
	}
	if r.tAbdicate.tick() {
		r.fire(&r.tAbdicate, r.onAbdicateTimeout)
	}
	if r.tLeave.tick() {
		r.fire(&r.tLeave, r.onLeaveWindow)
	}
	r.clk.next = uint64(1<<64 - 1)
	for _, t := range r.timeouts() {
		if t.running {
			r.clk.next = min(r.clk.next, t.deadline)
		}
	}
}

// fire traces a timeout that fired and runs its handler, then the driver: a
// timeout's follow-ups settle before the next timeout looks at the state.
// Tick ticks each countdown inline and calls this only when one fires: almost
// none does on a given tick, and a call per timeout per tick was a sixth of a
// swarm run.
func (r *Replica) fire(t *timeout, handle func()) {
	if t.capped() {
		r.mark(marks.BackoffCapped)
	}
	r.emit(vsr.TimedOut{Timer: t.name}.Event())
	handle()
	r.settle()
}

// ---- helpers ----

func (r *Replica) primary() int    { return vsr.PrimaryOf(r.view, r.n) }
func (r *Replica) isPrimary() bool { return r.primary() == r.id }
func (r *Replica) f() int          { return vsr.QuorumViewChange(r.n) - 1 }
func (r *Replica) clientIndex(c uint64) int {
	return int(c) - r.n
}

// setStatus is the one place status changes; it asserts the allowed moves.
func (r *Replica) setStatus(to vsr.Status) {
	from := r.status
	allowed := false
	switch from {
	case vsr.StatusNormal:
		allowed = to == vsr.StatusViewChange || to == vsr.StatusNormal
	case vsr.StatusViewChange:
		allowed = to == vsr.StatusNormal || to == vsr.StatusViewChange
	case vsr.StatusRecovering:
		allowed = to == vsr.StatusNormal
	}
	invariant(r.id, allowed, "status_transition", "status %d -> %d (0 normal, 1 view_change, 2 recovering)", uint64(from), uint64(to))
	r.status = to
	if to == vsr.StatusNormal {
		r.rewoundCommit = 0
	}
	r.emitStatus()
}

// noteAck records op as acknowledged, durably, before the ack is sent or
// counted.
func (r *Replica) noteAck(h *vsr.Header) {
	r.sb.AckHead = max(r.sb.AckHead, h.Op)
	if r.view > r.sb.AckView {
		r.sb.AckView, r.sb.AckViewHead = r.view, 0
	}
	if r.view == r.sb.AckView {
		r.sb.AckViewHead = max(r.sb.AckViewHead, h.Op)
	}
	r.emit(vsr.Acked{View: r.view, Op: h.Op, Checksum: h.Checksum, Parent: h.Parent}.Event())
}

func (r *Replica) writeSuperblock() {
	r.sb.View = r.view
	r.sb.LogView = r.logView
	if r.wm.commitMax > r.sb.CommitMax {
		r.sb.CommitMax = r.wm.commitMax
	}
	r.sb.Incarnation = r.incarnation
}

func (r *Replica) startNormalTimeouts() {
	r.vc.vcRounds = 0
	r.tVCMsg.stop()
	r.tVCStatus.stop()
	r.tProbe.stop()
	r.peers.newWindow()
	r.fwdWaiting = false
	r.abd.normal(r.firstInPipeline())
	r.vc.leave = 0
	r.vc.leaveTo = 0
	r.tLeave.stop()
	if r.isPrimary() {
		if !r.opts.Protocol.AbdicationOff {
			r.tAbdicate.start(nil)
		}
		r.tHeartbeat.stop()
		r.tCommit.start(nil)
		r.tPrepare.stop()
		if len(r.pipeline) > 0 {
			r.tPrepare.start(r.jitter)
		}
	} else {
		r.tAbdicate.stop()
		r.tCommit.stop()
		r.tPrepare.stop()
		r.tHeartbeat.start(r.jitter)
	}
	r.tRepair.start(r.jitter)
}

// checkInvariants asserts the replica's own consistency after every step.
func (r *Replica) checkInvariants() {
	r.checkWatermarks()
	invariant(r.id, r.logView <= r.view, "log_view_le_view", "log_view=%d view=%d", r.logView, r.view)
	invariant(r.id, len(r.pipeline) <= SuffixMax, "pipeline_bounded", "%d", uint64(len(r.pipeline)))
	invariant(r.id, len(r.requests) <= r.opts.requestQueue(), "request_queue_bounded", "%d", uint64(len(r.requests)))
	invariant(r.id, r.due == 0, "settled", "due %b after the driver ran", uint64(r.due))
	invariant(r.id, r.sb.AckHead >= r.ackHead, "ack_head_durable", "superblock %d, acked %d", r.sb.AckHead, r.ackHead)
	invariant(r.id, r.journal.head == 0 || r.journalFloor <= r.journal.head+1, "journal_floor_le_head",
		"floor %d head %d", r.journalFloor, r.journal.head)
}
