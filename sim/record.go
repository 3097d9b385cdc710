package sim

import (
	"vsrsim/packetsim"
	"vsrsim/replica"
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

	Msg    *replica.Message     // send, recv, drop
	Packet uint64               // send, recv, drop: the packet id, shared by a send and its fate
	Drop   packetsim.DropReason // drop
	Dup    bool                 // recv, drop: the network's replayed copy

	Event *replica.Event // event

	Node int // crash, restart: the replica; -1 on other lines
}

// Sink receives every trace record of a run, in order. It observes only: the
// run, and its trace hash, are the same with or without it.
type Sink interface {
	Record(r *Record) error
}

// Message fields a record can carry; which apply depends on the command.
type msgFields struct {
	op, commit, checksum, parent        uint64
	hasOp, hasCommit, hasSum, hasParent bool
}

func messageFields(m *replica.Message) (f msgFields) {
	switch m.Command {
	case replica.CmdPrepare:
		f.header(m.Prepare().Header)
	case replica.CmdRepairPrepare:
		f.header(m.RepairPrepare().Header)
	case replica.CmdPrepareOK:
		p := m.PrepareOk()
		f.op, f.checksum, f.parent = p.Op, p.Checksum, p.Parent
		f.hasOp, f.hasSum, f.hasParent = true, true, true
	case replica.CmdReply:
		f.op, f.hasOp = m.Reply().Op, true
	case replica.CmdRepairDone:
		f.op, f.hasOp = m.RepairDone().Last, true
	case replica.CmdRangeEvicted:
		f.op, f.hasOp = m.RangeEvicted().First, true
	case replica.CmdRequestPrepares:
		f.op, f.hasOp = m.RequestPrepares().From, true
	case replica.CmdDoViewChange:
		p := m.DoViewChange()
		f.op, f.commit, f.hasOp, f.hasCommit = p.Op, p.Commit, true, true
	case replica.CmdStartView:
		p := m.StartView()
		f.op, f.commit, f.hasOp, f.hasCommit = p.Op, p.Commit, true, true
	case replica.CmdCommit:
		f.commit, f.hasCommit = m.Commit().Commit, true
	case replica.CmdStateTransferOffer:
		f.commit, f.hasCommit = m.StateTransferOffer().SnapshotOp, true
	case replica.CmdRequestStateChunk:
		f.commit, f.hasCommit = m.RequestStateChunk().SnapshotOp, true
	case replica.CmdStateChunk:
		f.commit, f.hasCommit = m.StateChunk().SnapshotOp, true
	}
	return f
}

// header fills the fields of a message that carries a whole prepare header.
func (f *msgFields) header(h replica.Header) {
	f.op, f.checksum, f.parent, f.commit = h.Op, h.Checksum, h.Parent, h.Commit
	f.hasOp, f.hasSum, f.hasParent, f.hasCommit = true, true, true, true
}

// eventFields: which of an event's numbers mean something for its kind.
type evFields struct {
	view, op, commit, checksum, parent bool
}

func eventFields(k replica.EventKind) evFields {
	switch k {
	case replica.EvCommit, replica.EvJournalAppend, replica.EvJournalTruncate, replica.EvAck, replica.EvJournalPrune:
		return evFields{op: true, checksum: true, parent: true}
	case replica.EvStatus:
		return evFields{view: true, op: true, commit: true}
	case replica.EvMergeTruncate:
		return evFields{view: true, op: true, checksum: true}
	case replica.EvDrop, replica.EvPrimaryCommit, replica.EvCheckpoint, replica.EvTransferInstall,
		replica.EvOfferRefused, replica.EvRepairRequest:
		return evFields{op: true}
	case replica.EvHold, replica.EvViewEscalate:
		return evFields{view: true}
	}
	return evFields{}
}

// Op is the op number the record is about, if it has one.
func (r *Record) Op() (uint64, bool) {
	switch {
	case r.Msg != nil:
		f := messageFields(r.Msg)
		return f.op, f.hasOp
	case r.Event != nil:
		return r.Event.Op, eventFields(r.Event.Kind).op
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
func eventPeer(e *replica.Event, replicas int) (int, bool) {
	p := -1
	switch e.Kind {
	case replica.EvDrop:
		p = e.Dropped().From
	case replica.EvRepairRequest:
		p = e.RepairRequested().Peer
	default:
		return 0, false
	}
	return p, p < replicas
}
