package linearize

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"vsrsim/sim/check"
)

func op(client int, kind check.OpKind, key uint32, value, out, call, ret uint64) check.HistoryOp {
	return check.HistoryOp{Client: client, Input: check.Op{Kind: kind, Key: key, Value: value},
		Output: out, Call: call, Return: ret, Returned: true}
}

func put(client int, key uint32, value, prev, call, ret uint64) check.HistoryOp {
	return op(client, check.OpPut, key, value, prev, call, ret)
}

func get(client int, key uint32, value, call, ret uint64) check.HistoryOp {
	return op(client, check.OpGet, key, 0, value, call, ret)
}

func incr(client int, key uint32, by, now, call, ret uint64) check.HistoryOp {
	return op(client, check.OpIncr, key, by, now, call, ret)
}

// TestCheck: the model accepts real histories and rejects a stale read, a
// lost write, a put whose reply names the wrong previous value, and an
// increment executed twice.
func TestCheck(t *testing.T) {
	lost := put(1, 1, 7, 0, 1, 2)
	lost.Returned = false
	pending := incr(1, 1, 3, 0, 1, 2)
	pending.Returned = false
	cases := []struct {
		name    string
		history []check.HistoryOp
		want    string
	}{
		{"empty", nil, Linearizable},
		{"sequential", []check.HistoryOp{put(1, 1, 5, 0, 1, 2), get(2, 1, 5, 3, 4)}, Linearizable},
		{"concurrent read may see either", []check.HistoryOp{put(1, 1, 5, 0, 1, 4), get(2, 1, 0, 2, 3)}, Linearizable},
		{"keys are independent", []check.HistoryOp{put(1, 1, 5, 0, 1, 2), get(2, 2, 0, 3, 4)}, Linearizable},
		{"an unanswered put may have happened", []check.HistoryOp{lost, get(2, 1, 7, 3, 4)}, Linearizable},
		{"or not", []check.HistoryOp{lost, get(2, 1, 0, 3, 4)}, Linearizable},
		{"stale read", []check.HistoryOp{put(1, 1, 5, 0, 1, 2), get(2, 1, 0, 3, 4)}, NotLinearizable},
		{"read of a value never written", []check.HistoryOp{get(2, 1, 9, 3, 4)}, NotLinearizable},
		{"wrong previous value", []check.HistoryOp{put(1, 1, 5, 0, 1, 2), put(2, 1, 6, 0, 3, 4)}, NotLinearizable},
		{"increments add up", []check.HistoryOp{incr(1, 1, 2, 2, 1, 2), incr(2, 1, 3, 5, 3, 4), get(1, 1, 5, 5, 6)}, Linearizable},
		{"an increment executed twice", []check.HistoryOp{incr(1, 1, 2, 2, 1, 2), get(1, 1, 4, 3, 4)}, NotLinearizable},
		{"an unanswered increment may have happened", []check.HistoryOp{pending, get(2, 1, 3, 3, 4)}, Linearizable},
		{"but only once", []check.HistoryOp{pending, get(2, 1, 6, 3, 4)}, NotLinearizable},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got, why := Check(tc.history)
			assert.Equal(t, tc.want, got)
			if got == NotLinearizable {
				assert.Contains(t, why, "not linearizable")
			}
		})
	}
}

// TestPartition: one part per key that occurs, in key order, each in history
// order; no part can grow into its neighbour.
func TestPartition(t *testing.T) {
	history := Operations([]check.HistoryOp{
		put(1, 3, 7, 0, 1, 2), get(2, 0, 0, 1, 3), incr(1, 3, 2, 9, 3, 4), get(1, 0, 0, 5, 6), put(2, 5, 1, 0, 6, 7),
	})
	parts := Model.Partition(history)
	var keys [][]uint64
	for _, p := range parts {
		var calls []uint64
		for _, op := range p {
			calls = append(calls, uint64(op.Input.(*check.Op).Key)*100+uint64(op.Call))
		}
		keys = append(keys, calls)
		assert.Equal(t, len(p), cap(p))
	}
	assert.Equal(t, [][]uint64{{1, 5}, {301, 303}, {506}}, keys)
}

// concurrent is n increments of 1 by n clients, all in flight at once, each
// answered with a different count: a history with n! orders to choose from
// and a memo that must tell their sets apart.
func concurrent(key uint32, n int) []check.HistoryOp {
	h := make([]check.HistoryOp, n)
	for i := range h {
		h[i] = incr(i, key, 1, uint64(n-i), 1, 2)
	}
	return h
}

// TestBudget: a search that needs more steps than its budget answers unknown,
// naming the budget and the key it stopped on; with enough budget the same
// history settles, and the steps taken are the same every time.
func TestBudget(t *testing.T) {
	history := append(concurrent(2, 3), concurrent(5, 12)...)
	full := Search(history, StepBudget)
	require.Equal(t, Linearizable, full.Verdict, full.Detail)
	assert.Equal(t, full, Search(history, StepBudget), "the same history takes the same steps")

	short := Search(history, full.Steps-1)
	assert.Equal(t, Unknown, short.Verdict)
	assert.Equal(t, fmt.Sprintf("search stopped at the step budget of %d steps, on key 5 (12 operations; history of 15)", full.Steps-1), short.Detail)
	assert.Greater(t, short.Steps, full.Steps-1, "the step over the budget is counted")
	assert.Equal(t, full, Search(history, full.Steps), "exactly enough")

	bad := append(concurrent(1, 4), get(9, 1, 3, 5, 6))
	out := Search(bad, StepBudget)
	assert.Equal(t, NotLinearizable, out.Verdict)
	assert.Equal(t, "client history of 5 operations is not linearizable: key 1's 5 operations have no linearization", out.Detail)
	assert.Equal(t, Unknown, Search(bad, out.Steps-1).Verdict, "a refutation is a whole search: cut short, it is unknown")
}

// TestOperationsBoxesNothingPerOp: porcupine's form of a history costs a few
// allocations, however long the history (its inputs and outputs are pointers
// into arrays, not boxes of their own).
func TestOperationsBoxesNothingPerOp(t *testing.T) {
	history := make([]check.HistoryOp, 500)
	for i := range history {
		history[i] = put(i%4, uint32(i%7), uint64(1000+i), uint64(999+i), uint64(2*i+1), uint64(2*i+2))
	}
	allocs := testing.AllocsPerRun(10, func() { Operations(history) })
	assert.LessOrEqual(t, allocs, 3.0)
}
