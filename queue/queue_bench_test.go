package queue

import (
	"testing"

	"vsrsim/prng"
)

// BenchmarkQueuePushPop measures the steady state of the event loop: about 1024
// queued events, one push and one pop per op. It must not allocate.
func BenchmarkQueuePushPop(b *testing.B) {
	const size = 1024
	q := New[uint64](size+1, size+1)
	rng := prng.New(1, prng.StreamScenario)
	now := uint64(0)
	for i := 0; i < size; i++ {
		q.Push(now+rng.Uint64N(size), uint64(i))
	}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		it, _ := q.Pop()
		now = it.Tick
		q.Push(now+1+(it.Value*2654435761)%size, it.Value+1)
	}
}

func TestQueuePushPopDoesNotAllocate(t *testing.T) {
	q := New[uint64](1025, 1025)
	for i := uint64(0); i < 1024; i++ {
		q.Push(i, i)
	}
	allocs := testing.AllocsPerRun(1000, func() {
		it, _ := q.Pop()
		q.Push(it.Tick+1024, it.Value)
	})
	if allocs != 0 {
		t.Fatalf("push+pop allocates %.1f times per op", allocs)
	}
}
