package spec

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// installHolding is replica 2 holding op 2, which replica 0 applied, and
// then installing a state transfer at op 1 with commit point 2, applying
// nothing: the broken case of commit_walk, unless the model learns that
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
	assert.Equal(t, RuleCommitWalk, f.Rule)

	assert.Nil(t, installHolding(t, onDisk, func(tr *trace) { tr.m.ReadFailed(2, 2) }),
		"a failed read of op 2: its body may have left the journal")

	f = installHolding(t, onDisk, func(tr *trace) {
		tr.m.ReadFailed(2, 2)
		tr.deliver(2, Message{Command: CmdPrepare, From: 1, View: 0, Op: 2, Checksum: 0xb})
		tr.journal(2, 2, 0xb)
	})
	require.NotNil(t, f, "journaled again after the failed read")
	assert.Equal(t, RuleCommitWalk, f.Rule)

	small := Config{LeaveWindow: true, Relay: true, JournalSlots: 2}
	assert.Nil(t, installHolding(t, small, func(tr *trace) { tr.m.Journaled(2, 4, 0xd) }),
		"op 4 took op 2's slot: the journal applies from its live ring only")
}

// TestCommitWalkOnEveryCommitPointLearned: a Commit heartbeat of its view's
// primary and a StartView it adopts teach a backup a commit point as an
// install does; holding op 1 committed, it applies it in that step. A
// Commit it dropped, or one from a replica that is not the view's primary,
// teaches it nothing.
func TestCommitWalkOnEveryCommitPointLearned(t *testing.T) {
	heartbeat := Message{Command: CmdCommit, From: 0, View: 0, Commit: 1}
	for _, tc := range []struct {
		name  string
		build func(tr *trace)
		fails bool
	}{
		{"a heartbeat, op 1 left unapplied", func(tr *trace) { tr.deliver(2, heartbeat) }, true},
		{"a heartbeat, op 1 applied", func(tr *trace) {
			tr.deliver(2, heartbeat)
			tr.m.Applied(2, 0, 1, 0xa)
		}, false},
		{"a heartbeat dropped", func(tr *trace) {
			tr.deliver(2, heartbeat)
			tr.m.Refused(2)
		}, false},
		{"a Commit from a backup", func(tr *trace) {
			m := heartbeat
			m.From = 1
			tr.deliver(2, m)
		}, false},
		{"a StartView adopted, op 1 left unapplied", func(tr *trace) {
			sv := startView(1, 2)
			sv.From, sv.Commit = 1, 1
			tr.deliver(2, sv)
			tr.m.Status(2, StatusNormal, 1, 1)
		}, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tr := replicate(newTrace(t, Config{LeaveWindow: true, Relay: true}))
			tr.m.Applied(0, 0, 1, 0xa)
			tc.build(tr)
			tr.end()
			f := tr.m.Failed()
			if !tc.fails {
				assert.Nil(t, f)
				return
			}
			require.NotNil(t, f)
			assert.Equal(t, RuleCommitWalk, f.Rule)
			assert.Equal(t, uint64(1), f.Op)
		})
	}
}

// TestCommitWalkGoesOnInItsView: a backup that learned commit point 2 from a
// heartbeat while holding op 1 only walks on to op 2 in the step that brings
// it (a Prepare, a repair), without another heartbeat; once it leaves the
// view, what it learned there no longer binds it.
func TestCommitWalkGoesOnInItsView(t *testing.T) {
	learn := func(t *testing.T) *trace {
		tr := replicate(newTrace(t, Config{LeaveWindow: true, Relay: true}))
		tr.m.Applied(0, 0, 1, 0xa)
		tr.m.Applied(0, 0, 2, 0xb)
		tr.deliver(2, Message{Command: CmdCommit, From: 0, View: 0, Commit: 2})
		tr.m.Applied(2, 0, 1, 0xa)
		return tr
	}
	bring := func(tr *trace) {
		tr.deliver(2, Message{Command: CmdPrepare, From: 1, View: 0, Op: 2, Checksum: 0xb})
		tr.journal(2, 2, 0xb)
	}

	tr := learn(t)
	bring(tr)
	tr.end()
	f := tr.m.Failed()
	require.NotNil(t, f, "op 2 arrives and is left unapplied")
	assert.Equal(t, RuleCommitWalk, f.Rule)

	tr = learn(t)
	bring(tr)
	tr.m.Applied(2, 0, 2, 0xb)
	tr.end()
	assert.Nil(t, tr.m.Failed(), "applied in the step that brought it")

	tr = learn(t)
	tr.deliver(2, Message{Command: CmdStartViewChange, From: 1, View: 1})
	tr.m.Status(2, StatusViewChange, 1, 0)
	tr.deliver(2, Message{Command: CmdPrepare, From: 1, View: 0, Op: 2, Checksum: 0xb})
	tr.m.Journaled(2, 2, 0xb)
	tr.end()
	assert.Nil(t, tr.m.Failed(), "no longer Normal in the view it learned in")
}
