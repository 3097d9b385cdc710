package replica

import (
	"testing"
	"vsrsim/vsr"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestNoAckAboveHeaderOnlyOp: a backup that holds an op above its commit
// point only as a header acks nothing above it (a merge would read the
// header-only op as refuted by this voter, though its ack above vouched for
// it: swarm seed 3303), and acks once the body is journaled.
func TestNoAckAboveHeaderOnlyOp(t *testing.T) {
	chain := boundedChain(3)
	for _, tc := range []struct {
		name    string
		bodies  []uint64 // ops journaled before the ack of op 3
		commit  uint64
		wantAck bool
	}{
		{"every op below journaled", []uint64{1, 2, 3}, 0, true},
		{"op 2 header-only", []uint64{1, 3}, 0, false},
		{"op 2 header-only but committed", []uint64{1, 3}, 2, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r, err := New(DefaultOptions(1, 3), zeroJitter{})
			require.NoError(t, err)
			var out vsr.Output
			r.begin(&out)
			for _, op := range tc.bodies {
				require.True(t, r.journalPut(chain[op], true))
			}
			r.wm.commitMax = tc.commit
			r.ack(chain[3])
			acked := false
			for _, m := range out.Messages {
				acked = acked || (m.Command == vsr.CmdPrepareOK && m.PrepareOk().Op == 3)
			}
			assert.Equal(t, tc.wantAck, acked)
		})
	}
}
