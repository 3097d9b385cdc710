package vsr

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// violation runs f and returns the Violation it panicked with.
func violation(t *testing.T, f func()) (v Violation) {
	t.Helper()
	defer func() {
		var ok bool
		v, ok = recover().(Violation)
		require.True(t, ok, "the panic value is a Violation")
	}()
	f()
	t.Fatal("the assertion did not fire")
	return v
}

// TestAssertViolation: a failed assertion panics with a Violation naming the
// invariant, and its text carries the numbers the assertion recorded.
func TestAssertViolation(t *testing.T) {
	require.NotPanics(t, func() { Assert(1, true, "fine", "%d", 3) })
	v := violation(t, func() {
		Assert(2, false, "commit_min_le_commit_max", "commit_min=%d commit_max=%d", 5, 4)
	})
	assert.Equal(t, 2, v.Replica)
	assert.Equal(t, "commit_min_le_commit_max", v.Invariant)
	assert.Equal(t, "replica 2 assertion commit_min_le_commit_max: commit_min=5 commit_max=4", v.Error())
}

// TestAssertReportsWhole: an assertion that would lose its name or numbers
// is reported as such, never as a report missing what it should say.
func TestAssertReportsWhole(t *testing.T) {
	for name, f := range map[string]func(){
		"unnamed":      func() { Assert(0, false, "", DetailHolds) },
		"five numbers": func() { Assert(0, false, "x", DetailHolds, 1, 2, 3, 4, 5) },
	} {
		v := violation(t, f)
		assert.Equal(t, "invariant_reports_whole", v.Invariant, name)
	}
	v := violation(t, func() { Assert(Unowned, false, "x", DetailHolds, 1, 2, 3, 4, 5) })
	assert.Equal(t, "replica -1 assertion invariant_reports_whole: an assertion named 1 characters records 5 values", v.Error())
}
