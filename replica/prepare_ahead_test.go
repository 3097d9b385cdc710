package replica

import (
	"testing"
	"vsrsim/vsr"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestBackupRefusesAPrepareTooFarAhead: a backup journals no prepare more
// than a ring of slots above the op it applied last. Op 65's slot is op 1's,
// which this backup lacks and has yet to apply: journaled, op 65 would keep
// the repair of op 1 out of the ring, and where op 1 is held, push it off
// (source-2f1d-790476335.vsr: a backup at commit 3225 journaled prepares to
// 3418 and let committed ops it never applied go for good). Once op 1 comes
// and the backup applies up to its commit point, op 65 goes in.
func TestBackupRefusesAPrepareTooFarAhead(t *testing.T) {
	chain := boundedChain(65)
	opts := DefaultOptions(1, 3)
	opts.JournalSlots = 64
	r, err := New(opts, zeroJitter{})
	require.NoError(t, err)
	r.begin(&vsr.Output{})
	for op := 2; op <= 64; op++ {
		require.True(t, r.journalPut(chain[op], true))
	}
	r.wm.sequencer, r.wm.headSum = 64, chain[64].Checksum

	out := &vsr.Output{}
	r.Step(msg(vsr.Prepare{Header: chain[65]}, 0, 1, 0), out)
	assert.False(t, r.Journaled(65), "too far ahead of commit_min 0")
	var reasons []vsr.Reason
	for _, e := range out.Events {
		if e.Kind == vsr.EvDrop {
			reasons = append(reasons, e.Dropped().Reason)
		}
	}
	assert.Equal(t, []vsr.Reason{vsr.ReasonNoSlot}, reasons)

	r.Step(msg(vsr.RepairPrepare{Header: chain[1]}, 0, 1, 0), &vsr.Output{})
	require.Equal(t, chain[65].Commit, r.wm.commitMin, "op 1 came: applied up to the commit point")
	r.Step(msg(vsr.Prepare{Header: chain[65]}, 0, 1, 0), &vsr.Output{})
	assert.True(t, r.log.journal.Has(65, chain[65].Checksum), "within a ring of the op applied last")
}
