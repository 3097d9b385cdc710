package spec

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// installHolding is replica 2 holding op 2, which replica 0 applied, and
// then installing a state transfer at op 1 with commit point 2, applying
// nothing: the broken case of install_applies, unless the model learns that
// op 2's body may have left replica 2's journal.
func installHolding(t *testing.T, cfg Config, between func(tr *trace)) *Finding {
	tr := replicate(newTrace(t, cfg)).clock(0, false)
	tr.journal(0, 2, 0xb)
	tr.m.Applied(0, 0, 1, 0xa)
	tr.m.Applied(0, 0, 2, 0xb)
	tr.deliver(2, Message{Command: CmdPrepare, From: 1, View: 0, Op: 2, Checksum: 0xb})
	tr.journal(2, 2, 0xb)
	tr.end()
	between(tr)
	tr.clock(2, false)
	tr.m.Installed(2, 1, 2)
	tr.m.Settled(2, 1)
	tr.end()
	return tr.m.Failed()
}

// TestInstallAppliesOnlyWhatTheJournalStillHolds: a read of op 2 that came
// back without it may have given its body up with no event (readLost), so
// the install is not judged on it; journaled again, it is.
func TestInstallAppliesOnlyWhatTheJournalStillHolds(t *testing.T) {
	onDisk := Config{LeaveWindow: true, Relay: true, Disk: true, JournalSlots: 8}
	f := installHolding(t, onDisk, func(*trace) {})
	require.NotNil(t, f, "the op it holds committed is left unapplied")
	assert.Equal(t, RuleInstallApplies, f.Rule)

	assert.Nil(t, installHolding(t, onDisk, func(tr *trace) { tr.m.ReadFailed(2, 2) }),
		"a failed read of op 2: its body may have left the journal")

	f = installHolding(t, onDisk, func(tr *trace) {
		tr.m.ReadFailed(2, 2)
		tr.deliver(2, Message{Command: CmdPrepare, From: 1, View: 0, Op: 2, Checksum: 0xb})
		tr.journal(2, 2, 0xb)
	})
	require.NotNil(t, f, "journaled again after the failed read")
	assert.Equal(t, RuleInstallApplies, f.Rule)

	small := Config{LeaveWindow: true, Relay: true, JournalSlots: 2}
	assert.Nil(t, installHolding(t, small, func(tr *trace) { tr.m.Journaled(2, 4, 0xd) }),
		"op 4 took op 2's slot: the journal applies from its live ring only")
}
