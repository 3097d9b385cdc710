package replica

import (
	"vsrsim/marks"
	"vsrsim/vsr"
)

// Effects. A step's every output leaves through these: a message sent, an
// event emitted, a message dropped with its reason, a protocol branch marked.
// The replica never does I/O; it appends to the Output the harness handed the
// step, and the harness delivers, traces and counts.

func (r *Replica) send(to int, m vsr.Message) {
	// Replies go to clients and everything else to replicas.
	vsr.Assert(r.id, (m.Command == vsr.CmdReply) == (to >= r.n), "send_reply_to_client_only", vsr.DetailHolds)
	m.From = r.id
	m.To = to
	if m.View == 0 {
		m.View = r.view
	}
	r.out.Messages = append(r.out.Messages, m)
}

func (r *Replica) sendAll(m vsr.Message) {
	for i := 0; i < r.n; i++ {
		if i != r.id {
			r.send(i, m)
		}
	}
}

func (r *Replica) emit(e vsr.Event) {
	e.Replica = r.id
	r.out.Events = append(r.out.Events, e)
}

// mark counts a pass through a named branch (docs/marks.md).
func (r *Replica) mark(m marks.Mark) { r.out.Marks.Hit(m) }

// drop records that the replica refused m; op is the op the message names.
func (r *Replica) drop(m *vsr.Envelope, op uint64, reason vsr.Reason, aux uint64) {
	vsr.Assert(r.id, reason != vsr.ReasonNone, "drop_has_reason", vsr.DetailHolds)
	vsr.Assert(r.id, reason < vsr.ReasonCount, "drop_has_reason", "reason %d", uint64(reason))
	r.markReason(reason)
	r.emit(vsr.Dropped{Command: m.Command, From: m.From, View: m.View, Op: op, Reason: reason, Detail: aux}.Event())
}

// dropUnreadable drops an unreadable vote whole. One whose window also leaves
// a gap above its commit point gets its own reason, with the vote's commit and
// the window's bottom: a readable vote's gap lies more than a window below the
// head it announces, where the pipeline bound proves every op committed (see
// tryMerge), but this vote announces a head below its window, so nothing
// places the ops in the gap.
func (r *Replica) dropUnreadable(from int, view uint64, m vsr.DoViewChange) {
	d := vsr.Dropped{Command: vsr.CmdDoViewChange, From: from, View: view, Op: m.Op, Reason: vsr.ReasonDVCUnreadable, Detail: m.Op}
	if lo, _, ok := suffixGap(m.Commit, m.Suffix); ok {
		d.Reason, d.Commit, d.Detail = vsr.ReasonDVCGap, lo-1, m.Suffix[len(m.Suffix)-1].Header.Op
	}
	r.markReason(d.Reason)
	r.emit(d.Event())
}

// markReason counts the mark of a drop or refusal reason, if it has one.
func (r *Replica) markReason(reason vsr.Reason) {
	if reason < vsr.ReasonCount {
		if m := dropMarks[reason]; m != noMark {
			r.mark(m)
		}
	}
}

// emitStatus reports the replica's status, view, log and commit point.
func (r *Replica) emitStatus() {
	r.emit(vsr.StatusChanged{Status: r.status, View: r.view, LogView: r.logView, Op: r.wm.sequencer, Commit: r.wm.commitMax}.Event())
}

// committedOp names h, committed or applied in the replica's view.
func (r *Replica) committedOp(h *vsr.Header) vsr.CommittedOp {
	return vsr.CommittedOp{View: r.view, Op: h.Op, Checksum: h.Checksum, Parent: h.Parent, Client: h.Client, Request: h.Request}
}
