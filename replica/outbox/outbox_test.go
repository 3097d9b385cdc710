package outbox

import (
	"testing"

	"vsrsim/marks"
	"vsrsim/vsr"
	"vsrsim/vsr/vsrtest"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestSendNamesSenderAndView: a message leaves from this replica, to whom it
// is sent, in the replica's view unless it names its own.
func TestSendNamesSenderAndView(t *testing.T) {
	view := uint64(7)
	o := New(1, 3, &view)
	o.Out = &vsr.Output{}
	o.Send(2, vsr.Message{Envelope: vsr.Envelope{Command: vsr.CmdCommit}})
	o.Send(0, vsr.Message{Envelope: vsr.Envelope{Command: vsr.CmdCommit, View: 9}})
	view = 8
	o.SendAll(vsr.Message{Envelope: vsr.Envelope{Command: vsr.CmdPrepareOK}})
	require.Len(t, o.Out.Messages, 4)
	m := o.Out.Messages
	assert.Equal(t, [3]uint64{1, 2, 7}, [3]uint64{uint64(m[0].From), uint64(m[0].To), m[0].View})
	assert.Equal(t, uint64(9), m[1].View, "a message that names its view keeps it")
	assert.Equal(t, []int{0, 2}, []int{m[2].To, m[3].To}, "SendAll skips the sender")
	assert.Equal(t, uint64(8), m[3].View, "the view as it is when sent")
}

// TestSendRepliesOnlyToClients: a reply to a replica, or anything else to a
// client, is the replica's bug.
func TestSendRepliesOnlyToClients(t *testing.T) {
	view := uint64(0)
	o := New(0, 3, &view)
	o.Out = &vsr.Output{}
	v := vsrtest.ViolationOf(func() { o.Send(1, vsr.Message{Envelope: vsr.Envelope{Command: vsr.CmdReply}}) })
	require.NotNil(t, v)
	assert.Equal(t, "send_reply_to_client_only", v.Invariant)
	v = vsrtest.ViolationOf(func() { o.Send(3, vsr.Message{Envelope: vsr.Envelope{Command: vsr.CmdCommit}}) })
	require.NotNil(t, v)
	assert.Nil(t, vsrtest.ViolationOf(func() { o.Send(3, vsr.Message{Envelope: vsr.Envelope{Command: vsr.CmdReply}}) }))
}

// TestDropEmitsAndMarks: a drop is an event with its reason and counts the
// reason's mark; a reason without one counts nothing; a drop needs a reason.
func TestDropEmitsAndMarks(t *testing.T) {
	view := uint64(3)
	o := New(2, 3, &view)
	o.Out = &vsr.Output{}
	o.Drop(&vsr.Envelope{Command: vsr.CmdPrepare, From: 0, View: 3}, 11, vsr.ReasonGap, 0)
	require.Len(t, o.Out.Events, 1)
	e := o.Out.Events[0]
	assert.Equal(t, 2, e.Replica)
	d := e.Dropped()
	assert.Equal(t, vsr.ReasonGap, d.Reason)
	assert.Equal(t, uint64(11), d.Op)
	assert.Equal(t, 1, int(o.Out.Marks[marks.DropGap]))
	for r := vsr.Reason(1); r < vsr.ReasonCount; r++ {
		if DropMarks[r] == NoMark {
			before := o.Out.Marks
			o.MarkReason(r)
			assert.Equal(t, before, o.Out.Marks, "reason %v has no mark", r)
			break
		}
	}
	v := vsrtest.ViolationOf(func() { o.Drop(&vsr.Envelope{}, 0, vsr.ReasonNone, 0) })
	require.NotNil(t, v)
	assert.Equal(t, "drop_has_reason", v.Invariant)
}
