package vsr

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
	EvCommit              EventKind = iota + 1 // an op applied locally (Applied)
	EvStatus                                   // status, view or log changed (StatusChanged)
	EvJournalAppend                            // an op journaled (JournalChange)
	EvJournalTruncate                          // an op removed from the journal by a view change (JournalChange)
	EvAck                                      // PrepareOk sent for an op; a primary acks its own prepares (Acked)
	EvDrop                                     // a message dropped by the replica (Dropped)
	EvMergeTruncate                            // the view-change merge truncated a canonical op (MergeTruncated)
	EvCheckpoint                               // state checkpointed at an op (Checkpointed)
	EvTransferInstall                          // state transfer installed at an op (TransferInstalled)
	EvOfferRefused                             // a state-transfer offer refused (OfferRefused)
	EvRepairRequest                            // RequestPrepares sent to a peer (RepairRequested)
	EvHold                                     // view change held instead of escalating (ViewNoted)
	EvViewEscalate                             // status timeout escalated the view (ViewNoted)
	EvPrimaryCommit                            // the primary committed an op (PrimaryCommitted)
	EvTimeout                                  // a timeout fired (TimedOut)
	EvJournalPrune                             // an entry at or below commit_max that the canonical chain disowns dropped (JournalChange)
	EvJournalSetAside                          // an unproven entry at or below commit_max moved out of the journal, kept for reclaim (JournalChange)
	EvAbdicate                                 // a primary that heard no quorum for a heartbeat timeout stopped holding its backups (ViewNoted)
	EvResume                                   // an abdicated primary heard a quorum again (ViewNoted)
	EvJournalEvict                             // an op fell out of the journal for good to make room (JournalChange)
	EvJournalRestore                           // an entry a restart from a disk took up into its journal, reported in op order at its first step (JournalRestored)
	EvJournalAsideRelease                      // a set-aside entry let go once the journal's copy of it is durable (JournalChange)
)

var eventNames = [...]string{
	EvCommit:              "commit",
	EvStatus:              "status",
	EvJournalAppend:       "journal_append",
	EvJournalTruncate:     "journal_truncate",
	EvAck:                 "ack",
	EvDrop:                "drop",
	EvMergeTruncate:       "merge_truncate",
	EvCheckpoint:          "checkpoint",
	EvTransferInstall:     "transfer_install",
	EvOfferRefused:        "offer_refused",
	EvRepairRequest:       "repair_request",
	EvHold:                "view_hold",
	EvViewEscalate:        "view_escalate",
	EvPrimaryCommit:       "primary_commit",
	EvTimeout:             "timeout",
	EvJournalPrune:        "journal_prune",
	EvJournalSetAside:     "journal_set_aside",
	EvAbdicate:            "abdicate",
	EvResume:              "resume",
	EvJournalEvict:        "journal_evict",
	EvJournalRestore:      "journal_restore",
	EvJournalAsideRelease: "journal_aside_release",
}

func (k EventKind) String() string {
	if int(k) < len(eventNames) && eventNames[k] != "" {
		return eventNames[k]
	}
	return fmt.Sprintf("Event(%d)", uint8(k))
}

// Event is one effect a replica reports to the harness and its checkers: an
// envelope (kind, replica, and the view, op and checksum the event is about,
// each 0 where the kind names none) and a payload whose type the kind names,
// built by that type's Event method and read by the accessor of the same name
// (event_payload.go), which panics on any other kind. A reader cannot take an
// ack count for a state checksum, nor a drop's reason from a commit. Like a
// message, an event is one value of one size, appended in the hot loop
// without allocating.
type Event struct {
	Kind     EventKind
	Replica  int
	View     uint64
	Op       uint64
	Checksum uint64
	w        eventWords // the payload's numbers; only event_payload.go reads them
	snapshot *Snapshot  // EvTransferInstall's installed state
	timer    string     // EvTimeout's timeout name, a constant
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
	// Writes are the disk writes the step asks for (Options.Storage), their
	// bytes in WriteData.
	Writes    []Write
	WriteData []byte
	// Reads are the disk reads the step asks for (a repair served from
	// the disk); each completes in a later ReadDone.
	Reads []Read
}

// Reset empties the messages and events, keeping their capacity and the marks.
func (o *Output) Reset() {
	o.Messages = o.Messages[:0]
	o.Events = o.Events[:0]
	o.Writes = o.Writes[:0]
	o.WriteData = o.WriteData[:0]
	o.Reads = o.Reads[:0]
}

// Violation is the panic value of a failed replica assertion: the run ends with a
// crash verdict naming the invariant.
type Violation struct {
	Replica   int
	Invariant string
	// Detail says what failed. Its %d and %b verbs take the numbers the
	// assertion recorded, which Error fills in: the assertion formats
	// nothing, so it stays cheap enough to inline where it holds.
	Detail string
	values [violationValuesMax]uint64
	count  int
}

// Unowned stands for the replica in an assertion of code that knows none (the
// journal, a ring, a payload); the harness still reports the invariant by name.
const Unowned = -1

// Details of an assertion that names no numbers.
const (
	DetailHolds   = "does not hold"
	DetailGate    = "the gate let a message through that it refuses"
	DetailStorage = "journal storage"
)

// Assert panics with a Violation of the invariant name at replica (Unowned:
// -1) unless ok: the replica's one assertion. An assertion turns a
// correctness bug into a crash the simulator reports by the invariant's name,
// so a run never carries on from a state the protocol forbids; assertions are
// always on. detail is a constant, or a format whose %d or %b verbs take
// values (at most violationValuesMax). The numbers travel unboxed and the
// Violation formats them only when printed, and the failing branch is kept
// out of line: a passing assertion costs a compare and a branch, and
// functions on the hot path that hold a few stay small enough to inline.
//
// The replica's gate predicates are not assertions: a message they refuse is
// a fault of the network or a peer, dropped with a reason; a handler then
// asserts what its predicate guaranteed, and a failure there is the replica's
// bug.
func Assert(replica int, ok bool, name, detail string, values ...uint64) {
	if !ok {
		violated(replica, name, detail, values)
	}
}

// violated reports a failed assertion, the cold path kept out of line. The
// report itself must be whole: a failure is read by its name and its numbers.
//
//go:noinline
func violated(replica int, name, detail string, values []uint64) {
	if name == "" || len(values) > violationValuesMax {
		panic(Violation{Replica: replica, Invariant: "invariant_reports_whole", Detail: "an assertion named %d characters records %d values",
			values: [violationValuesMax]uint64{uint64(len(name)), uint64(len(values))}, count: 2})
	}
	v := Violation{Replica: replica, Invariant: name, Detail: detail}
	v.count = copy(v.values[:], values)
	panic(v)
}

// violationValuesMax bounds the numbers an assertion records.
const violationValuesMax = 4

func (v Violation) Error() string {
	detail := v.Detail
	if v.count > 0 {
		args := make([]any, v.count)
		for i := range args {
			args[i] = v.values[i]
		}
		detail = fmt.Sprintf(detail, args...)
	}
	return fmt.Sprintf("replica %d assertion %s: %s", v.Replica, v.Invariant, detail)
}
