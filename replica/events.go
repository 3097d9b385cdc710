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
	EvCommit          EventKind = iota + 1 // Op applied locally (Checksum, Parent, Client, Request, Aux = result)
	EvStatus                               // Status / View / LogView changed
	EvJournalAppend                        // Op journaled (Checksum)
	EvJournalTruncate                      // Op removed from the journal by a view change (Checksum, View)
	EvAck                                  // PrepareOk sent for Op (Checksum); a primary acks its own prepares
	EvDrop                                 // a message dropped by the replica (Command, Op, Reason, Aux)
	EvMergeTruncate                        // the view-change merge truncated canonical Op (Checksum)
	EvCheckpoint                           // state checkpointed at Op (Aux = state checksum)
	EvTransferInstall                      // state transfer installed at Op
	EvOfferRefused                         // a state-transfer offer at Op refused (Reason, Aux = guard op)
	EvRepairRequest                        // RequestPrepares Op..Aux sent to Peer
	EvHold                                 // view change held instead of escalating
	EvViewEscalate                         // status timeout escalated the view
	EvPrimaryCommit                        // the primary committed Op (Checksum, Parent, View, Client, Request; Aux = its ack count)
	EvTimeout                              // a timeout fired (Reason = its name)
	EvJournalPrune                         // an entry at or below commit_max that the canonical chain disowns dropped (View)
	EvJournalSetAside                      // an unproven entry at or below commit_max moved out of the journal, kept for reclaim
	EvAbdicate                             // a primary that heard no quorum for a heartbeat timeout stopped holding its backups
	EvResume                               // an abdicated primary heard a quorum again
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
}

func (k EventKind) String() string {
	if int(k) < len(eventNames) && eventNames[k] != "" {
		return eventNames[k]
	}
	return fmt.Sprintf("Event(%d)", uint8(k))
}

// Event is one effect a replica reports to the harness and its checkers.
type Event struct {
	Kind     EventKind
	Replica  int
	Status   Status
	View     uint64
	LogView  uint64
	Op       uint64
	Checksum uint64
	Parent   uint64
	Commit   uint64
	Aux      uint64
	Command  Command
	Peer     int
	Client   uint64 // EvCommit: the client node whose request the op executed (0: none)
	Request  uint64 // EvCommit: that client's request number
	Reason   string // a constant string: never formatted at run time
}

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
