package packetsim

import (
	"testing"

	"vsrsim/prng"
)

// partitionFor ticks a network until its random partition starts.
func partitionFor(t *testing.T, opts Options, seed uint64) *Network[int] {
	t.Helper()
	n := newNetwork(t, opts, seed)
	for now := uint64(1); !n.Partitioned(); now++ {
		if now > 1000 {
			t.Fatal("no partition in 1000 ticks")
		}
		n.Tick(now)
	}
	return n
}

// sideOf reports, for a symmetric partition, the replicas connected to 0.
func sideOf(n *Network[int], replicas int) (with0 int) {
	for r := 0; r < replicas; r++ {
		if n.Connected(0, r) {
			with0++
		}
	}
	return with0
}

func TestPartitionModesShape(t *testing.T) {
	const replicas = 5
	for _, mode := range []PartitionMode{UniformSize, UniformPartition, IsolateSingle} {
		for _, sym := range []Symmetry{Symmetric, Asymmetric} {
			// shapes counts cross pairs a < b cut only a->b, only b->a, and both.
			var shapes [3]int
			sizes := make([]int, replicas+1)
			for seed := uint64(1); seed <= 200; seed++ {
				opts := Options{Nodes: replicas + 2, Replicas: replicas, PartitionMode: mode, PartitionSymmetry: sym,
					PartitionChance: prng.Percent(20)}
				n := partitionFor(t, opts, seed)
				// Clients are never cut, in either direction.
				for c := replicas; c < replicas+2; c++ {
					for r := 0; r < replicas+2; r++ {
						if !n.Connected(c, r) || !n.Connected(r, c) {
							t.Fatalf("%v/%v seed %d: client link %d-%d cut", mode, sym, seed, c, r)
						}
					}
				}
				for a := 0; a < replicas; a++ {
					if !n.Connected(a, a) {
						t.Fatalf("%v/%v: replica %d cut from itself", mode, sym, a)
					}
					for b := a + 1; b < replicas; b++ {
						ab, ba := n.Connected(a, b), n.Connected(b, a)
						if sym == Symmetric && ab != ba {
							t.Fatalf("%v/%v seed %d: symmetric partition cut %d-%d one way", mode, sym, seed, a, b)
						}
						switch {
						case !ab && ba:
							shapes[0]++
						case ab && !ba:
							shapes[1]++
						case !ab && !ba:
							shapes[2]++
						}
					}
				}
				if sym == Symmetric {
					sizes[sideOf(n, replicas)]++
					checkTwoSides(t, n, replicas)
				}
			}
			if sym == Asymmetric && (shapes[0] == 0 || shapes[1] == 0 || shapes[2] == 0) {
				t.Fatalf("%v/asymmetric: cut shapes (a->b, b->a, both) %v: one never happened", mode, shapes)
			}
			if sym != Symmetric {
				continue
			}
			if sizes[replicas] != 0 || sizes[0] != 0 {
				t.Fatalf("%v: a side was empty: %v", mode, sizes)
			}
			if mode == IsolateSingle {
				// 0 is alone (side 1) or with all others but one (side 4).
				if sizes[1]+sizes[replicas-1] != 200 {
					t.Fatalf("IsolateSingle side sizes %v", sizes)
				}
			} else if sizes[2] == 0 || sizes[3] == 0 {
				t.Fatalf("%v: side sizes %v lack a middle split", mode, sizes)
			}
		}
	}
}

// checkTwoSides asserts a symmetric partition splits the replicas into two
// groups connected within and cut across.
func checkTwoSides(t *testing.T, n *Network[int], replicas int) {
	t.Helper()
	for a := 0; a < replicas; a++ {
		for b := 0; b < replicas; b++ {
			same := n.Connected(0, a) == n.Connected(0, b)
			if n.Connected(a, b) != same {
				t.Fatalf("replicas %d and %d: connected %v, same side %v", a, b, !same, same)
			}
		}
	}
}

func TestPartitionDropsCrossGroupOnly(t *testing.T) {
	opts := Options{Nodes: 5, Replicas: 3, DelayMinTicks: 1, PartitionMode: UniformSize,
		PartitionSymmetry: Asymmetric, PartitionChance: prng.Percent(50)}
	for seed := uint64(1); seed <= 20; seed++ {
		n := partitionFor(t, opts, seed)
		now := n.lastTick
		payload := 0
		for from := 0; from < 5; from++ {
			for to := 0; to < 5; to++ {
				n.Submit(now, from, to, payload)
				payload++
			}
		}
		cut := 0
		n.Deliver(now+1, func(d *Delivery[int]) {
			wantCut := !n.Connected(d.From, d.To)
			if wantCut != (d.Reason == Partition) || d.Dropped != wantCut {
				t.Fatalf("seed %d: %+v, connected %v", seed, d, !wantCut)
			}
			if wantCut && (d.From >= 3 || d.To >= 3) {
				t.Fatalf("seed %d: client packet cut: %+v", seed, d)
			}
			if wantCut {
				cut++
			}
		})
		if cut == 0 {
			t.Fatalf("seed %d: partition dropped nothing", seed)
		}
	}
}

func TestPartitionStability(t *testing.T) {
	opts := Options{Nodes: 3, Replicas: 3, PartitionMode: IsolateSingle,
		PartitionChance: prng.Ratio{Num: 1, Den: 1}, HealChance: prng.Ratio{Num: 1, Den: 1},
		PartitionStabilityTicks: 10, HealStabilityTicks: 4}
	n := newNetwork(t, opts, 1)
	var changes []uint64
	was := false
	for now := uint64(1); now <= 60; now++ {
		n.Tick(now)
		if p := n.Partitioned(); p != was {
			changes = append(changes, now)
			was = p
		}
	}
	// Healed since tick 0: partition at 4, heal at 14, partition at 18, ...
	want := []uint64{4, 14, 18, 28, 32, 42, 46, 56, 60}
	if len(changes) != len(want) {
		t.Fatalf("changes at %v, want %v", changes, want)
	}
	for i := range want {
		if changes[i] != want[i] {
			t.Fatalf("changes at %v, want %v", changes, want)
		}
	}
	if s := n.Stats(); s.Partitions != 5 || s.Heals != 4 {
		t.Fatalf("stats %+v", s)
	}
}

func TestScriptedPartition(t *testing.T) {
	n := newNetwork(t, Options{Nodes: 5, Replicas: 4, DelayMinTicks: 1}, 1)
	n.Partition([]NodeID{0, 1}, []NodeID{2}) // 3 is listed nowhere: isolated
	if !n.Partitioned() {
		t.Fatal("Partitioned is false")
	}
	connected := [4][4]bool{
		{true, true, false, false},
		{true, true, false, false},
		{false, false, true, false},
		{false, false, false, true},
	}
	for a := 0; a < 4; a++ {
		for b := 0; b < 4; b++ {
			if n.Connected(a, b) != connected[a][b] {
				t.Fatalf("Connected(%d, %d) = %v", a, b, !connected[a][b])
			}
		}
		if !n.Connected(a, 4) || !n.Connected(4, a) {
			t.Fatalf("client cut from %d", a)
		}
	}
	// A new scripted partition replaces the old one.
	n.Partition([]NodeID{0, 1, 2, 3})
	if n.Partitioned() {
		t.Fatal("one group still partitioned")
	}
	mustPanic(t, "partition naming a client", func() { n.Partition([]NodeID{0, 4}) })
	mustPanic(t, "replica in two groups", func() { n.Partition([]NodeID{0, 1}, []NodeID{1}) })
}
