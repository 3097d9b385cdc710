// Package vsrtest holds test helpers for the vocabulary: tests of every
// package that asserts through vsr.Assert read the invariant a broken rule
// names through it.
package vsrtest

import "vsrsim/vsr"

// ViolationOf runs f and returns the Violation a failed assertion in it
// panicked with, or nil if none failed; any other panic goes on. Tests that
// break a rule on purpose read the invariant it names.
func ViolationOf(f func()) (v *vsr.Violation) {
	defer func() {
		if p := recover(); p != nil {
			got, ok := p.(vsr.Violation)
			if !ok {
				panic(p)
			}
			v = &got
		}
	}()
	f()
	return nil
}
