package vsr

// Typed event payloads, as messages have typed payloads (payload.go). Each
// kind's fields have one meaning; the envelope (View, Op, Checksum) carries
// what most kinds name, and the rest travels as words in the event. Each
// payload type has a constructor (Event) and an accessor on Event of the same
// name that panics on an event of another kind. Only this file reads or writes
// the words.

// eventWords holds the largest payload beyond the envelope: an Applied's or a
// Dropped's four numbers.
type eventWords = [4]uint64

// CommittedOp is the op an Applied or a PrimaryCommitted names.
type CommittedOp struct {
	View     uint64 // the replica's view when it applied or committed
	Op       uint64
	Checksum uint64
	Parent   uint64 // the op's parent checksum
	Client   uint64 // the client node whose request the op executed (0: none)
	Request  uint64 // that client's request number
}

// Applied is an op the replica applied to its state machine (EvCommit).
type Applied struct {
	CommittedOp
	Result uint64 // what the state machine returned
}

// PrimaryCommitted is an op the primary committed on a quorum of acks
// (EvPrimaryCommit).
type PrimaryCommitted struct {
	CommittedOp
	Acks uint64 // the PrepareOks it committed on
}

// StatusChanged is a new status, view or log (EvStatus).
type StatusChanged struct {
	Status  Status
	View    uint64
	LogView uint64
	Op      uint64 // the replica's head op
	Commit  uint64 // its commit_max
}

// JournalChange is an op that entered or left the journal: appended,
// truncated, pruned, set aside or evicted (the EvJournal kinds).
type JournalChange struct {
	View     uint64 // the header's view on an append or evict, the replica's on a truncate or prune, 0 on a set-aside
	Op       uint64
	Checksum uint64
}

// JournalRestored is an entry a restart from a disk took up into its journal
// (EvJournalRestore): the header's view, op, checksum and parent.
type JournalRestored struct {
	View     uint64
	Op       uint64
	Checksum uint64
	Parent   uint64
}

// Acked is a PrepareOk the replica sent, or a primary's ack of its own prepare
// (EvAck).
type Acked struct {
	View     uint64
	Op       uint64
	Checksum uint64
	Parent   uint64
}

// Dropped is a message the replica refused (EvDrop).
type Dropped struct {
	Command Command
	From    int    // the sender
	View    uint64 // the message's view
	Op      uint64 // the op the message names (0: none)
	Reason  Reason
	// Commit is the vote's commit point, for ReasonDVCGap (0: none).
	Commit uint64
	// Detail is the number the reason names: the replica's view for a view
	// mismatch, its sequencer for a gap, the window's bottom for
	// ReasonDVCGap, the vote's head for ReasonDVCUnreadable, and so on
	// (0: none).
	Detail uint64
}

// MergeTruncated is a canonical op the view-change merge proved unprepared
// (EvMergeTruncate).
type MergeTruncated struct {
	View     uint64
	Op       uint64
	Checksum uint64
	Nacks    uint64 // the votes that proved it
}

// Checkpointed is a checkpoint of the state at an op (EvCheckpoint).
type Checkpointed struct {
	Op            uint64
	StateChecksum uint64
}

// TransferInstalled is a state transfer's checkpoint installed
// (EvTransferInstall).
type TransferInstalled struct {
	Op       uint64
	Checksum uint64 // the op's checksum
	Head     uint64 // the replica's known head right after
	// Commit is the replica's commit point right after, which it applies
	// up to from what its journal holds (read by the protocol model, not
	// in the trace line: it would move every hash of a run that installs).
	Commit uint64
	// Snapshot is the state installed, so the oracle checks the state itself
	// rather than the replica's word for it; read-only, not in the trace.
	Snapshot *Snapshot
}

// OfferRefused is a state-transfer offer refused at install (EvOfferRefused).
type OfferRefused struct {
	Op     uint64 // the offered checkpoint's op
	Guard  uint64 // the op the refusal protected (for ReasonNotNewer, commit_min)
	Reason Reason
}

// RepairRequested is a RequestPrepares sent (EvRepairRequest).
type RepairRequested struct {
	From uint64 // the first op asked for
	To   uint64 // the last
	Peer int    // the replica asked
}

// ViewNoted is a view-change decision about a view: hold it, escalate to it,
// abdicate or resume in it (EvHold, EvViewEscalate, EvAbdicate, EvResume).
type ViewNoted struct {
	View uint64
}

// TimedOut is a timeout that fired (EvTimeout).
type TimedOut struct {
	Timer string // the timeout's name, a constant
}

// must panics on a payload read from an event of another kind: a caller bug.
// The panic's value is a constant, so every accessor stays cheap enough to
// inline; the stack names the accessor and its caller.
func (e *Event) must(ok bool) {
	if !ok {
		panic("replica: an event payload read from an event of another kind")
	}
}

// event returns c as an event of kind k, with last, the number the kind adds.
// Constructors build the event in one literal: an event is copied on every
// emit, and an intermediate value of its size was a copy more (5% of a
// prepare round).
func (c CommittedOp) event(k EventKind, last uint64) Event {
	return Event{Kind: k, View: c.View, Op: c.Op, Checksum: c.Checksum, w: eventWords{c.Parent, c.Client, c.Request, last}}
}

func (e *Event) committedOp() CommittedOp {
	return CommittedOp{View: e.View, Op: e.Op, Checksum: e.Checksum, Parent: e.w[0], Client: e.w[1], Request: e.w[2]}
}

// Event returns p as an event; emit fills in the replica.
func (p Applied) Event() Event { return p.event(EvCommit, p.Result) }

// Applied returns an EvCommit's payload.
func (e *Event) Applied() Applied {
	e.must(e.Kind == EvCommit)
	return Applied{CommittedOp: e.committedOp(), Result: e.w[3]}
}

// Event returns p as an event.
func (p PrimaryCommitted) Event() Event { return p.event(EvPrimaryCommit, p.Acks) }

// PrimaryCommitted returns an EvPrimaryCommit's payload.
func (e *Event) PrimaryCommitted() PrimaryCommitted {
	e.must(e.Kind == EvPrimaryCommit)
	return PrimaryCommitted{CommittedOp: e.committedOp(), Acks: e.w[3]}
}

// Event returns p as an event.
func (p StatusChanged) Event() Event {
	return Event{Kind: EvStatus, View: p.View, Op: p.Op, w: eventWords{uint64(p.Status), p.LogView, p.Commit}}
}

// StatusChanged returns an EvStatus's payload.
func (e *Event) StatusChanged() StatusChanged {
	e.must(e.Kind == EvStatus)
	return StatusChanged{Status: Status(e.w[0]), View: e.View, LogView: e.w[1], Op: e.Op, Commit: e.w[2]}
}

func journalKind(k EventKind) bool {
	switch k {
	case EvJournalAppend, EvJournalTruncate, EvJournalPrune, EvJournalSetAside, EvJournalEvict, EvJournalAsideRelease:
		return true
	}
	return false
}

// Event returns p as an event of kind k, one of the EvJournal kinds.
func (p JournalChange) Event(k EventKind) Event {
	Assert(Unowned, journalKind(k), "journal_change_kind", "kind %d", uint64(k))
	return Event{Kind: k, View: p.View, Op: p.Op, Checksum: p.Checksum}
}

// JournalChange returns the payload of an EvJournal event.
func (e *Event) JournalChange() JournalChange {
	e.must(journalKind(e.Kind))
	return JournalChange{View: e.View, Op: e.Op, Checksum: e.Checksum}
}

// Event returns p as an event.
func (p JournalRestored) Event() Event {
	return Event{Kind: EvJournalRestore, View: p.View, Op: p.Op, Checksum: p.Checksum, w: eventWords{p.Parent}}
}

// JournalRestored returns an EvJournalRestore's payload.
func (e *Event) JournalRestored() JournalRestored {
	e.must(e.Kind == EvJournalRestore)
	return JournalRestored{View: e.View, Op: e.Op, Checksum: e.Checksum, Parent: e.w[0]}
}

// Event returns p as an event.
func (p Acked) Event() Event {
	return Event{Kind: EvAck, View: p.View, Op: p.Op, Checksum: p.Checksum, w: eventWords{p.Parent}}
}

// Acked returns an EvAck's payload.
func (e *Event) Acked() Acked {
	e.must(e.Kind == EvAck)
	return Acked{View: e.View, Op: e.Op, Checksum: e.Checksum, Parent: e.w[0]}
}

// Event returns p as an event.
func (p Dropped) Event() Event {
	return Event{Kind: EvDrop, View: p.View, Op: p.Op, w: eventWords{uint64(p.Command) | uint64(p.Reason)<<8, uint64(p.From), p.Commit, p.Detail}}
}

// Dropped returns an EvDrop's payload.
func (e *Event) Dropped() Dropped {
	e.must(e.Kind == EvDrop)
	return Dropped{Command: Command(e.w[0]), Reason: Reason(e.w[0] >> 8), From: int(e.w[1]),
		View: e.View, Op: e.Op, Commit: e.w[2], Detail: e.w[3]}
}

// Event returns p as an event.
func (p MergeTruncated) Event() Event {
	return Event{Kind: EvMergeTruncate, View: p.View, Op: p.Op, Checksum: p.Checksum, w: eventWords{p.Nacks}}
}

// MergeTruncated returns an EvMergeTruncate's payload.
func (e *Event) MergeTruncated() MergeTruncated {
	e.must(e.Kind == EvMergeTruncate)
	return MergeTruncated{View: e.View, Op: e.Op, Checksum: e.Checksum, Nacks: e.w[0]}
}

// Event returns p as an event.
func (p Checkpointed) Event() Event {
	return Event{Kind: EvCheckpoint, Op: p.Op, w: eventWords{p.StateChecksum}}
}

// Checkpointed returns an EvCheckpoint's payload.
func (e *Event) Checkpointed() Checkpointed {
	e.must(e.Kind == EvCheckpoint)
	return Checkpointed{Op: e.Op, StateChecksum: e.w[0]}
}

// Event returns p as an event.
func (p TransferInstalled) Event() Event {
	e := Event{Kind: EvTransferInstall, Op: p.Op, Checksum: p.Checksum, w: eventWords{p.Head, p.Commit}}
	e.snapshot = p.Snapshot
	return e
}

// TransferInstalled returns an EvTransferInstall's payload.
func (e *Event) TransferInstalled() TransferInstalled {
	e.must(e.Kind == EvTransferInstall)
	return TransferInstalled{Op: e.Op, Checksum: e.Checksum, Head: e.w[0], Commit: e.w[1], Snapshot: e.snapshot}
}

// Event returns p as an event.
func (p OfferRefused) Event() Event {
	return Event{Kind: EvOfferRefused, Op: p.Op, w: eventWords{p.Guard, uint64(p.Reason)}}
}

// OfferRefused returns an EvOfferRefused's payload.
func (e *Event) OfferRefused() OfferRefused {
	e.must(e.Kind == EvOfferRefused)
	return OfferRefused{Op: e.Op, Guard: e.w[0], Reason: Reason(e.w[1])}
}

// Event returns p as an event; its op is the first asked for.
func (p RepairRequested) Event() Event {
	return Event{Kind: EvRepairRequest, Op: p.From, w: eventWords{p.To, uint64(p.Peer)}}
}

// RepairRequested returns an EvRepairRequest's payload.
func (e *Event) RepairRequested() RepairRequested {
	e.must(e.Kind == EvRepairRequest)
	return RepairRequested{From: e.Op, To: e.w[0], Peer: int(e.w[1])}
}

func viewKind(k EventKind) bool {
	return k == EvHold || k == EvViewEscalate || k == EvAbdicate || k == EvResume
}

// Event returns p as an event of kind k: EvHold, EvViewEscalate, EvAbdicate
// or EvResume.
func (p ViewNoted) Event(k EventKind) Event {
	Assert(Unowned, viewKind(k), "view_noted_kind", "kind %d", uint64(k))
	return Event{Kind: k, View: p.View}
}

// ViewNoted returns the payload of an EvHold, EvViewEscalate, EvAbdicate or
// EvResume.
func (e *Event) ViewNoted() ViewNoted {
	e.must(viewKind(e.Kind))
	return ViewNoted{View: e.View}
}

// Event returns p as an event.
func (p TimedOut) Event() Event { return Event{Kind: EvTimeout, timer: p.Timer} }

// TimedOut returns an EvTimeout's payload.
func (e *Event) TimedOut() TimedOut {
	e.must(e.Kind == EvTimeout)
	return TimedOut{Timer: e.timer}
}
