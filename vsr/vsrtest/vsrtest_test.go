package vsrtest

import (
	"testing"

	"vsrsim/vsr"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// ViolationOf returns the failed assertion, nil when none failed, and lets
// any other panic go on.
func TestViolationOf(t *testing.T) {
	assert.Nil(t, ViolationOf(func() { vsr.Assert(0, true, "fine", vsr.DetailHolds) }))
	v := ViolationOf(func() { vsr.Assert(2, false, "broken", vsr.DetailHolds) })
	require.NotNil(t, v)
	assert.Equal(t, "broken", v.Invariant)
	assert.Equal(t, 2, v.Replica)
	assert.PanicsWithValue(t, "other", func() { ViolationOf(func() { panic("other") }) })
}
