package linearize

import (
	"cmp"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/anishathalye/porcupine"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"vsrsim/sim/check"
)

// randomHistory is a small history of a few clients on one or two keys,
// made linearizable by construction: each operation takes effect at a point
// between its call and its return, in that order, on an honest model. Then,
// one time in two, one answer is forged (a crafted bad result), which may or
// may not leave the history linearizable. Small values and times make puts
// ambiguous and calls and returns share ticks, where the two searches could
// disagree on the order of events.
func randomHistory(r *rand.Rand) []check.HistoryOp {
	type effect struct {
		at, tie uint64
		op      int
	}
	var history []check.HistoryOp
	var effects []effect
	keys := 1 + r.IntN(2)
	spread := 2 + r.IntN(6) // how long an operation may be in flight
	for client := range 1 + r.IntN(5) {
		t := uint64(r.IntN(3))
		ops := r.IntN(6)
		for j := range ops {
			call := t + uint64(r.IntN(3))
			at := call + uint64(r.IntN(spread))
			ret := at + uint64(r.IntN(spread))
			t = ret + uint64(r.IntN(2))
			h := check.HistoryOp{Client: client, Call: call, Return: ret, Returned: true,
				Input: check.Op{Kind: []check.OpKind{check.OpPut, check.OpGet, check.OpIncr}[r.IntN(3)],
					Key: uint32(r.IntN(keys)), Value: uint64(1 + r.IntN(3))}}
			took := true
			if j == ops-1 && r.IntN(2) == 0 { // never answered; it may not have happened
				h.Returned, h.Return, took = false, 0, r.IntN(2) == 0
			}
			if took {
				effects = append(effects, effect{at, r.Uint64(), len(history)})
			}
			history = append(history, h)
		}
	}
	slices.SortFunc(effects, func(a, b effect) int { return cmp.Or(cmp.Compare(a.at, b.at), cmp.Compare(a.tie, b.tie)) })
	// Answers in effect order: a put the value before it, an increment the
	// value after it, a get the value.
	state := make([]uint64, keys)
	for _, e := range effects {
		h := &history[e.op]
		v := &state[h.Input.Key]
		switch h.Input.Kind {
		case check.OpPut:
			h.Output, *v = *v, h.Input.Value
		case check.OpGet:
			h.Output = *v
		case check.OpIncr:
			*v += h.Input.Value
			h.Output = *v
		}
		if !h.Returned {
			h.Output = 0
		}
	}
	if len(history) > 0 && r.IntN(2) == 0 {
		h := &history[r.IntN(len(history))]
		if h.Returned {
			h.Output = uint64(r.IntN(5))
		}
	}
	return history
}

// TestSearchAgreesWithPorcupine: on thousands of random small histories,
// linearizable and not, our search and porcupine's give the same answer.
func TestSearchAgreesWithPorcupine(t *testing.T) {
	r := rand.New(rand.NewPCG(23, 5))
	count := map[string]int{}
	for i := range 5000 {
		history := randomHistory(r)
		got := Search(history, StepBudget)
		require.NotEqual(t, Unknown, got.Verdict)
		want := NotLinearizable
		if porcupine.CheckOperations(Model, Operations(history)) {
			want = Linearizable
		}
		require.Equal(t, want, got.Verdict, "history %d: %+v", i, history)
		count[want]++
	}
	t.Log(count)
	assert.Greater(t, count[Linearizable], 1500, "%v", count)
	assert.Greater(t, count[NotLinearizable], 1000, "%v", count)
}
