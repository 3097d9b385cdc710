package vsr

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
	prepare := Prepare{Header: Header{Op: 7, Commit: 6, Checksum: 0xabcd0000_00001234, Client: 4}}.Message().Routed(0, 1, 2)
	header := func(edit func(h *Header)) func(m *Message) {
		return func(m *Message) {
			p := m.Prepare()
			edit(&p.Header)
			*m = p.Message().Routed(m.From, m.To, m.View)
		}
	}
	for _, tc := range []struct {
		name       string
		edit       func(m *Message)
		hash, text bool // whether the binary form, the text changes
	}{
		{"view", func(m *Message) { m.View++ }, true, true},
		{"op", header(func(h *Header) { h.Op++ }), true, true},
		{"checksum high bits", header(func(h *Header) { h.Checksum ^= 1 << 60 }), true, false},
		{"receiver", func(m *Message) { m.To = 2 }, true, true},
		{"command", func(m *Message) {
			*m = RepairPrepare{Header: m.Prepare().Header}.Message().Routed(m.From, m.To, m.View)
		}, true, true},
		{"client, not shown", header(func(h *Header) { h.Client++ }), false, false},
		{"parent, not shown", header(func(h *Header) { h.Parent = 9 }), false, false},
	} {
		m := prepare
		tc.edit(&m)
		assert.Equal(t, tc.hash, messageHash(&m) != messageHash(&prepare), "hash: %s", tc.name)
		assert.Equal(t, tc.text, string(AppendMessage(nil, &m, 3)) != string(AppendMessage(nil, &prepare, 3)), "text: %s", tc.name)
	}
	drop := Dropped{Command: CmdPrepare, From: 0, Op: 5, Reason: ReasonGap, Detail: 3}
	for _, tc := range []struct {
		name    string
		edit    func(d *Dropped)
		changes bool
	}{
		{"reason", func(d *Dropped) { d.Reason = ReasonOldOp }, true},
		{"longer reason", func(d *Dropped) { d.Reason = ReasonStartViewUnreadable }, true},
		{"peer", func(d *Dropped) { d.From = 2 }, true},
		{"aux", func(d *Dropped) { d.Detail++ }, true},
		{"view, not shown", func(d *Dropped) { d.View++ }, false},
	} {
		d := drop
		tc.edit(&d)
		e, base := d.Event(), drop.Event()
		assert.Equal(t, tc.changes, eventHash(&e) != eventHash(&base), tc.name)
	}
}

// TestLineTextIsCanonical pins the text form, which trace files and failure
// tails show and which no longer reaches the hash.
func TestLineTextIsCanonical(t *testing.T) {
	text := func(m Message) string { return string(AppendMessage(nil, &m, 3)) }
	for _, tc := range []struct {
		got, want string
	}{
		{text(Prepare{Header: Header{Op: 7, Commit: 6, Checksum: 0xabcd0000_00001234}}.Message().Routed(0, 1, 2)),
			"r0->r1 Prepare v=2 op=7 commit=6 csum=1234"},
		{text(Request{Request: 4, Body: Operation{Kind: OpIncr, Key: 5, Value: 6}}.Message().Routed(3, 0, 0)),
			"c0->r0 Request v=0 req=4 incr(5,6)"},
		{text(Commit{Commit: 9, Heartbeat: 3, Abdicated: true}.Message().Routed(1, 2, 1)),
			"r1->r2 Commit v=1 commit=9 hb=3 abdicated"},
		{eventText(1, Dropped{Command: CmdPrepare, From: 0, Op: 5, Reason: ReasonGap, Detail: 3}.Event()),
			"r1 drop Prepare from=0 op=5 reason=gap aux=3"},
		{eventText(2, StatusChanged{Status: StatusViewChange, View: 4, LogView: 3, Op: 10, Commit: 8}.Event()),
			"r2 status view_change v=4 log_view=3 op=10 commit=8"},
	} {
		assert.Equal(t, tc.want, tc.got)
	}
}

func eventText(replica int, e Event) string {
	e.Replica = replica
	return string(AppendEvent(nil, &e))
}
