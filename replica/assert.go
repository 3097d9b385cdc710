package replica

import "vsrsim/vsr"

// The replica's one assertion. An assertion turns a correctness bug into a
// crash the simulator reports by the invariant's name (the panic value is a
// Violation), so a run never carries on from a state the protocol forbids.
// Assertions are always on: a passing one costs a compare and a branch, and
// formats nothing.
//
// The gate's ignore predicates are not assertions: a message they refuse is a
// fault of the network or a peer, dropped with a reason; a handler then asserts
// what its predicate guaranteed, and a failure there is the replica's bug.

// Details of a Violation whose assertion names no numbers.
const (
	detailHolds   = "does not hold"
	detailGate    = "the gate let a message through that it refuses"
	detailStorage = "journal storage"
)

// unowned stands for the replica in an assertion of code that knows none (the
// journal, a ring, a payload); the harness still reports the invariant by name.
const unowned = vsr.Unowned

// invariant panics with a Violation of the invariant name at replica
// (unowned: -1) unless ok (Assert, the vocabulary's one assertion).
func invariant(replica int, ok bool, name, detail string, values ...uint64) {
	vsr.Assert(replica, ok, name, detail, values...)
}
