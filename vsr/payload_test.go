package vsr

import (
	"math"
	"testing"
	"unsafe"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// full is a header with every field set to a value that uses its top bits,
// so a word packed into the wrong place or truncated shows.
var full = Header{Op: math.MaxUint64 - 1, View: 1 << 63, Parent: 3, Checksum: math.MaxUint64, Commit: 5,
	Client: 6, Request: 7, Timestamp: 8, Body: Operation{Kind: OpIncr, Key: math.MaxUint32, Value: math.MaxUint64}}

// TestPayloadRoundTrip: every command's payload comes back from its message
// exactly as it went in, and the message carries the command it names.
func TestPayloadRoundTrip(t *testing.T) {
	suffix := []SuffixEntry{{Header: full, Present: true}, {Header: Header{Op: 2}, Nack: true}}
	snap := &Snapshot{Op: 9}
	top := uint64(math.MaxUint64)
	for _, tc := range []struct {
		cmd  Command
		msg  Message
		back func(m *Message) any
		want any
	}{
		{CmdRequest, Request{Client: top, Request: top - 1, Body: full.Body}.Message(),
			func(m *Message) any { return m.Request() }, Request{Client: top, Request: top - 1, Body: full.Body}},
		{CmdReply, Reply{Client: 1, Request: 2, Op: top, Result: top - 3}.Message(),
			func(m *Message) any { return m.Reply() }, Reply{Client: 1, Request: 2, Op: top, Result: top - 3}},
		{CmdPrepare, Prepare{Header: full}.Message(),
			func(m *Message) any { return m.Prepare() }, Prepare{Header: full}},
		{CmdPrepareOK, PrepareOk{Op: top, Checksum: 2, Parent: 3, Incarnation: top}.Message(),
			func(m *Message) any { return m.PrepareOk() }, PrepareOk{Op: top, Checksum: 2, Parent: 3, Incarnation: top}},
		{CmdCommit, Commit{Commit: top, Heartbeat: 4, Abdicated: true}.Message(),
			func(m *Message) any { return m.Commit() }, Commit{Commit: top, Heartbeat: 4, Abdicated: true}},
		{CmdCommitOK, CommitOk{Commit: 1, Checksum: top, Incarnation: 3}.Message(),
			func(m *Message) any { return m.CommitOk() }, CommitOk{Commit: 1, Checksum: top, Incarnation: 3}},
		{CmdStartViewChange, StartViewChange{Leave: true}.Message(),
			func(m *Message) any { return m.StartViewChange() }, StartViewChange{Leave: true}},
		{CmdDoViewChange, DoViewChange{LogView: 1, Op: top, Commit: 3, Suffix: suffix}.Message(),
			func(m *Message) any { return m.DoViewChange() }, DoViewChange{LogView: 1, Op: top, Commit: 3, Suffix: suffix}},
		{CmdStartView, StartView{LogView: 1, Op: 2, Commit: 3, Suffix: suffix, Nonce: top}.Message(),
			func(m *Message) any { return m.StartView() }, StartView{LogView: 1, Op: 2, Commit: 3, Suffix: suffix, Nonce: top}},
		{CmdRequestStartView, RequestStartView{Incarnation: top, Nonce: 2}.Message(),
			func(m *Message) any { return m.RequestStartView() }, RequestStartView{Incarnation: top, Nonce: 2}},
		{CmdRequestPrepares, RequestPrepares{From: 1, To: top}.Message(),
			func(m *Message) any { return m.RequestPrepares() }, RequestPrepares{From: 1, To: top}},
		{CmdRepairPrepare, RepairPrepare{Header: full, Commit: top}.Message(),
			func(m *Message) any { return m.RepairPrepare() }, RepairPrepare{Header: full, Commit: top}},
		{CmdRepairDone, RepairDone{Last: top}.Message(),
			func(m *Message) any { return m.RepairDone() }, RepairDone{Last: top}},
		{CmdRangeEvicted, RangeEvicted{First: top}.Message(),
			func(m *Message) any { return m.RangeEvicted() }, RangeEvicted{First: top}},
		{CmdRequestStateTransfer, RequestStateTransfer{}.Message(),
			func(m *Message) any { return m.RequestStateTransfer() }, RequestStateTransfer{}},
		{CmdStateTransferOffer, StateTransferOffer{SnapshotOp: top}.Message(),
			func(m *Message) any { return m.StateTransferOffer() }, StateTransferOffer{SnapshotOp: top}},
		{CmdRequestStateChunk, RequestStateChunk{SnapshotOp: top, Chunk: SnapshotChunks - 1}.Message(),
			func(m *Message) any { return m.RequestStateChunk() }, RequestStateChunk{SnapshotOp: top, Chunk: SnapshotChunks - 1}},
		{CmdStateChunk, StateChunk{SnapshotOp: top, Chunk: -1, Snapshot: snap}.Message(),
			func(m *Message) any { return m.StateChunk() }, StateChunk{SnapshotOp: top, Chunk: -1, Snapshot: snap}},
	} {
		t.Run(tc.cmd.String(), func(t *testing.T) {
			m := tc.msg.Routed(1, 2, 3)
			require.Equal(t, tc.cmd, m.Command)
			assert.Equal(t, Envelope{Command: tc.cmd, From: 1, To: 2, View: 3}, m.Envelope)
			assert.Equal(t, tc.want, tc.back(&m))
		})
	}
}

// TestPayloadCoversEveryCommand: the round trip above names every command.
func TestPayloadCoversEveryCommand(t *testing.T) {
	for c := CmdRequest; c <= CmdCommitOK; c++ {
		assert.NotContains(t, c.String(), "Command(", "command %d has no name, so no payload", c)
	}
	assert.Equal(t, "Command(19)", (CmdCommitOK + 1).String(), "a new command needs a payload and a round-trip case")
}

// TestPayloadAccessorChecksCommand: reading one command's payload from
// another command's message is a caller bug, and panics; reading its own
// does not.
func TestPayloadAccessorChecksCommand(t *testing.T) {
	read := map[Command]func(m *Message){
		CmdRequest:              func(m *Message) { m.Request() },
		CmdReply:                func(m *Message) { m.Reply() },
		CmdPrepare:              func(m *Message) { m.Prepare() },
		CmdPrepareOK:            func(m *Message) { m.PrepareOk() },
		CmdCommit:               func(m *Message) { m.Commit() },
		CmdStartViewChange:      func(m *Message) { m.StartViewChange() },
		CmdDoViewChange:         func(m *Message) { m.DoViewChange() },
		CmdStartView:            func(m *Message) { m.StartView() },
		CmdRequestStartView:     func(m *Message) { m.RequestStartView() },
		CmdRequestPrepares:      func(m *Message) { m.RequestPrepares() },
		CmdRepairPrepare:        func(m *Message) { m.RepairPrepare() },
		CmdRepairDone:           func(m *Message) { m.RepairDone() },
		CmdRangeEvicted:         func(m *Message) { m.RangeEvicted() },
		CmdRequestStateTransfer: func(m *Message) { m.RequestStateTransfer() },
		CmdStateTransferOffer:   func(m *Message) { m.StateTransferOffer() },
		CmdRequestStateChunk:    func(m *Message) { m.RequestStateChunk() },
		CmdStateChunk:           func(m *Message) { m.StateChunk() },
		CmdCommitOK:             func(m *Message) { m.CommitOk() },
	}
	require.Len(t, read, int(CmdCommitOK), "an accessor per command")
	for c := CmdRequest; c <= CmdCommitOK; c++ {
		m := Message{Envelope: Envelope{Command: c}}
		for a := CmdRequest; a <= CmdCommitOK; a++ {
			if a == c {
				assert.NotPanics(t, func() { read[a](&m) }, "%s read from its own message", a)
			} else {
				assert.Panics(t, func() { read[a](&m) }, "%s read from a %s", a, c)
			}
		}
	}
}

// TestMessageSize: messages travel by value through the network's pool, so
// the envelope and the largest payload bound what every send copies. The
// flat message the payloads replaced was 272 bytes on 64-bit platforms.
func TestMessageSize(t *testing.T) {
	if unsafe.Sizeof(uintptr(0)) != 8 {
		t.Skip("sizes are pinned for 64-bit platforms")
	}
	assert.Equal(t, uintptr(152), unsafe.Sizeof(Message{}))
}

// TestDropOpMatchesTheCarriedOp: a drop event names the op its message
// carries, acknowledges, or starts at; a header without a checksum names none.
func TestDropOpMatchesTheCarriedOp(t *testing.T) {
	for _, tc := range []struct {
		msg  Message
		want uint64
	}{
		{Prepare{Header: Header{Op: 4, Checksum: 1}}.Message(), 4},
		{Prepare{Header: Header{Op: 4}}.Message(), 0},
		{RepairPrepare{Header: Header{Op: 5, Checksum: 1}, Commit: 9}.Message(), 5},
		{PrepareOk{Op: 6, Checksum: 1}.Message(), 6},
		{CommitOk{Commit: 7, Checksum: 1}.Message(), 7},
		{CommitOk{Commit: 7}.Message(), 0},
		{Reply{Op: 8}.Message(), 8},
		{DoViewChange{Op: 9, Commit: 2}.Message(), 9},
		{StartView{Op: 10, Commit: 2}.Message(), 10},
		{RequestPrepares{From: 11, To: 12}.Message(), 11},
		{RepairDone{Last: 13}.Message(), 13},
		{RangeEvicted{First: 14}.Message(), 14},
		{Commit{Commit: 15}.Message(), 0},
		{StateTransferOffer{SnapshotOp: 16}.Message(), 0},
		{Request{Client: 3, Request: 17}.Message(), 0},
	} {
		assert.Equal(t, tc.want, tc.msg.DropOp(), tc.msg.Command.String())
	}
}
