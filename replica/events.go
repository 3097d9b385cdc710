package replica

import (
	"fmt"

	"vsrsim/marks"
)

// Status is a replica's protocol status.
type Status uint8

// Statuses.
const (
	StatusNormal Status = iota
	StatusViewChange
	StatusRecovering
)

func (s Status) String() string {
	switch s {
	case StatusNormal:
		return "normal"
	case StatusViewChange:
		return "view_change"
	}
	return "recovering"
}

// EventKind is the kind of an effect a replica reports.
type EventKind uint8

// Event kinds. Append only: the numbering reaches the trace hash through names.
const (
	EvCommit          EventKind = iota + 1 // Op applied locally (Checksum, Parent, Client, Request, Result)
	EvStatus                               // Status / View / LogView changed
	EvJournalAppend                        // Op journaled (Checksum)
	EvJournalTruncate                      // Op removed from the journal by a view change (Checksum, View)
	EvAck                                  // PrepareOk sent for Op (Checksum); a primary acks its own prepares
	EvDrop                                 // a message dropped by the replica (Command, Op, Reason, DropDetail)
	EvMergeTruncate                        // the view-change merge truncated canonical Op (Checksum, Nacks)
	EvCheckpoint                           // state checkpointed at Op (StateChecksum)
	EvTransferInstall                      // state transfer installed at Op (Head)
	EvOfferRefused                         // a state-transfer offer at Op refused (Reason, Guard)
	EvRepairRequest                        // RequestPrepares Op..RangeEnd sent to Peer
	EvHold                                 // view change held instead of escalating
	EvViewEscalate                         // status timeout escalated the view
	EvPrimaryCommit                        // the primary committed Op (Checksum, Parent, View, Client, Request, Acks)
	EvTimeout                              // a timeout fired (Timer)
	EvJournalPrune                         // an entry at or below commit_max that the canonical chain disowns dropped (View)
	EvJournalSetAside                      // an unproven entry at or below commit_max moved out of the journal, kept for reclaim
	EvAbdicate                             // a primary that heard no quorum for a heartbeat timeout stopped holding its backups
	EvResume                               // an abdicated primary heard a quorum again
	EvJournalEvict                         // Op (Checksum) fell out of the journal for good to make room
)

var eventNames = [...]string{
	EvCommit:          "commit",
	EvStatus:          "status",
	EvJournalAppend:   "journal_append",
	EvJournalTruncate: "journal_truncate",
	EvAck:             "ack",
	EvDrop:            "drop",
	EvMergeTruncate:   "merge_truncate",
	EvCheckpoint:      "checkpoint",
	EvTransferInstall: "transfer_install",
	EvOfferRefused:    "offer_refused",
	EvRepairRequest:   "repair_request",
	EvHold:            "view_hold",
	EvViewEscalate:    "view_escalate",
	EvPrimaryCommit:   "primary_commit",
	EvTimeout:         "timeout",
	EvJournalPrune:    "journal_prune",
	EvJournalSetAside: "journal_set_aside",
	EvAbdicate:        "abdicate",
	EvResume:          "resume",
	EvJournalEvict:    "journal_evict",
}

func (k EventKind) String() string {
	if int(k) < len(eventNames) && eventNames[k] != "" {
		return eventNames[k]
	}
	return fmt.Sprintf("Event(%d)", uint8(k))
}

// Event is one effect a replica reports to the harness and its checkers.
// The number whose meaning depends on the kind is private and read through
// the accessor named for that meaning, which panics on any other kind: a
// reader cannot take an ack count for a state checksum.
type Event struct {
	Kind     EventKind
	Replica  int
	Status   Status
	View     uint64
	LogView  uint64
	Op       uint64
	Checksum uint64
	Parent   uint64
	Commit   uint64 // EvStatus: commit_min; EvDrop for ReasonDVCGap: the vote's commit point
	Command  Command
	Peer     int
	Client   uint64 // EvCommit: the client node whose request the op executed (0: none)
	Request  uint64 // EvCommit: that client's request number
	Reason   Reason // EvDrop, EvOfferRefused
	Timer    string // EvTimeout: the timeout's name, a constant
	// Installed is the snapshot an EvTransferInstall installed (Checksum is
	// its op's checksum), so the oracle checks the state itself rather than
	// the replica's word for it. Not part of the trace.
	Installed *Snapshot
	aux       uint64 // read through the accessors below
}

func (e *Event) auxOf(k1, k2 EventKind) uint64 {
	if e.Kind != k1 && e.Kind != k2 {
		panic("replica: Event accessor for " + k1.String() + " read on " + e.Kind.String())
	}
	return e.aux
}

// Result is the state machine's result of an EvCommit.
func (e *Event) Result() uint64 { return e.auxOf(EvCommit, EvCommit) }

// Acks is the number of PrepareOks an EvPrimaryCommit committed on.
func (e *Event) Acks() uint64 { return e.auxOf(EvPrimaryCommit, EvPrimaryCommit) }

// Nacks is the number of votes that proved an EvMergeTruncate op unprepared.
func (e *Event) Nacks() uint64 { return e.auxOf(EvMergeTruncate, EvMergeTruncate) }

// StateChecksum is the state machine's checksum at an EvCheckpoint.
func (e *Event) StateChecksum() uint64 { return e.auxOf(EvCheckpoint, EvCheckpoint) }

// Head is the replica's known head right after an EvTransferInstall.
func (e *Event) Head() uint64 { return e.auxOf(EvTransferInstall, EvTransferInstall) }

// Guard is the op an EvOfferRefused refusal protected (for ReasonNotNewer,
// commit_min).
func (e *Event) Guard() uint64 { return e.auxOf(EvOfferRefused, EvOfferRefused) }

// RangeEnd is the last op an EvRepairRequest asked for.
func (e *Event) RangeEnd() uint64 { return e.auxOf(EvRepairRequest, EvRepairRequest) }

// DropDetail is the number an EvDrop's reason names: the replica's view for
// a view mismatch, its sequencer for a gap, the window's bottom for
// ReasonDVCGap, the vote's head for ReasonDVCUnreadable, and so on (0: none).
func (e *Event) DropDetail() uint64 { return e.auxOf(EvDrop, EvDrop) }

// String is the canonical one-line form used in traces.
func (e *Event) String() string { return string(AppendEvent(nil, e)) }

// Output collects what one step produced. The harness owns it and resets it
// between steps so steady-state steps do not allocate.
type Output struct {
	Messages []Message
	Events   []Event
	// Marks counts the protocol branches taken (docs/marks.md). Reset keeps
	// them, so one Output reused for a whole run counts the whole run; they
	// stay outside the trace and its hash.
	Marks marks.Counts
}

// Reset empties the messages and events, keeping their capacity and the marks.
func (o *Output) Reset() {
	o.Messages = o.Messages[:0]
	o.Events = o.Events[:0]
}

// Violation is the panic value of a failed replica assertion: the run ends with a
// crash verdict naming the invariant.
type Violation struct {
	Replica   int
	Invariant string
	Detail    string
}

func (v Violation) Error() string {
	return fmt.Sprintf("replica %d assertion %s: %s", v.Replica, v.Invariant, v.Detail)
}
