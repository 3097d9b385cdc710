package packetsim

import (
	"slices"
	"testing"

	"vsrsim/prng"
)

// TestExtraDelayZeroIsInvisible checks the promise the vc-straggler scenario
// relies on: a run that sets every extra delay to 0 is the same run as one
// that never heard of extra delays, with every fault on.
func TestExtraDelayZeroIsInvisible(t *testing.T) {
	for seed := uint64(1); seed <= 5; seed++ {
		plain := newNetwork(t, faultyOptions(), seed)
		zeroed := newNetwork(t, faultyOptions(), seed)
		zeroed.SetExtraDelay(AnyNode, AnyNode, 0)
		zeroed.SetExtraDelay(2, 0, 600)
		zeroed.SetExtraDelay(2, 0, 0)
		zeroed.SetExtraDelay(4, 1, 0) // a client link
		if !slices.Equal(runWorkload(t, plain, seed, 1500), runWorkload(t, zeroed, seed, 1500)) {
			t.Fatalf("seed %d: extra delay 0 changed the run", seed)
		}
		if plain.rng.Uint64() != zeroed.rng.Uint64() {
			t.Fatalf("seed %d: extra delay 0 changed the draws", seed)
		}
	}
}

// delayedRuns runs the same workload twice, the second with hook applied, and
// returns each payload's report in both (payloads index the slices; replay is
// off so each payload is reported once).
func delayedRuns(t *testing.T, opts Options, hook func(n *Network[int])) (base, delayed []Delivery[int]) {
	t.Helper()
	byPayload := func(log []Delivery[int]) []Delivery[int] {
		out := make([]Delivery[int], len(log))
		for _, d := range log {
			out[d.Payload] = d
		}
		return out
	}
	a := newNetwork(t, opts, 9)
	b := newNetwork(t, opts, 9)
	hook(b)
	base = byPayload(runWorkload(t, a, 9, 1000))
	delayed = byPayload(runWorkload(t, b, 9, 1000))
	if len(base) != len(delayed) || len(base) < 1000 {
		t.Fatalf("runs report %d and %d packets", len(base), len(delayed))
	}
	return base, delayed
}

func TestExtraDelayDirected(t *testing.T) {
	// Loss and reorder stay on: they are drawn at submit, so the delay cannot
	// move them. Clogs and partitions judge a packet when it falls due, and
	// would judge a delayed one differently, so they are off.
	opts := Options{
		Nodes: 4, Replicas: 3, DelayMinTicks: 2, DelayMeanTicks: 10,
		Loss: prng.Percent(10), Reorder: prng.Percent(10), ReorderMaxTicks: 20,
		LinkCapacity: 1024,
	}
	base, delayed := delayedRuns(t, opts, func(n *Network[int]) { n.SetExtraDelay(2, 0, 600) })
	moved := 0
	for i := range base {
		want := base[i]
		if want.From == 2 && want.To == 0 {
			want.At += 600
			moved++
		}
		if delayed[i] != want {
			t.Fatalf("payload %d: got %+v, want %+v", i, delayed[i], want)
		}
	}
	if moved == 0 {
		t.Fatal("workload sent nothing from 2 to 0")
	}
}

func TestExtraDelayAnyNode(t *testing.T) {
	opts := Options{Nodes: 4, Replicas: 3, DelayMinTicks: 2, DelayMeanTicks: 10, LinkCapacity: 1024}
	base, delayed := delayedRuns(t, opts, func(n *Network[int]) {
		n.SetExtraDelay(AnyNode, 0, 600)
		if n.ExtraDelay(1, 0) != 600 || n.ExtraDelay(0, 0) != 600 || n.ExtraDelay(3, 0) != 0 || n.ExtraDelay(0, 1) != 0 {
			t.Fatal("AnyNode set the wrong links")
		}
	})
	for i := range base {
		want := base[i]
		// AnyNode is every replica, never the client 3.
		if want.From < 3 && want.To == 0 {
			want.At += 600
		}
		if delayed[i] != want {
			t.Fatalf("payload %d: got %+v, want %+v", i, delayed[i], want)
		}
	}
}
