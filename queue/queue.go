// Package queue is the simulation's event queue: a binary min-heap ordered by
// (tick, seq). seq is an insertion counter, so two events at the same tick pop in
// the order they were pushed, the same way in every run.
package queue

// Item is one queued value with its ordering key.
type Item[T any] struct {
	Tick  uint64
	Seq   uint64
	Value T
}

// Queue is a bounded priority queue. It is not safe for concurrent use: a
// simulation is single-threaded by design.
type Queue[T any] struct {
	items []Item[T]
	seq   uint64
	limit int
}

// New returns a queue that holds at most limit items (limit > 0). capacity is a
// size hint so steady-state pushes do not allocate.
func New[T any](limit, capacity int) *Queue[T] {
	if limit <= 0 {
		panic("queue: limit must be positive")
	}
	if capacity > limit {
		capacity = limit
	}
	return &Queue[T]{items: make([]Item[T], 0, capacity), limit: limit}
}

// NewIn is New keeping the items in buf's backing array (from Release) when
// it holds at least capacity items. Order and limit are unchanged.
func NewIn[T any](limit, capacity int, buf []Item[T]) *Queue[T] {
	if cap(buf) < min(capacity, limit) || limit <= 0 {
		return New[T](limit, capacity)
	}
	return &Queue[T]{items: buf[:0], limit: limit}
}

// Release returns the queue's backing array, cleared and empty, for NewIn to
// give another queue; this one must not be used again.
func (q *Queue[T]) Release() []Item[T] {
	clear(q.items)
	items := q.items[:0]
	q.items = nil
	return items
}

// Len is the number of queued items.
func (q *Queue[T]) Len() int { return len(q.items) }

// Full reports whether a push would exceed the limit.
func (q *Queue[T]) Full() bool { return len(q.items) >= q.limit }

// Push queues v at tick. It panics past the limit: an unbounded queue is a bug in
// the caller, and the run reports it as a crash.
func (q *Queue[T]) Push(tick uint64, v T) {
	if len(q.items) >= q.limit {
		panic("queue: limit exceeded")
	}
	q.seq++
	q.items = append(q.items, Item[T]{Tick: tick, Seq: q.seq, Value: v})
	q.up(len(q.items) - 1)
}

// Peek returns the earliest item without removing it.
func (q *Queue[T]) Peek() (Item[T], bool) {
	if len(q.items) == 0 {
		return Item[T]{}, false
	}
	return q.items[0], true
}

// Pop removes and returns the earliest item.
func (q *Queue[T]) Pop() (Item[T], bool) {
	n := len(q.items)
	if n == 0 {
		return Item[T]{}, false
	}
	top := q.items[0]
	last := n - 1
	q.items[0] = q.items[last]
	var zero Item[T]
	q.items[last] = zero
	q.items = q.items[:last]
	if last > 0 {
		q.down(0)
	}
	return top, true
}

// PopDue removes and returns the earliest item if its tick is <= now.
func (q *Queue[T]) PopDue(now uint64) (Item[T], bool) {
	if len(q.items) == 0 || q.items[0].Tick > now {
		return Item[T]{}, false
	}
	return q.Pop()
}

// DueBy reports whether the earliest item's tick is <= now.
func (q *Queue[T]) DueBy(now uint64) bool {
	return len(q.items) > 0 && q.items[0].Tick <= now
}

// PopDueUpTo removes and returns the earliest item if its tick is <= now and
// its seq <= seq: what a consumer may take without reaching items pushed
// after the seq it started from.
func (q *Queue[T]) PopDueUpTo(now, seq uint64) (Item[T], bool) {
	if len(q.items) == 0 {
		return Item[T]{}, false
	}
	if h := &q.items[0]; h.Tick > now || h.Seq > seq {
		return Item[T]{}, false
	}
	return q.Pop()
}

// RemoveAt removes the item at heap index i (0 <= i < Len) and returns it. It is
// used for random eviction; the index comes from the caller's own PRNG draw.
func (q *Queue[T]) RemoveAt(i int) Item[T] {
	n := len(q.items)
	it := q.items[i]
	last := n - 1
	if i != last {
		q.items[i] = q.items[last]
	}
	var zero Item[T]
	q.items[last] = zero
	q.items = q.items[:last]
	if i < last {
		q.down(i)
		q.up(i)
	}
	return it
}

// At returns the item at heap index i without removing it.
func (q *Queue[T]) At(i int) Item[T] { return q.items[i] }

func less[T any](a, b *Item[T]) bool {
	if a.Tick != b.Tick {
		return a.Tick < b.Tick
	}
	return a.Seq < b.Seq
}

func (q *Queue[T]) up(i int) {
	for i > 0 {
		p := (i - 1) / 2
		if !less(&q.items[i], &q.items[p]) {
			return
		}
		q.items[i], q.items[p] = q.items[p], q.items[i]
		i = p
	}
}

func (q *Queue[T]) down(i int) {
	n := len(q.items)
	for {
		l := 2*i + 1
		if l >= n {
			return
		}
		m := l
		if r := l + 1; r < n && less(&q.items[r], &q.items[l]) {
			m = r
		}
		if !less(&q.items[m], &q.items[i]) {
			return
		}
		q.items[i], q.items[m] = q.items[m], q.items[i]
		i = m
	}
}
