package sim

import (
	"testing"
	"vsrsim/vsr"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func sealed(op, parent uint64) vsr.Header {
	h := vsr.Header{Op: op, Parent: parent, Timestamp: op, Body: vsr.Operation{Kind: vsr.OpPut, Key: 1, Value: op}}
	h.Seal()
	return h
}

// damage breaks exactly what a checksum covers, in a copy of anything the
// message shares with its sender, and leaves alone (reporting false) every
// message whose damage only the link's checksum would catch.
func TestDamage(t *testing.T) {
	h1 := sealed(1, 7)
	h2 := sealed(2, h1.Checksum)
	suffix := []vsr.SuffixEntry{{Header: h2, Present: true}, {Header: h1, Present: true}}
	snap := &vsr.Snapshot{Op: 8}
	snap.State.KV[3] = 9
	snap.StateChecksum = snap.State.Checksum()

	for _, tc := range []struct {
		name    string
		msg     vsr.Message
		damaged bool
		broken  func(m *vsr.Message) bool
	}{
		{"prepare", vsr.Prepare{Header: h1}.Message().Routed(0, 1, 3), true,
			func(m *vsr.Message) bool { h := m.Prepare().Header; return !h.Valid() }},
		{"repair body", vsr.RepairPrepare{Header: h2}.Message().Routed(0, 1, 3), true,
			func(m *vsr.Message) bool { h := m.RepairPrepare().Header; return !h.Valid() }},
		{"vote", vsr.DoViewChange{Op: 2, Suffix: suffix}.Message().Routed(0, 1, 3), true,
			func(m *vsr.Message) bool {
				s := m.DoViewChange().Suffix
				return !s[0].Header.Valid() && s[1].Header.Valid()
			}},
		{"start view", vsr.StartView{Op: 2, Suffix: suffix}.Message().Routed(0, 1, 3), true,
			func(m *vsr.Message) bool { s := m.StartView().Suffix; return !s[0].Header.Valid() }},
		{"state chunk", vsr.StateChunk{Snapshot: snap}.Message().Routed(0, 1, 3), true,
			func(m *vsr.Message) bool {
				s := m.StateChunk().Snapshot
				return s.State.Checksum() != s.StateChecksum
			}},
		{"vote without a checked header", vsr.DoViewChange{
			Suffix: []vsr.SuffixEntry{{Header: vsr.Header{Op: 3}, Nack: true}}}.Message(), false, nil},
		{"ack", vsr.PrepareOk{Op: 1, Checksum: h1.Checksum, Parent: 7}.Message(), false, nil},
		{"request", vsr.Request{Body: h1.Body}.Message(), false, nil},
		{"heartbeat", vsr.Commit{Commit: 4}.Message(), false, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m := tc.msg
			require.Equal(t, tc.damaged, damage(&m))
			if !tc.damaged {
				assert.Equal(t, tc.msg, m, "a message damage refuses must be left as it was")
				return
			}
			assert.True(t, tc.broken(&m), "the receiver's checksum would not see the damage")
			assert.Equal(t, tc.msg.Envelope, m.Envelope, "damage keeps the envelope")
		})
	}
	// The sender's suffix and snapshot are shared and must stay whole.
	assert.True(t, suffix[0].Header.Valid() && suffix[1].Header.Valid())
	assert.Equal(t, snap.StateChecksum, snap.State.Checksum())
}
