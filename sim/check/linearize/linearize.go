// Package linearize checks a client history for linearizability against the
// oracle's own model of the key-value service. It is part of the oracle: it
// reads only the oracle's record (check.HistoryOp) and imports nothing of the
// replica. Its search (Search) is its own, single-threaded and counted in
// steps, so a history gets the same answer on any machine; porcupine's form of
// the model (Model, Operations) remains for porcupine's visualisation of a
// history and for the test that holds the two searches to the same answers.
package linearize

import (
	"fmt"
	"math"

	"github.com/anishathalye/porcupine"

	"vsrsim/sim/check"
)

// Words for Result.Linearizability.
const (
	Linearizable    = "linearizable"
	NotLinearizable = "not linearizable"
	Unknown         = "unknown"
)

// Model is the key-value service the clients were promised: put returns the
// previous value, get the current one, incr adds and returns the new value.
// Keys are independent, so the history is partitioned per key.
var Model = porcupine.Model{
	Partition: partition,
	Init:      func() interface{} { return uint64(0) },
	Step: func(state, input, output interface{}) (bool, interface{}) {
		v := state.(uint64)
		in := input.(*check.Op)
		next := v
		var result uint64
		switch in.Kind {
		case check.OpPut:
			next, result = in.Value, v
		case check.OpGet:
			if output == nil || *output.(*uint64) == v {
				return true, state // unchanged: no new box for the search to keep
			}
			result = v
		case check.OpIncr:
			next = v + in.Value
			result = next
		default:
			return true, v
		}
		if output == nil {
			return true, next // never answered: it may or may not have happened
		}
		return *output.(*uint64) == result, next
	},
	DescribeOperation: func(input, output interface{}) string {
		var out interface{} // nil, never answered, prints as such
		if output != nil {
			out = *output.(*uint64)
		}
		return fmt.Sprintf("%s -> %v", *input.(*check.Op), out)
	},
}

// partition splits a history per key, in key order, each part in history
// order. The parts share one array, counted out first: growing a slice per key
// made most of the check's garbage.
func partition(history []porcupine.Operation) [][]porcupine.Operation {
	var count []int
	for _, op := range history {
		k := op.Input.(*check.Op).Key
		for uint32(len(count)) <= k {
			count = append(count, 0)
		}
		count[k]++
	}
	all := make([]porcupine.Operation, len(history))
	parts := make([][]porcupine.Operation, 0, len(count))
	start := make([]int, len(count))
	at := 0
	for k, n := range count {
		start[k] = at
		if n > 0 {
			parts = append(parts, all[at:at+n:at+n])
		}
		at += n
	}
	for _, op := range history {
		k := op.Input.(*check.Op).Key
		all[start[k]] = op
		start[k]++
	}
	return parts
}

// Operations converts a history into porcupine's form. An operation's input
// is a *check.Op and its output a *uint64 (nil if it never returned), both
// into arrays made once: a value put in an interface is a heap box of its
// own, two a history operation, which made a third of a sweep's allocations.
func Operations(history []check.HistoryOp) []porcupine.Operation {
	ops := make([]porcupine.Operation, 0, len(history))
	inputs := make([]check.Op, len(history))
	outputs := make([]uint64, len(history))
	for i, h := range history {
		inputs[i] = h.Input
		op := porcupine.Operation{ClientId: h.Client, Input: &inputs[i], Call: int64(h.Call)}
		if h.Returned {
			outputs[i] = h.Output
			op.Output = &outputs[i]
			op.Return = int64(h.Return)
		} else {
			op.Return = math.MaxInt64
		}
		ops = append(ops, op)
	}
	return ops
}

// Check checks a whole client history within StepBudget. Operations that
// never returned may take effect at any time after their call, or never. It
// returns one of Linearizable, NotLinearizable or Unknown, and a line of
// detail.
func Check(history []check.HistoryOp) (string, string) {
	out := Search(history, StepBudget)
	return out.Verdict, out.Detail
}
