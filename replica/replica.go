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
	"vsrsim/replica/journal"
	"vsrsim/replica/outbox"
	"vsrsim/replica/room"
	"vsrsim/replica/timer"
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
	// Amnesiac: written by a replica on a disk that came back with no
	// superblock copy and has adopted no view since. What it wrote since is
	// what it learned, not what it acked before the loss, so a restart from
	// such a superblock is amnesiac still: it votes nothing until a
	// StartView (atlas-off-window-crash-acked-op-replaced.vsr: one that
	// read it back as whole voted log_view 0 and nacked an op it had acked).
	Amnesiac bool
	// Merged: its log_view is a view whose log it merged as primary-elect
	// and has not started (D61). It acked nothing in that view, so the ops
	// of the merged log it may have acked are only ops of older views, all
	// at or below AckHead: a restart bounds its unsure ops by that, not by
	// the merged log's head (ackBound).
	Merged bool
	// Rejoined: written since a replica whose superblock was lost adopted a
	// view, and before its durable commit point passed what it holds
	// unsure for that loss (D92). A restart from it holds every op up to
	// the head it names unsure, as the life that wrote it did: the loss
	// left no bound on what it acked before, and a vote of a bodiless
	// header would nack an op it may have acked.
	Rejoined bool
}

// Durable is what survives a crash: the superblock, and the journal when the
// cluster's journals are write-ahead logs. With a write-ahead log the view's
// headers survive too (the adopted headers, the head they lead to and the
// commit anchor), as a production replica keeps them beside its superblock:
// without them a replica that held a header but not yet its body would vote
// after a restart as if the op did not exist.
type Durable struct {
	Superblock Superblock
	journal    *journal.Journal
	view       *viewHeaders
	// Read, set by the harness for a replica on a disk (Options.Storage),
	// reads the disk back: the superblock and the journal's live slots
	// then come from it, not from memory (restart.go).
	Read vsr.ReadFunc
	// Boot is the clock at the restart, as a node reads its real-time
	// clock when it boots (the harness's tick): a replica whose every
	// superblock copy was lost takes a fresh incarnation from it
	// (amnesiacIncarnation), since the counter it kept is gone.
	Boot uint64
}

// viewHeaders is the part of the log that a write-ahead journal alone does not
// describe: headers adopted without bodies and the head above them.
type viewHeaders struct {
	adopted     journal.Ring
	aside       journal.Ring
	adoptedHead uint64
	sequencer   uint64
	headSum     uint64
	anchor      vsr.Header
	// logView is the log_view the adopted headers are of.
	logView uint64
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
	// next is the lowest chunk not yet pulled, and got the chunks pulled
	// (bit c for chunk c): a peer sends every chunk from the one asked on,
	// so chunks may come past a gap a loss left (D114).
	next     int
	got      uint8
	snapshot *vsr.Snapshot
	stalls   int
	asks     uint64
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

// Jitter is the deterministic stream a replica draws its timeout jitter from
// (the timer package's): the harness hands each replica its own.
type Jitter = timer.Jitter

// Replica is one VSR replica.
type Replica struct {
	opts   Options
	id     int
	n      int
	jitter Jitter

	status  vsr.Status
	view    uint64
	logView uint64
	wm      watermarks
	sm      vsr.StateMachine
	// log is the journal and what the replica knows of the log beyond it
	// (log_state.go); dur its durable state and the disk's writes in
	// flight (durability.go).
	log logState
	dur durability

	// Primary.
	pipeline  room.Pipeline // prepares in flight (room/pipeline.go)
	requests  []vsr.Request
	heartbeat uint64
	offers    []*vsr.Snapshot
	due       due // follow-up work the driver (settle) runs before the step ends
	// abd is the primary's watch over its own view (room/abdication.go).
	abd room.Abdication
	// fwd is a backup's watch over a request it forwarded (room/forwarding.go).
	fwd room.Forwarding

	// vc is the view change in progress or last completed (viewchange_state.go).
	vc viewChange
	// peers is what this replica knows of the others (room/peers.go).
	peers room.Peers

	repair   repairSession
	transfer transferState
	timers   timer.Timers // every countdown and their shared clock (replica/timer)

	// fx is where the step's outputs leave (replica/outbox).
	fx outbox.Outbox

	// rewoundCommit: the checkpoint a defective install rewound to, stated
	// as the vote's commit point until a view settles (see voteCommit).
	rewoundCommit uint64
}

// New returns a replica starting a fresh cluster: view 0, Normal, empty log.
func New(opts Options, jitter Jitter) (*Replica, error) {
	if err := opts.Validate(); err != nil {
		return nil, err
	}
	r := newReplica(opts, jitter)
	r.log.journal = newJournal(opts)
	r.dur.sb.Checkpoint = genesisSnapshot()
	r.wm.commitSum = r.dur.sb.Checkpoint.OpChecksum
	r.wm.headSum = r.wm.commitSum
	r.status = vsr.StatusNormal
	r.startNormalTimeouts()
	if opts.Storage {
		r.openStore()
		r.log.journal.Live.Store = &r.dur.store.dirty
	}
	return r, nil
}

// begin opens a step: it reports a restart that happened outside one.
func (r *Replica) begin(out *vsr.Output) {
	r.fx.Out = out
	if r.dur.amnesiaUncounted || r.dur.announce || r.dur.storageMarks != nil {
		// Only a restart's first tick or step: the rest is a call away.
		r.beginRestarted()
	}
}

func newReplica(opts Options, jitter Jitter) *Replica {
	r := &Replica{
		opts:   opts,
		id:     opts.ID,
		n:      opts.Replicas,
		jitter: jitter,
		peers:  room.NewPeers(opts.ID, opts.Replicas),
	}
	r.fx = outbox.New(opts.ID, opts.Replicas, &r.view)
	r.log.adopted = journal.NewRing(opts.JournalSlots, opts.Spare.pool())
	r.log.aside = journal.NewRing(opts.JournalSlots, opts.Spare.pool())
	r.log.unplaced = journal.NewRing(opts.JournalSlots, opts.Spare.pool())
	r.applyProtocol(opts.Protocol)
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
	d := Durable{Superblock: r.dur.sb}
	if r.opts.Durability == DurabilityWAL {
		d.journal = r.log.journal
		d.view = &viewHeaders{adopted: r.log.adopted, aside: r.log.aside, adoptedHead: r.log.adoptedHead,
			sequencer: r.wm.sequencer, headSum: r.wm.headSum, anchor: r.log.commitAnchor, logView: r.log.adoptedLogView}
	}
	return d
}

// Tick advances the replica's timeouts by one tick.
func (r *Replica) Tick(out *vsr.Output) {
	r.timers.Clk.Now++
	r.timers.Clk.Pos = timer.TickBegin
	// Most ticks are quiet: nothing is due, no restart to report, no timeout
	// fires. Such a tick moves only the clock, which no invariant reads, so
	// the state the last step or tick checked is checked still.
	busy := r.due != 0 || r.dur.announce || r.dur.amnesiaUncounted || r.dur.storageMarks != nil || r.timers.Clk.Now >= r.timers.Clk.Next
	r.begin(out)
	r.settle()
	if r.timers.Clk.Now >= r.timers.Clk.Next {
		r.tickTimeouts()
	}
	r.timers.Clk.Pos = timer.TickDone
	if busy {
		// A quiet tick moves only the clock: nothing to check, nothing
		// to write.
		r.checkInvariants()
		if r.dur.store != nil {
			r.flushStorage()
		}
	}
	r.fx.Out = nil
}

// timeoutHandlers is each countdown's handler, in the order of Timers.All
// (its turn in Tick): method expressions, so a tick builds no closure.
var timeoutHandlers = [11]func(*Replica){
	(*Replica).onPrepareTimeout, (*Replica).onCommitTimeout, (*Replica).onHeartbeatTimeout,
	(*Replica).onViewChangeMessageTimeout, (*Replica).onViewChangeStatusTimeout, (*Replica).onProbeTimeout,
	(*Replica).onRepairTimeout, (*Replica).onTransferTimeout, (*Replica).onAbdicateTimeout, (*Replica).onLeaveWindow,
	(*Replica).onScrubTimeout,
}

// tickTimeouts gives each timeout its turn, in the order of timeouts, and
// then finds the next tick at which one is due.
func (r *Replica) tickTimeouts() {
	for k, t := range r.timers.All() {
		if t.Tick() {
			r.fire(t, timeoutHandlers[k])
		}
	}
	r.timers.FindNext()
}

// fire traces a timeout that fired and runs its handler, then the driver: a
// timeout's follow-ups settle before the next timeout looks at the state.
// Tick ticks each countdown inline and calls this only when one fires: almost
// none does on a given tick, and a call per timeout per tick was a sixth of a
// swarm run.
func (r *Replica) fire(t *timer.Timeout, handle func(*Replica)) {
	if t.Capped() {
		r.fx.Mark(marks.BackoffCapped)
	}
	if t != &r.timers.Scrub {
		// The scrubber's turn is traced as the read it asks for, if any:
		// an event every turn would be most of a quiet replica's trace.
		r.fx.Emit(vsr.TimedOut{Timer: t.Name}.Event())
	}
	handle(r)
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
		// A replica recovering its head may join a newer view's change.
		allowed = to == vsr.StatusNormal || (to == vsr.StatusViewChange && r.log.recoveringHead)
	}
	vsr.Assert(r.id, allowed, "status_transition", "status %d -> %d (0 normal, 1 view_change, 2 recovering)", uint64(from), uint64(to))
	r.status = to
	if to == vsr.StatusNormal {
		r.rewoundCommit = 0
	}
	r.emitStatus()
}

// noteAck records op as acknowledged, durably, before the ack is sent or
// counted.
func (r *Replica) noteAck(h *vsr.Header) {
	// A recovering replica acks nothing until it adopts a view.
	vsr.Assert(r.id, r.status != vsr.StatusRecovering, "recovering_acks_nothing", "op %d", h.Op)
	r.dur.sb.AckHead = max(r.dur.sb.AckHead, h.Op)
	if r.view > r.dur.sb.AckView {
		r.dur.sb.AckView, r.dur.sb.AckViewHead = r.view, 0
	}
	if r.view == r.dur.sb.AckView {
		r.dur.sb.AckViewHead = max(r.dur.sb.AckViewHead, h.Op)
	}
	// Every op acked in the newest view is an op acked: the below-ack gate
	// refuses no more than the ack head covers.
	vsr.Assert(r.id, r.dur.sb.AckViewHead <= r.dur.sb.AckHead, "ack_view_head_le_ack_head", "view head %d ack head %d",
		r.dur.sb.AckViewHead, r.dur.sb.AckHead)
	r.fx.Emit(vsr.Acked{View: r.view, Op: h.Op, Checksum: h.Checksum, Parent: h.Parent}.Event())
}

func (r *Replica) writeSuperblock() {
	r.dur.sb.View = r.view
	r.dur.sb.LogView = r.logView
	if r.wm.commitMax > r.dur.sb.CommitMax {
		r.dur.sb.CommitMax = r.wm.commitMax
	}
	r.dur.sb.Incarnation = r.dur.incarnation
}

func (r *Replica) startNormalTimeouts() {
	r.vc.vcRounds = 0
	r.timers.VcMsg.Stop()
	r.timers.VcStatus.Stop()
	r.timers.Probe.Stop()
	r.peers.NewWindow()
	r.fwd.Waiting = false
	r.abd.Normal(r.firstInPipeline())
	r.vc.leave = 0
	r.vc.leaveTo = 0
	r.timers.Leave.Stop()
	if r.isPrimary() {
		if r.abd.On() {
			r.timers.Abdicate.Start(nil)
		}
		r.timers.Heartbeat.Stop()
		r.timers.Commit.Start(nil)
		r.timers.Prepare.Stop()
		if len(r.pipeline) > 0 {
			r.timers.Prepare.Start(r.jitter)
		}
	} else {
		r.timers.Abdicate.Stop()
		r.timers.Commit.Stop()
		r.timers.Prepare.Stop()
		r.timers.Heartbeat.Start(r.jitter)
	}
	r.timers.Repair.Start(r.jitter)
}

// checkInvariants asserts the replica's own consistency after every step.
func (r *Replica) checkInvariants() {
	r.checkWatermarks()
	vsr.Assert(r.id, r.logView <= r.view, "log_view_le_view", "log_view=%d view=%d", r.logView, r.view)
	vsr.Assert(r.id, len(r.pipeline) <= vsr.SuffixMax, "pipeline_bounded", "%d", uint64(len(r.pipeline)))
	vsr.Assert(r.id, len(r.requests) <= r.opts.requestQueue(), "request_queue_bounded", "%d", uint64(len(r.requests)))
	vsr.Assert(r.id, r.due == 0, "settled", "due %b after the driver ran", uint64(r.due))
	r.log.check(r.id)
	r.dur.check(r.id)
	r.timers.Check(r.id)
	r.fwd.Check(r.id, r.timers.Clk.Now)
	// Normal means the log is this view's; only a restart that cannot vouch
	// for its log comes back recovering, and adopting a view ends both.
	vsr.Assert(r.id, r.status != vsr.StatusNormal || r.logView == r.view, "normal_log_view_is_view", "log_view=%d view=%d", r.logView, r.view)
	vsr.Assert(r.id, r.status != vsr.StatusRecovering || r.log.amnesiac, "recovering_is_amnesiac", vsr.DetailHolds)
}

// emitStatus reports the replica's status, view, log and commit point.
func (r *Replica) emitStatus() {
	r.fx.Emit(vsr.StatusChanged{Status: r.status, View: r.view, LogView: r.logView, Op: r.wm.sequencer, Commit: r.wm.commitMax}.Event())
}
