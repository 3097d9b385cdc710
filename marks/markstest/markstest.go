// Package markstest lets a test assert that a run took the protocol branch it
// exists for: a scenario that no longer reaches its mark tests nothing.
package markstest

import (
	"testing"

	"vsrsim/marks"
)

// AssertReached fails t, naming each missing mark, unless every mark in want
// was hit at least once. It reports whether all were.
func AssertReached(t testing.TB, got *marks.Counts, want ...marks.Mark) bool {
	t.Helper()
	ok := true
	for _, m := range want {
		if !got.Reached(m) {
			t.Errorf("mark %s was not reached (reached: %v)", m, got.Map())
			ok = false
		}
	}
	return ok
}
