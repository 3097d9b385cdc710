// Package spec is an abstract model of the protocol the replicas run, checked
// step by step against what they do: every message a replica sends and every
// status it reports is an action of the model, taken only if its precondition
// holds, and the model's state invariants hold after every step. The oracle
// (sim/check) judges outcomes; this package judges each step, so a step that
// breaks a rule of Viewstamped Replication fails the run where it happens,
// before a rare schedule turns it into a lost op or a stall.
//
// Like the oracle it imports nothing of this module: the harness translates
// what it sees at the boundary into the types below. docs/spec.md lists every
// rule with the section of "Viewstamped Replication Revisited" (Liskov and
// Cowling, 2012) or the decision record it encodes.
package spec

import "fmt"

// Status is a replica's protocol status as the model knows it.
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

// Command is the kind of a message, as far as a rule reads it.
type Command uint8

// Commands the model reads. CmdOther is every command no rule reads yet.
const (
	CmdOther Command = iota
	CmdPrepare
	CmdPrepareOk
	CmdCommit
	CmdCommitOk
	CmdStartViewChange
	CmdDoViewChange
	CmdStartView
	CmdRequestStartView
	CmdRepairPrepare
	CmdStateChunk
)

var commandNames = [...]string{"other", "Prepare", "PrepareOk", "Commit", "CommitOk",
	"StartViewChange", "DoViewChange", "StartView", "RequestStartView", "RepairPrepare", "StateChunk"}

func (c Command) String() string {
	if int(c) < len(commandNames) {
		return commandNames[c]
	}
	return fmt.Sprintf("Command(%d)", uint8(c))
}

// Message is one message in the model's terms. Only the fields its command
// carries are set: Op and Checksum for a Prepare or PrepareOk, and with
// Commit (the commit point it vouches with) for a RepairPrepare; LogView, Op and
// Commit for a DoViewChange or StartView; Commit for a Commit; Commit and
// Checksum (the op it applied last) for a CommitOk; Op and Checksum (the
// checkpoint's op and that op's checksum) for a StateChunk; Leave for a
// StartViewChange. A message delivered (a step's cause) carries only its
// envelope, a StartViewChange's Leave, a Commit's commit and a StartView's
// log_view, head and commit (no suffix).
type Message struct {
	Command Command
	// Name is the replica's name for the command, for evidence: a
	// command no rule reads is CmdOther, and the name says which it was.
	Name     string
	From, To int
	View     uint64
	Op       uint64
	Checksum uint64
	LogView  uint64
	Commit   uint64
	Leave    bool
	// Suffix is a DoViewChange's or StartView's log from its head down
	// (read only; the harness may reuse it after the step).
	Suffix []Entry
}

// Entry is what a vote or a StartView says of one op: its header's op,
// checksum and parent (Checksum 0: a blank, no header), and whether the
// sender holds the body (Present), proves it never prepared the op (Nack),
// or may have acked it before it lost its journal (Unsure).
type Entry struct {
	Op, Checksum, Parent  uint64
	Present, Nack, Unsure bool
}

func (m *Message) String() string {
	name := m.Name
	if name == "" {
		name = m.Command.String()
	}
	s := fmt.Sprintf("%s %d->%d view=%d", name, m.From, m.To, m.View)
	switch m.Command {
	case CmdPrepare, CmdPrepareOk:
		s += fmt.Sprintf(" op=%d checksum=%x", m.Op, m.Checksum)
	case CmdDoViewChange, CmdStartView:
		s += fmt.Sprintf(" log_view=%d op=%d commit=%d", m.LogView, m.Op, m.Commit)
	case CmdStartViewChange:
		if m.Leave {
			s += " leave"
		}
	}
	return s
}

// Config is what the rules depend on beyond the trace: the cluster's size and
// the protocol options that change a rule.
type Config struct {
	Replicas int
	// Star: only the primary sends prepares (no chain forwarding).
	Star bool
	// LeaveWindow: a replica leaves its view on its own only with a
	// view-change quorum of requests to leave (protocol option
	// SVCQuorumOff turns it off).
	LeaveWindow bool
	// Relay: a Normal backup may relay its view's StartView (D43).
	Relay bool
	// ViewFloor: a restart comes back in a view at least as high as the
	// last one the replica reported. Without a disk the superblock is
	// written in the step that changes the view, so it holds; on a disk a
	// crash may lose the write, and the oracle's monotonicity rule judges
	// what the replica acted in on the wire instead.
	ViewFloor bool
	// Disk: journals are on simulated disks. A restart reads back what
	// the disk holds, which may be an entry the replica had dropped or
	// overwritten when its write never landed; no event reports what it
	// read, so an entry once journaled counts as possibly held.
	Disk bool
	// JournalSlots is the journal's slot count (op o in slot o mod
	// JournalSlots), for the storage rules; 0 leaves blank_keeps_acks out.
	JournalSlots int
}

// Finding is the first rule a run broke.
type Finding struct {
	Rule     string // the rule's name; the verdict's invariant is "spec/" + Rule
	Text     string // the rule itself, as docs/spec.md states it
	Evidence string // the step and what in it broke the rule
	Tick     uint64
	Replica  int
	Step     uint64 // the model's step count when it fired
	// Op is the op the finding is about, where one rule names one
	// (committed_kept); 0 otherwise. The oracle scopes an excuse by it: an
	// op a disk lost past what the protocol survives (atlas off) may come
	// back different, and that is the storage's finding, not the replica's.
	Op uint64
	// Promise says the finding is that the replica went back on a promise
	// (vote_keeps_acks: an ack), made in life Life and broken in life Broke
	// (lives count its restarts): a disk that lost its superblock in
	// between excuses it, a loss before the promise does not.
	Promise     bool
	Life, Broke uint64
}

// Invariant is the verdict's invariant name for the finding.
func (f *Finding) Invariant() string { return "spec/" + f.Rule }
