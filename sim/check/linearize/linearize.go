// Package linearize checks a client history for linearizability with
// porcupine, against the oracle's own model of the key-value service. It is
// part of the oracle: it reads only the oracle's record (check.HistoryOp) and
// imports nothing of the replica. porcupine searches partitions on
// goroutines, so it runs after a single-threaded run is over, never inside
// one.
package linearize

import (
	"fmt"
	"math"
	"time"

	"github.com/anishathalye/porcupine"

	"vsrsim/sim/check"
)

// Budgets. The whole history is checked, split per key; a key with more than
// partitionOpsMax operations, or a search that runs past searchTimeout, leaves
// the verdict to the other checkers and says so in Result.Linearizability. The
// first bound is deterministic; the second is the one place a wall clock can
// touch a report, and only to say "unknown", never to fail or pass a run.
const (
	partitionOpsMax = 200_000
	searchTimeout   = 2 * time.Minute
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

// Check checks a whole client history. Operations that never returned may
// take effect at any time after their call, or never. It returns one of
// Linearizable, NotLinearizable or Unknown, and a line of detail.
func Check(history []check.HistoryOp) (string, string) {
	if key, n := overBudget(history); n > 0 {
		return Unknown, fmt.Sprintf("not checked: key %d has %d operations, over the budget of %d",
			key, n, partitionOpsMax)
	}
	ops := Operations(history)
	switch porcupine.CheckOperationsTimeout(Model, ops, searchTimeout) {
	case porcupine.Ok:
		return Linearizable, ""
	case porcupine.Illegal:
		return NotLinearizable, fmt.Sprintf("client history of %d operations is not linearizable (porcupine)", len(ops))
	}
	return Unknown, fmt.Sprintf("search over %d operations did not finish within %s", len(ops), searchTimeout)
}

// overBudget returns the lowest key with more than partitionOpsMax
// operations, and how many it has (0 if none has): the partition the budget
// refuses first, counted without building the partitions.
func overBudget(history []check.HistoryOp) (uint32, int) {
	var count []int
	for _, h := range history {
		k := h.Input.Key
		for uint32(len(count)) <= k {
			count = append(count, 0)
		}
		count[k]++
	}
	for k, n := range count {
		if n > partitionOpsMax {
			return uint32(k), n
		}
	}
	return 0, 0
}
