package sim

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"vsrsim/replica"
)

func sealed(op, parent uint64) replica.Header {
	h := replica.Header{Op: op, Parent: parent, Timestamp: op, Body: replica.Operation{Kind: replica.OpPut, Key: 1, Value: op}}
	h.Seal()
	return h
}

// damage breaks exactly what a checksum covers, in a copy of anything the
// message shares with its sender, and leaves alone (reporting false) every
// message whose damage only the link's checksum would catch.
func TestDamage(t *testing.T) {
	h1 := sealed(1, 7)
	h2 := sealed(2, h1.Checksum)
	suffix := []replica.SuffixEntry{{Header: h2, Present: true}, {Header: h1, Present: true}}
	snap := &replica.Snapshot{Op: 8}
	snap.State.KV[3] = 9
	snap.StateChecksum = snap.State.Checksum()

	for _, tc := range []struct {
		name    string
		msg     replica.Message
		damaged bool
		broken  func(m *replica.Message) bool
	}{
		{"prepare", replica.Message{Command: replica.CmdPrepare, Header: h1}, true,
			func(m *replica.Message) bool { return !m.Header.Valid() }},
		{"repair body", replica.Message{Command: replica.CmdRepairPrepare, Header: h2}, true,
			func(m *replica.Message) bool { return !m.Header.Valid() }},
		{"vote", replica.Message{Command: replica.CmdDoViewChange, Op: 2, Suffix: suffix}, true,
			func(m *replica.Message) bool { return !m.Suffix[0].Header.Valid() && m.Suffix[1].Header.Valid() }},
		{"start view", replica.Message{Command: replica.CmdStartView, Op: 2, Suffix: suffix}, true,
			func(m *replica.Message) bool { return !m.Suffix[0].Header.Valid() }},
		{"state chunk", replica.Message{Command: replica.CmdStateChunk, Snapshot: snap}, true,
			func(m *replica.Message) bool { return m.Snapshot.State.Checksum() != m.Snapshot.StateChecksum }},
		{"vote without a checked header", replica.Message{Command: replica.CmdDoViewChange,
			Suffix: []replica.SuffixEntry{{Header: replica.Header{Op: 3}, Nack: true}}}, false, nil},
		{"ack", replica.Message{Command: replica.CmdPrepareOK, Header: h1}, false, nil},
		{"request", replica.Message{Command: replica.CmdRequest, Body: h1.Body}, false, nil},
		{"heartbeat", replica.Message{Command: replica.CmdCommit, Commit: 4}, false, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m := tc.msg
			require.Equal(t, tc.damaged, damage(&m))
			if !tc.damaged {
				assert.Equal(t, tc.msg, m, "a message damage refuses must be left as it was")
				return
			}
			assert.True(t, tc.broken(&m), "the receiver's checksum would not see the damage")
		})
	}
	// The sender's suffix and snapshot are shared and must stay whole.
	assert.True(t, suffix[0].Header.Valid() && suffix[1].Header.Valid())
	assert.Equal(t, snap.StateChecksum, snap.State.Checksum())
}
