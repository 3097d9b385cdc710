package sim

import (
	"vsrsim/packetsim"
	"vsrsim/vsr"
)

// Record is one trace line in structured form, as the trace hands it to a
// Sink. It points into the run's own buffers and is valid only during the
// Record call: a sink copies what it keeps.
type Record struct {
	Tick uint64
	Kind string // send, recv, drop, event, crash, restart, phase, note
	Line []byte // the canonical text, the part of the line the trace hash covers

	// Replicas is the cluster size: node ids at or above it are clients.
	Replicas int

	Msg    *vsr.Message         // send, recv, drop
	Packet uint64               // send, recv, drop: the packet id, shared by a send and its fate
	Drop   packetsim.DropReason // drop
	Dup    bool                 // recv, drop: the network's replayed copy

	Event *vsr.Event // event

	Node int // crash, restart: the replica; -1 on other lines
}

// Sink receives every trace record of a run, in order. It observes only: the
// run, and its trace hash, are the same with or without it.
type Sink interface {
	Record(r *Record) error
}

// FieldSink is a Sink that reads only a record's structured fields, never
// its text: the trace does not format lines for it (Record.Line is nil), which
// is most of what a sink costs a run. A guided search's coverage watch is one.
type FieldSink interface {
	Sink
	FieldsOnly()
}

// MsgFields are the numbers a record of a message can show; which apply
// depends on the command.
type MsgFields struct {
	Op, Commit, Checksum, Parent        uint64
	HasOp, HasCommit, HasSum, HasParent bool
}

// MessageFields are m's numbers a record can show.
func MessageFields(m *vsr.Message) (f MsgFields) {
	switch m.Command {
	case vsr.CmdPrepare:
		f.header(m.Prepare().Header)
	case vsr.CmdRepairPrepare:
		f.header(m.RepairPrepare().Header)
	case vsr.CmdPrepareOK:
		p := m.PrepareOk()
		f.Op, f.Checksum, f.Parent = p.Op, p.Checksum, p.Parent
		f.HasOp, f.HasSum, f.HasParent = true, true, true
	case vsr.CmdReply:
		f.Op, f.HasOp = m.Reply().Op, true
	case vsr.CmdRepairDone:
		f.Op, f.HasOp = m.RepairDone().Last, true
	case vsr.CmdRangeEvicted:
		f.Op, f.HasOp = m.RangeEvicted().First, true
	case vsr.CmdRequestPrepares:
		f.Op, f.HasOp = m.RequestPrepares().From, true
	case vsr.CmdDoViewChange:
		p := m.DoViewChange()
		f.Op, f.Commit, f.HasOp, f.HasCommit = p.Op, p.Commit, true, true
	case vsr.CmdStartView:
		p := m.StartView()
		f.Op, f.Commit, f.HasOp, f.HasCommit = p.Op, p.Commit, true, true
	case vsr.CmdCommit:
		f.Commit, f.HasCommit = m.Commit().Commit, true
	case vsr.CmdStateTransferOffer:
		f.Commit, f.HasCommit = m.StateTransferOffer().SnapshotOp, true
	case vsr.CmdRequestStateChunk:
		f.Commit, f.HasCommit = m.RequestStateChunk().SnapshotOp, true
	case vsr.CmdStateChunk:
		f.Commit, f.HasCommit = m.StateChunk().SnapshotOp, true
	}
	return f
}

// header fills the fields of a message that carries a whole prepare header.
func (f *MsgFields) header(h vsr.Header) {
	f.Op, f.Checksum, f.Parent, f.Commit = h.Op, h.Checksum, h.Parent, h.Commit
	f.HasOp, f.HasSum, f.HasParent, f.HasCommit = true, true, true, true
}

// EvFields say which of an event's numbers mean something for its kind.
type EvFields struct {
	View, Op, Commit, Checksum, Parent, Peer bool
}

// EventFields say which numbers of an event of kind k mean something.
func EventFields(k vsr.EventKind) EvFields {
	switch k {
	case vsr.EvCommit, vsr.EvJournalAppend, vsr.EvJournalTruncate, vsr.EvAck, vsr.EvJournalPrune:
		return EvFields{Op: true, Checksum: true, Parent: true}
	case vsr.EvStatus:
		return EvFields{View: true, Op: true, Commit: true}
	case vsr.EvDrop:
		return EvFields{Op: true, Peer: true}
	case vsr.EvMergeTruncate:
		return EvFields{View: true, Op: true, Checksum: true}
	case vsr.EvPrimaryCommit, vsr.EvCheckpoint, vsr.EvTransferInstall, vsr.EvOfferRefused:
		return EvFields{Op: true}
	case vsr.EvRepairRequest:
		return EvFields{Op: true, Peer: true}
	case vsr.EvHold, vsr.EvViewEscalate:
		return EvFields{View: true}
	}
	return EvFields{}
}

// Op is the op number the record is about, if it has one.
func (r *Record) Op() (uint64, bool) {
	switch {
	case r.Msg != nil:
		f := MessageFields(r.Msg)
		return f.Op, f.HasOp
	case r.Event != nil:
		return r.Event.Op, EventFields(r.Event.Kind).Op
	}
	return 0, false
}

// Replica is the replica the line happens at: the sender of a send, the
// receiver of a delivery or drop, the replica of an event, crash or restart.
// ok is false when that end is a client, or the line has no replica.
func (r *Record) Replica() (int, bool) {
	switch {
	case r.Msg != nil:
		at := r.Msg.To
		if r.Kind == "send" {
			at = r.Msg.From
		}
		return at, at < r.Replicas
	case r.Event != nil:
		return r.Event.Replica, true
	case r.Node >= 0:
		return r.Node, true
	}
	return 0, false
}

// Peer is the replica at the other end: the receiver of a send, the sender of
// a delivery or drop, or the peer an event names.
func (r *Record) Peer() (int, bool) {
	switch {
	case r.Msg != nil:
		at := r.Msg.From
		if r.Kind == "send" {
			at = r.Msg.To
		}
		return at, at < r.Replicas
	case r.Event != nil:
		return eventPeer(r.Event, r.Replicas)
	}
	return 0, false
}

// Client is the client at either end of a message, if one is.
func (r *Record) Client() (int, bool) {
	if r.Msg == nil {
		return 0, false
	}
	switch {
	case r.Msg.From >= r.Replicas:
		return r.Msg.From - r.Replicas, true
	case r.Msg.To >= r.Replicas:
		return r.Msg.To - r.Replicas, true
	}
	return 0, false
}

// eventPeer is the replica at the other end of an event: a drop's sender, the
// peer a repair request asked.
func eventPeer(e *vsr.Event, replicas int) (int, bool) {
	p := -1
	switch e.Kind {
	case vsr.EvDrop:
		p = e.Dropped().From
	case vsr.EvRepairRequest:
		p = e.RepairRequested().Peer
	default:
		return 0, false
	}
	return p, p < replicas
}
