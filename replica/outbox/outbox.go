package outbox

import (
	"vsrsim/marks"
	"vsrsim/vsr"
)

// An Outbox is where a replica step's every output leaves: a message sent,
// an event emitted, a message dropped with its reason, a protocol branch
// marked. The replica never does I/O; it appends to the Output the harness
// handed the step (Out, set for the step and nil between steps), and the
// harness delivers, traces and counts.
type Outbox struct {
	Out  *vsr.Output
	self int
	n    int
	// view is the replica's view, which a message that names none is of.
	view *uint64
}

// New is the outbox of replica self of n, whose view lives at view.
func New(self, n int, view *uint64) Outbox { return Outbox{self: self, n: n, view: view} }

// Send sends m to to: a replica, or (a reply) a client.
func (o *Outbox) Send(to int, m vsr.Message) {
	// Replies go to clients and everything else to replicas.
	vsr.Assert(o.self, (m.Command == vsr.CmdReply) == (to >= o.n), "send_reply_to_client_only", vsr.DetailHolds)
	m.From = o.self
	m.To = to
	if m.View == 0 {
		m.View = *o.view
	}
	o.Out.Messages = append(o.Out.Messages, m)
}

// SendAll sends m to every other replica.
func (o *Outbox) SendAll(m vsr.Message) {
	for i := 0; i < o.n; i++ {
		if i != o.self {
			o.Send(i, m)
		}
	}
}

// Emit reports e, as this replica's.
func (o *Outbox) Emit(e vsr.Event) {
	e.Replica = o.self
	o.Out.Events = append(o.Out.Events, e)
}

// Mark counts a pass through a named branch (docs/marks.md).
func (o *Outbox) Mark(m marks.Mark) { o.Out.Marks.Hit(m) }

// Drop records that the replica refused m; op is the op the message names.
func (o *Outbox) Drop(m *vsr.Envelope, op uint64, reason vsr.Reason, aux uint64) {
	vsr.Assert(o.self, reason != vsr.ReasonNone, "drop_has_reason", vsr.DetailHolds)
	vsr.Assert(o.self, reason < vsr.ReasonCount, "drop_has_reason", "reason %d", uint64(reason))
	o.MarkReason(reason)
	o.Emit(vsr.Dropped{Command: m.Command, From: m.From, View: m.View, Op: op, Reason: reason, Detail: aux}.Event())
}

// MarkReason counts the mark of a drop or refusal reason, if it has one.
func (o *Outbox) MarkReason(reason vsr.Reason) {
	if reason < vsr.ReasonCount {
		if m := DropMarks[reason]; m != NoMark {
			o.Mark(m)
		}
	}
}

// NoMark: a reason whose drop names no protocol branch worth a mark.
const NoMark = marks.Count

// DropMarks maps a drop reason to its coverage mark (docs/marks.md). The
// drop path counts through it, so each reason is marked wherever it is
// refused (gate or handler) from one call site. An offer the gate refuses as
// not newer is the same branch installTransfer marks for a snapshot that
// arrived too late.
var DropMarks = func() (t [vsr.ReasonCount]marks.Mark) {
	for i := range t {
		t[i] = NoMark
	}
	t[vsr.ReasonBadChecksum] = marks.DropBadChecksum
	t[vsr.ReasonGap] = marks.DropGap
	t[vsr.ReasonOldView] = marks.DropOldView
	// A partial admission counts as the refusal it was before it took its
	// fact: the same branch of the gate.
	t[vsr.ReasonProbeNewerView] = marks.DropNewerView
	t[vsr.ReasonRelayView] = marks.DropOldView
	t[vsr.ReasonOldPrimaryAlive] = marks.DropOldView
	t[vsr.ReasonStaleIncarnation] = marks.DropStaleIncarnation
	t[vsr.ReasonParentMismatch] = marks.DropParentMismatch
	t[vsr.ReasonHeaderMismatch] = marks.DropHeaderMismatch
	t[vsr.ReasonUnverified] = marks.DropUnverified
	t[vsr.ReasonRecovering] = marks.DropRecovering
	t[vsr.ReasonTransferring] = marks.DropTransferring
	t[vsr.ReasonRequestQueueFull] = marks.DropRequestQueueFull
	t[vsr.ReasonOldRequest] = marks.DropOldRequest
	t[vsr.ReasonChunkCorrupt] = marks.DropChunkCorrupt
	t[vsr.ReasonDVCUnreadable] = marks.DropDVCUnreadable
	t[vsr.ReasonDVCGap] = marks.DropDVCUnreadable
	t[vsr.ReasonStartViewUnreadable] = marks.DropStartViewUnreadable
	t[vsr.ReasonBelowCommit] = marks.DropBelowCommit
	t[vsr.ReasonBelowAck] = marks.DropBelowAck
	t[vsr.ReasonOfferNotNewer] = marks.TransferOfferRefusedNotNewer
	return t
}()
