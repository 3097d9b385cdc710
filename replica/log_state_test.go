package replica

import (
	"testing"
	"vsrsim/replica/journal"
	"vsrsim/vsr/vsrtest"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A restart's unsure ops are kept ascending (unsureOp searches them).
func TestLogStateSetUnsure(t *testing.T) {
	var l logState
	l.setUnsure(0, []uint64{3, 5, 9})
	assert.Equal(t, []uint64{3, 5, 9}, l.unsureOps)
	v := vsrtest.ViolationOf(func() { l.setUnsure(0, []uint64{3, 3}) })
	require.NotNil(t, v)
	assert.Equal(t, "unsure_ops_ascending", v.Invariant)
}

// The journal's floor stands at most one above its head.
func TestLogStateCheckFires(t *testing.T) {
	l := logState{journal: journal.NewJournal(64, nil)}
	l.journalFloor = 40
	require.Nil(t, vsrtest.ViolationOf(func() { l.check(0) }), "an empty journal has no head to compare")
	l.journal.Head = 39
	require.Nil(t, vsrtest.ViolationOf(func() { l.check(0) }))
	l.journal.Head = 38
	v := vsrtest.ViolationOf(func() { l.check(0) })
	require.NotNil(t, v)
	assert.Equal(t, "journal_floor_le_head", v.Invariant)
}
