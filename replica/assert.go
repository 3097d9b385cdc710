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

// violationValues is the most numbers a Violation records (vsr's bound):
// an assertion that names more would lose the rest.
const violationValues = 4

// invariant panics with a Violation of the invariant name at replica
// (unowned: -1) unless ok (Assert, the vocabulary's one assertion).
func invariant(replica int, ok bool, name, detail string, values ...uint64) {
	if !ok {
		violated(replica, name, detail, values)
	}
}

// violated reports a failed assertion, the cold path kept out of line so a
// passing assertion still costs a compare and a branch. The report itself
// must be whole: a failure is read by its name and its numbers.
func violated(replica int, name, detail string, values []uint64) {
	invariant(replica, name != "" && len(values) <= violationValues, "invariant_reports_whole",
		"an assertion named %d characters records %d values", uint64(len(name)), uint64(len(values)))
	vsr.Assert(replica, false, name, detail, values...)
}
