package verify_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"vsrsim/replica"
	"vsrsim/sim"
	"vsrsim/sim/check"
	"vsrsim/verify"
)

func putOp(client int, key uint32, value, prev, call, ret uint64) sim.HistoryOp {
	return sim.HistoryOp{Client: client, Input: replica.Operation{Kind: replica.OpPut, Key: key, Value: value},
		Output: prev, Call: call, Return: ret, Returned: true}
}

func getOp(client int, key uint32, value, call, ret uint64) sim.HistoryOp {
	return sim.HistoryOp{Client: client, Input: replica.Operation{Kind: replica.OpGet, Key: key},
		Output: value, Call: call, Return: ret, Returned: true}
}

// TestLinearizable: the KV model accepts real histories and rejects a stale
// read, a lost write, and a put whose reply names the wrong previous value.
func TestLinearizable(t *testing.T) {
	lost := putOp(1, 1, 7, 0, 1, 2)
	lost.Returned = false
	cases := []struct {
		name    string
		history []sim.HistoryOp
		ok      bool
	}{
		{"empty", nil, true},
		{"sequential", []sim.HistoryOp{putOp(1, 1, 5, 0, 1, 2), getOp(2, 1, 5, 3, 4)}, true},
		{"concurrent read may see either", []sim.HistoryOp{putOp(1, 1, 5, 0, 1, 4), getOp(2, 1, 0, 2, 3)}, true},
		{"keys are independent", []sim.HistoryOp{putOp(1, 1, 5, 0, 1, 2), getOp(2, 2, 0, 3, 4)}, true},
		{"an unanswered put may have happened", []sim.HistoryOp{lost, getOp(2, 1, 7, 3, 4)}, true},
		{"or not", []sim.HistoryOp{lost, getOp(2, 1, 0, 3, 4)}, true},
		{"stale read", []sim.HistoryOp{putOp(1, 1, 5, 0, 1, 2), getOp(2, 1, 0, 3, 4)}, false},
		{"read of a value never written", []sim.HistoryOp{getOp(2, 1, 9, 3, 4)}, false},
		{"wrong previous value", []sim.HistoryOp{putOp(1, 1, 5, 0, 1, 2), putOp(2, 1, 6, 0, 3, 4)}, false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			ok, why := verify.Linearizable(tc.history)
			assert.Equal(t, tc.ok, ok)
			if !ok {
				assert.Contains(t, why, "not linearizable")
			}
		})
	}
}

// TestRunChecksLinearizability: a passing run's history is linearizable, and
// the same history with one reply forged is not: the checker can fire on a
// real run's history.
func TestRunChecksLinearizability(t *testing.T) {
	res, err := verify.Run(sim.DefaultConfig(3), nil)
	require.NoError(t, err)
	require.Equal(t, sim.VerdictPass, res.Verdict, res.Evidence)
	require.NotEmpty(t, res.History)
	ok, _ := verify.Linearizable(res.History)
	assert.True(t, ok)

	forged := append([]sim.HistoryOp(nil), res.History...)
	k := -1
	for i, h := range forged {
		if h.Returned && h.Input.Kind == replica.OpGet {
			k = i
		}
	}
	require.GreaterOrEqual(t, k, 0, "the run has a returned get")
	forged[k].Output += 1_000_000
	ok, _ = verify.Linearizable(forged)
	assert.False(t, ok, "a forged read breaks linearizability")
	assert.Equal(t, "linearizability", check.InvLinearizable)
}
