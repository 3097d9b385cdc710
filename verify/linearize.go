// Package verify runs a simulation and then checks its client history for
// linearizability with porcupine. It sits outside sim because porcupine checks
// partitions in parallel goroutines: the check runs after the single-threaded
// run is over, on a finished history, and its answer does not depend on
// scheduling.
package verify

import (
	"fmt"
	"io"
	"math"

	"github.com/anishathalye/porcupine"

	"vsrsim/replica"
	"vsrsim/sim"
	"vsrsim/sim/check"
)

// historyOpsMax bounds the history handed to porcupine; a longer one is checked
// on its first historyOpsMax operations only (the search is exponential in the
// worst case, and a run's verdict must not hang).
const historyOpsMax = 20000

// kvModel is the state machine of replica.StateMachine seen by clients: a put
// returns the previous value, a get the current one. Keys are independent, so
// the history is partitioned per key.
var kvModel = porcupine.Model{
	Partition: func(history []porcupine.Operation) [][]porcupine.Operation {
		byKey := make([][]porcupine.Operation, replica.KeySpace)
		for _, op := range history {
			k := op.Input.(replica.Operation).Key % replica.KeySpace
			byKey[k] = append(byKey[k], op)
		}
		out := make([][]porcupine.Operation, 0, len(byKey))
		for _, ops := range byKey {
			if len(ops) > 0 {
				out = append(out, ops)
			}
		}
		return out
	},
	Init: func() interface{} { return uint64(0) },
	Step: func(state, input, output interface{}) (bool, interface{}) {
		v := state.(uint64)
		in := input.(replica.Operation)
		switch in.Kind {
		case replica.OpPut:
			if output == nil {
				return true, in.Value // never answered: it may or may not have happened
			}
			return output.(uint64) == v, in.Value
		case replica.OpGet:
			if output == nil {
				return true, v
			}
			return output.(uint64) == v, v
		}
		return true, v
	},
	DescribeOperation: func(input, output interface{}) string {
		return fmt.Sprintf("%s -> %v", input.(replica.Operation), output)
	},
}

// Linearizable checks a client history. Operations that never returned may
// take effect at any time after their call, or never.
func Linearizable(history []sim.HistoryOp) (bool, string) {
	ops := operations(history)
	if porcupine.CheckOperations(kvModel, ops) {
		return true, ""
	}
	return false, fmt.Sprintf("client history of %d operations is not linearizable (porcupine)", len(ops))
}

// operations turns a client history, cut to historyOpsMax, into porcupine's
// operations.
func operations(history []sim.HistoryOp) []porcupine.Operation {
	if len(history) > historyOpsMax {
		history = history[:historyOpsMax]
	}
	ops := make([]porcupine.Operation, 0, len(history))
	for _, h := range history {
		op := porcupine.Operation{ClientId: h.Client, Input: h.Input, Call: int64(h.Call)}
		if h.Returned {
			op.Output = h.Output
			op.Return = int64(h.Return)
		} else {
			op.Return = math.MaxInt64
		}
		ops = append(ops, op)
	}
	return ops
}

// Run executes one simulation and, if it passed, checks linearizability.
func Run(cfg sim.Config, trace io.Writer) (sim.Result, error) {
	res, err := sim.Run(cfg, trace)
	if err != nil {
		return res, err
	}
	if res.Verdict == sim.VerdictPass {
		if ok, why := Linearizable(res.History); !ok {
			res.Verdict = sim.VerdictSafety
			res.Invariant = check.InvLinearizable
			res.Evidence = why
		}
	}
	return res, nil
}
