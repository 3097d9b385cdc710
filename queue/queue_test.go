package queue

import (
	"slices"
	"testing"

	"vsrsim/prng"
)

type push struct {
	tick  uint64
	value string
}

func drain(q *Queue[string]) []string {
	var out []string
	for {
		it, ok := q.Pop()
		if !ok {
			return out
		}
		out = append(out, it.Value)
	}
}

func TestOrderByTickThenInsertion(t *testing.T) {
	cases := []struct {
		name   string
		pushes []push
		want   []string
	}{
		{"empty", nil, nil},
		{"one", []push{{5, "a"}}, []string{"a"}},
		{"ticks ascending", []push{{1, "a"}, {2, "b"}, {3, "c"}}, []string{"a", "b", "c"}},
		{"ticks descending", []push{{3, "c"}, {2, "b"}, {1, "a"}}, []string{"a", "b", "c"}},
		{"same tick keeps insertion order", []push{{4, "a"}, {4, "b"}, {4, "c"}, {4, "d"}}, []string{"a", "b", "c", "d"}},
		{
			"mixed",
			[]push{{2, "a"}, {1, "b"}, {2, "c"}, {0, "d"}, {1, "e"}, {2, "f"}, {0, "g"}},
			[]string{"d", "g", "b", "e", "a", "c", "f"},
		},
		{"tick zero and max", []push{{^uint64(0), "late"}, {0, "early"}}, []string{"early", "late"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			q := New[string](16, 4)
			for _, p := range tc.pushes {
				q.Push(p.tick, p.value)
			}
			if q.Len() != len(tc.pushes) {
				t.Fatalf("Len = %d, want %d", q.Len(), len(tc.pushes))
			}
			if got := drain(q); !slices.Equal(got, tc.want) {
				t.Fatalf("pop order %v, want %v", got, tc.want)
			}
			if _, ok := q.Pop(); ok {
				t.Fatal("Pop on an empty queue returned an item")
			}
			if _, ok := q.Peek(); ok {
				t.Fatal("Peek on an empty queue returned an item")
			}
		})
	}
}

func TestPeekDoesNotRemove(t *testing.T) {
	q := New[string](4, 4)
	q.Push(3, "b")
	q.Push(1, "a")
	it, ok := q.Peek()
	if !ok || it.Value != "a" || it.Tick != 1 {
		t.Fatalf("Peek = %+v, %v", it, ok)
	}
	if q.Len() != 2 {
		t.Fatalf("Peek changed Len to %d", q.Len())
	}
}

func TestPopDue(t *testing.T) {
	q := New[string](8, 8)
	q.Push(5, "a")
	q.Push(3, "b")
	q.Push(5, "c")
	q.Push(9, "d")
	steps := []struct {
		now  uint64
		want []string
	}{
		{0, nil},
		{2, nil},
		{3, []string{"b"}},
		{3, nil},
		{7, []string{"a", "c"}},
		{8, nil},
		{9, []string{"d"}},
		{100, nil},
	}
	for _, s := range steps {
		var got []string
		for {
			it, ok := q.PopDue(s.now)
			if !ok {
				break
			}
			if it.Tick > s.now {
				t.Fatalf("PopDue(%d) returned an item at tick %d", s.now, it.Tick)
			}
			got = append(got, it.Value)
		}
		if !slices.Equal(got, s.want) {
			t.Fatalf("PopDue(%d) gave %v, want %v", s.now, got, s.want)
		}
	}
}

func TestPushPastLimitPanics(t *testing.T) {
	q := New[string](3, 1)
	q.Push(1, "a")
	q.Push(1, "b")
	q.Push(1, "c")
	if !q.Full() {
		t.Fatal("Full is false at the limit")
	}
	defer func() {
		if recover() == nil {
			t.Fatal("Push past the limit did not panic")
		}
		if q.Len() != 3 {
			t.Fatalf("failed Push changed Len to %d", q.Len())
		}
	}()
	q.Push(1, "d")
}

func TestNewRejectsNonPositiveLimit(t *testing.T) {
	defer func() {
		if recover() == nil {
			t.Fatal("New with limit 0 did not panic")
		}
	}()
	New[string](0, 0)
}

// ref is the naive second implementation the heap is checked against: a slice
// kept sorted by (tick, seq).
type ref struct{ items []Item[int] }

func (r *ref) push(tick, seq uint64, v int) {
	r.items = append(r.items, Item[int]{Tick: tick, Seq: seq, Value: v})
	slices.SortFunc(r.items, func(a, b Item[int]) int {
		if a.Tick != b.Tick {
			if a.Tick < b.Tick {
				return -1
			}
			return 1
		}
		if a.Seq < b.Seq {
			return -1
		}
		if a.Seq > b.Seq {
			return 1
		}
		return 0
	})
}

func (r *ref) remove(v int) {
	i := slices.IndexFunc(r.items, func(it Item[int]) bool { return it.Value == v })
	r.items = slices.Delete(r.items, i, i+1)
}

// TestRandomizedAgainstReference mixes pushes, pops and random RemoveAt calls
// and checks after every step that the heap still pops in the reference order.
func TestRandomizedAgainstReference(t *testing.T) {
	for seed := uint64(1); seed <= 20; seed++ {
		rng := prng.New(seed, prng.StreamScenario)
		q := New[int](256, 16)
		var r ref
		next := 0
		for step := 0; step < 2000; step++ {
			switch op := rng.Uint64N(10); {
			case op < 5 && !q.Full():
				// Few distinct ticks, so ties on tick are common.
				tick := rng.Uint64N(20)
				q.Push(tick, next)
				r.push(tick, uint64(next+1), next)
				next++
			case op < 7 && q.Len() > 0:
				it := q.RemoveAt(rng.IntN(q.Len()))
				r.remove(it.Value)
			case q.Len() > 0:
				it, _ := q.Pop()
				want := r.items[0]
				r.items = r.items[1:]
				if it.Value != want.Value || it.Tick != want.Tick {
					t.Fatalf("seed %d step %d: Pop = (%d, %d), want (%d, %d)",
						seed, step, it.Tick, it.Value, want.Tick, want.Value)
				}
			}
			checkHeap(t, q)
			if q.Len() != len(r.items) {
				t.Fatalf("seed %d step %d: Len %d, reference %d", seed, step, q.Len(), len(r.items))
			}
		}
		var got []int
		for q.Len() > 0 {
			it, _ := q.Pop()
			got = append(got, it.Value)
		}
		var want []int
		for _, it := range r.items {
			want = append(want, it.Value)
		}
		if !slices.Equal(got, want) {
			t.Fatalf("seed %d: final order %v, want %v", seed, got, want)
		}
	}
}

// TestRemoveAtEveryIndex removes each position of a fixed heap in turn and
// checks the rest still pops in order.
func TestRemoveAtEveryIndex(t *testing.T) {
	const n = 33
	for i := 0; i < n; i++ {
		q := New[int](n, n)
		var r ref
		for v := 0; v < n; v++ {
			tick := uint64((v * 7) % 11)
			q.Push(tick, v)
			r.push(tick, uint64(v+1), v)
		}
		removed := q.RemoveAt(i)
		r.remove(removed.Value)
		checkHeap(t, q)
		for _, want := range r.items {
			it, _ := q.Pop()
			if it.Value != want.Value {
				t.Fatalf("RemoveAt(%d): popped %d, want %d", i, it.Value, want.Value)
			}
		}
	}
}

// checkHeap asserts the heap property at every index through At.
func checkHeap[T any](t *testing.T, q *Queue[T]) {
	t.Helper()
	for i := 1; i < q.Len(); i++ {
		p, c := q.At((i-1)/2), q.At(i)
		if less(&c, &p) {
			t.Fatalf("heap order broken at %d: parent (%d, %d), child (%d, %d)", i, p.Tick, p.Seq, c.Tick, c.Seq)
		}
	}
}

// PopDueUpTo stops at an item that is not due yet and at one pushed after the
// seq bound, even when it is due: a consumer's callback may push items due now
// that belong to its next round.
func TestPopDueUpTo(t *testing.T) {
	q := New[string](8, 8)
	q.Push(5, "a") // seq 1
	q.Push(3, "b") // seq 2
	q.Push(5, "c") // seq 3
	q.Push(4, "d") // seq 4
	steps := []struct {
		now, seq uint64
		want     []string
	}{
		{2, 4, nil},
		{3, 1, nil},
		{3, 2, []string{"b"}},
		{5, 3, nil}, // the head is d, pushed after seq 3
		{5, 4, []string{"d", "a", "c"}},
		{100, 100, nil},
	}
	for _, s := range steps {
		var got []string
		for {
			it, ok := q.PopDueUpTo(s.now, s.seq)
			if !ok {
				break
			}
			got = append(got, it.Value)
		}
		if !slices.Equal(got, s.want) {
			t.Errorf("PopDueUpTo(%d, %d) gave %v, want %v", s.now, s.seq, got, s.want)
		}
	}
}

func TestDueBy(t *testing.T) {
	q := New[string](8, 8)
	if q.DueBy(100) {
		t.Fatal("an empty queue has nothing due")
	}
	q.Push(5, "a")
	q.Push(3, "b")
	for _, s := range []struct {
		now  uint64
		want bool
	}{{2, false}, {3, true}, {4, true}} {
		if got := q.DueBy(s.now); got != s.want {
			t.Errorf("DueBy(%d) = %v, want %v", s.now, got, s.want)
		}
	}
}
