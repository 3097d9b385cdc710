package replica

import (
	"testing"
	"vsrsim/vsr"

	"github.com/stretchr/testify/require"
)

// TestInvariantViolation: a failed assertion panics with a Violation naming the
// invariant, and its text carries the numbers the assertion recorded.
func TestInvariantViolation(t *testing.T) {
	require.NotPanics(t, func() { invariant(1, true, "fine", "%d", 3) })
	defer func() {
		v, ok := recover().(vsr.Violation)
		require.True(t, ok)
		require.Equal(t, 2, v.Replica)
		require.Equal(t, "commit_min_le_commit_max", v.Invariant)
		require.Equal(t, "replica 2 assertion commit_min_le_commit_max: commit_min=5 commit_max=4", v.Error())
	}()
	invariant(2, false, "commit_min_le_commit_max", "commit_min=%d commit_max=%d", 5, 4)
}
