package replica

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func messageHash(m *Message) uint64 {
	var l Line
	l.Message(m, 3)
	return l.H
}

func eventHash(e *Event) uint64 {
	var l Line
	l.Event(e)
	return l.H
}

// TestLineBinaryCoversTheText: the binary form of a line, which the trace
// hash covers, changes with every field its text shows (a checksum beyond the
// 4 hex digits the text keeps, too) and with nothing the text leaves out.
func TestLineBinaryCoversTheText(t *testing.T) {
	prepare := Message{Command: CmdPrepare, From: 0, To: 1, View: 2,
		Header: Header{Op: 7, Commit: 6, Checksum: 0xabcd0000_00001234, Client: 4}}
	for _, tc := range []struct {
		name       string
		edit       func(m *Message)
		hash, text bool // whether the binary form, the text changes
	}{
		{"view", func(m *Message) { m.View++ }, true, true},
		{"op", func(m *Message) { m.Header.Op++ }, true, true},
		{"checksum high bits", func(m *Message) { m.Header.Checksum ^= 1 << 60 }, true, false},
		{"receiver", func(m *Message) { m.To = 2 }, true, true},
		{"command", func(m *Message) { m.Command = CmdRepairPrepare }, true, true},
		{"client, not shown", func(m *Message) { m.Header.Client++ }, false, false},
		{"nonce, not shown", func(m *Message) { m.Nonce = 9 }, false, false},
	} {
		m := prepare
		tc.edit(&m)
		assert.Equal(t, tc.hash, messageHash(&m) != messageHash(&prepare), "hash: %s", tc.name)
		assert.Equal(t, tc.text, string(AppendMessage(nil, &m, 3)) != string(AppendMessage(nil, &prepare, 3)), "text: %s", tc.name)
	}
	drop := Event{Kind: EvDrop, Replica: 1, Command: CmdPrepare, Peer: 0, Op: 5, Reason: ReasonGap, aux: 3}
	for _, tc := range []struct {
		name    string
		edit    func(e *Event)
		changes bool
	}{
		{"reason", func(e *Event) { e.Reason = ReasonOldOp }, true},
		{"longer reason", func(e *Event) { e.Reason = ReasonStartViewUnreadable }, true},
		{"peer", func(e *Event) { e.Peer = 2 }, true},
		{"aux", func(e *Event) { e.aux++ }, true},
		{"view, not shown", func(e *Event) { e.View++ }, false},
	} {
		e := drop
		tc.edit(&e)
		assert.Equal(t, tc.changes, eventHash(&e) != eventHash(&drop), tc.name)
	}
}

// TestLineTextIsCanonical pins the text form, which trace files and failure
// tails show and which no longer reaches the hash.
func TestLineTextIsCanonical(t *testing.T) {
	for _, tc := range []struct {
		got, want string
	}{
		{string(AppendMessage(nil, &Message{Command: CmdPrepare, From: 0, To: 1, View: 2,
			Header: Header{Op: 7, Commit: 6, Checksum: 0xabcd0000_00001234}}, 3)),
			"r0->r1 Prepare v=2 op=7 commit=6 csum=1234"},
		{string(AppendMessage(nil, &Message{Command: CmdRequest, From: 3, To: 0, Request: 4,
			Body: Operation{Kind: OpIncr, Key: 5, Value: 6}}, 3)),
			"c0->r0 Request v=0 req=4 incr(5,6)"},
		{string(AppendMessage(nil, &Message{Command: CmdCommit, From: 1, To: 2, View: 1, Commit: 9, Heartbeat: 3, Abdicated: true}, 3)),
			"r1->r2 Commit v=1 commit=9 hb=3 abdicated"},
		{string(AppendEvent(nil, &Event{Kind: EvDrop, Replica: 1, Command: CmdPrepare, Peer: 0, Op: 5, Reason: ReasonGap, aux: 3})),
			"r1 drop Prepare from=0 op=5 reason=gap aux=3"},
		{string(AppendEvent(nil, &Event{Kind: EvStatus, Replica: 2, Status: StatusViewChange, View: 4, LogView: 3, Op: 10, Commit: 8})),
			"r2 status view_change v=4 log_view=3 op=10 commit=8"},
	} {
		assert.Equal(t, tc.want, tc.got)
	}
}
