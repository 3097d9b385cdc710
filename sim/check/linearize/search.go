package linearize

import (
	"cmp"
	"fmt"
	"math"
	"math/bits"
	"slices"

	"vsrsim/sim/check"
)

// StepBudget bounds the search over one history, in steps (see Search): past
// it the answer is Unknown, the same on every machine and under any load.
// Swarm seeds 1..20000 take at most 30,481 steps a history (seed 766, 22,111
// operations; the median is about 125, the 99th percentile about 10,000):
// steps grow with the history, about 1.4 an operation, and with how much of
// it is in flight at once. A million is 30 times the most any of them needed,
// room for runs many times longer; and it is the most a history may cost: a
// search that spends it all (a history built to defeat the memo) takes some
// tenths of a second and about 20 MB, where ten million took seconds and a
// quarter of a gigabyte, too much for one run of a sweep.
const StepBudget = 1_000_000

// Outcome is what a search over one history found.
type Outcome struct {
	Verdict string // Linearizable, NotLinearizable or Unknown
	Detail  string // one line for NotLinearizable and Unknown
	Steps   int    // steps taken, over every key
}

// Search checks a whole client history with a budget of steps: a Wing & Gong
// search with Lowe's memo (the set of operations linearized so far and the
// state they leave, each pair explored once), the algorithm porcupine runs,
// here on one goroutine, key after key in key order. A step is one turn of
// the search loop (one operation tried, or one undone), and a memo entry
// costs one more per word of the set it keeps, so the budget bounds memory as
// well as time. The answer depends on the history and the budget only.
func Search(history []check.HistoryOp, budget int) Outcome {
	var s searcher
	s.budget = budget
	order := make([]int32, len(history))
	for i := range order {
		order[i] = int32(i)
	}
	slices.SortFunc(order, func(a, b int32) int {
		return cmp.Or(cmp.Compare(history[a].Input.Key, history[b].Input.Key), cmp.Compare(a, b))
	})
	for at := 0; at < len(order); {
		key := history[order[at]].Input.Key
		end := at
		for end < len(order) && history[order[end]].Input.Key == key {
			end++
		}
		switch s.key(history, order[at:end]) {
		case searchIllegal:
			return Outcome{NotLinearizable, fmt.Sprintf("client history of %d operations is not linearizable: key %d's %d operations have no linearization",
				len(history), key, end-at), s.steps}
		case searchOver:
			return Outcome{Unknown, fmt.Sprintf("search stopped at the step budget of %d steps, on key %d (%d operations; history of %d)",
				s.budget, key, end-at, len(history)), s.steps}
		}
		at = end
	}
	return Outcome{Linearizable, "", s.steps}
}

type searchResult uint8

const (
	searchOK searchResult = iota
	searchIllegal
	searchOver
)

// searcher holds one history's search; its arrays are reused key after key.
// The events of a key (each operation's call and return, by time, a call
// before a return at the same tick, as porcupine orders them) are nodes 1..2n
// of a doubly linked list whose node 0 is the head; an operation linearized
// is lifted out of the list, call and return, and put back on backtracking.
type searcher struct {
	budget, steps int

	ops        []*check.HistoryOp // the key's operations
	next, prev []int32            // the list; -1 ends it
	op         []int32            // node -> operation
	match      []int32            // call node -> its return node; -1 for a return
	returnOf   []int32            // operation -> its return node
	events     []event

	set   []uint64 // the operations linearized, a bitset
	hash  uint64   // of set: the XOR of its members' hashes
	lo    int32    // every operation below lo is in set, and lo is not
	hi    int32    // no operation from hi on is in set; hi >= lo
	memo  map[uint64]int32
	memos []memo   // chains of the memo's buckets
	arena []uint64 // the memo entries' sets, one after another
	stack []frame  // the linearization so far
}

type event struct {
	time   uint64
	isCall bool
	op     int32
}

type memo struct {
	state     uint64
	lo        int32
	at, words int32 // the set's window in arena
	next      int32 // next in the bucket, -1 ends it
}

type frame struct {
	node  int32  // the call node linearized
	state uint64 // the state before it
}

// key searches the operations history[idx...] of one key.
func (s *searcher) key(history []check.HistoryOp, idx []int32) searchResult {
	s.loadEvents(history, idx)
	s.buildList(len(idx))
	s.resetMemo(len(idx))
	return s.walk()
}

// loadEvents numbers the key's operations in call order and lists their
// calls and returns by time.
func (s *searcher) loadEvents(history []check.HistoryOp, idx []int32) {
	// Operations are numbered in call order, so that the linearized set is
	// all of them below s.lo and a few above: its window is what the memo
	// keeps.
	slices.SortFunc(idx, func(a, b int32) int { return cmp.Or(cmp.Compare(history[a].Call, history[b].Call), cmp.Compare(a, b)) })
	s.ops = s.ops[:0]
	s.events = s.events[:0]
	for i, k := range idx {
		h := &history[k]
		s.ops = append(s.ops, h)
		ret := uint64(math.MaxUint64) // never returned: it may take effect at any time after its call
		if h.Returned {
			ret = h.Return
		}
		s.events = append(s.events, event{h.Call, true, int32(i)}, event{ret, false, int32(i)})
	}
	slices.SortFunc(s.events, compareEvents)
}

// compareEvents orders events by time, a call before a return at the same
// tick (as porcupine does), then by operation.
func compareEvents(a, b event) int {
	if c := cmp.Compare(a.time, b.time); c != 0 {
		return c
	}
	if a.isCall != b.isCall {
		if a.isCall {
			return -1
		}
		return 1
	}
	return cmp.Compare(a.op, b.op)
}

// buildList links the n operations' events, in order, as nodes 1..2n after
// the head, each call node matched to its return node.
func (s *searcher) buildList(n int) {
	nodes := 2*n + 1
	s.next = resize(s.next, nodes)
	s.prev = resize(s.prev, nodes)
	s.op = resize(s.op, nodes)
	s.match = resize(s.match, nodes)
	s.returnOf = resize(s.returnOf, n)
	for i := nodes - 1; i >= 1; i-- { // a return before its call
		e := s.events[i-1]
		s.op[i] = e.op
		s.match[i] = -1
		if e.isCall {
			s.match[i] = s.returnOf[e.op]
		} else {
			s.returnOf[e.op] = int32(i)
		}
	}
	for i := range nodes {
		s.next[i] = int32(i + 1)
		s.prev[i] = int32(i - 1)
	}
	s.next[nodes-1] = -1
	s.stack = s.stack[:0]
}

// resetMemo empties the linearized set, sized for n operations, and the memo.
func (s *searcher) resetMemo(n int) {
	words := (n + 63) / 64
	s.set = resize(s.set, words)
	clear(s.set)
	s.hash, s.lo, s.hi = 0, 0, 0
	if s.memo == nil {
		s.memo = make(map[uint64]int32)
	}
	clear(s.memo)
	s.memos = s.memos[:0]
	s.arena = s.arena[:0]
}

// walk runs the search over the list: it linearizes the first call it can,
// and backtracks on reaching a return, until the list is empty (searchOK),
// there is nothing left to undo (searchIllegal) or the budget is spent.
func (s *searcher) walk() searchResult {
	state := uint64(0)
	entry := s.next[0]
	for s.next[0] != -1 {
		if s.steps++; s.steps > s.budget {
			return searchOver
		}
		if s.match[entry] >= 0 { // a call: try to linearize its operation now
			o := s.op[entry]
			ok, after := apply(state, s.ops[o])
			if ok && s.remember(o, after) {
				s.stack = append(s.stack, frame{entry, state})
				state = after
				s.lift(entry)
				entry = s.next[0]
			} else {
				entry = s.next[entry]
			}
			continue
		}
		// A return: its operation must be linearized before anything later,
		// so undo the last choice and try the next one.
		if len(s.stack) == 0 {
			return searchIllegal
		}
		top := s.stack[len(s.stack)-1]
		s.stack = s.stack[:len(s.stack)-1]
		entry, state = top.node, top.state
		s.remove(s.op[entry])
		s.unlift(entry)
		entry = s.next[entry]
	}
	if s.steps > s.budget { // the last memo entry's words
		return searchOver
	}
	return searchOK
}

func resize[T any](s []T, n int) []T {
	if cap(s) < n {
		return make([]T, n)
	}
	return s[:n]
}

// apply is Model's step on the state of one key: whether the operation's
// answer fits the state, and the state after it.
func apply(state uint64, h *check.HistoryOp) (bool, uint64) {
	var next, result uint64
	switch h.Input.Kind {
	case check.OpPut:
		next, result = h.Input.Value, state
	case check.OpGet:
		next, result = state, state
	case check.OpIncr:
		next = state + h.Input.Value
		result = next
	default:
		return true, state
	}
	return !h.Returned || h.Output == result, next
}

// remember adds operation o to the linearized set and reports whether that
// set with state is new to the memo, recording it if so; if not, it takes o
// out again. The memo keeps a set as its window: s.lo and the words from
// s.lo's to s.hi's (below s.lo every operation is in, from s.hi none is).
func (s *searcher) remember(o int32, state uint64) bool {
	s.add(o)
	key := s.hash ^ mix(state^0x9e3779b97f4a7c15)
	head, found := s.memo[key]
	if !found {
		head = -1
	}
	window := s.window()
	for m := head; m >= 0; m = s.memos[m].next {
		e := &s.memos[m]
		if e.state == state && e.lo == s.lo && slices.Equal(s.arena[e.at:e.at+e.words], window) {
			s.remove(o)
			return false
		}
	}
	s.memo[key] = int32(len(s.memos))
	s.memos = append(s.memos, memo{state: state, lo: s.lo, at: int32(len(s.arena)), words: int32(len(window)), next: head})
	s.arena = append(s.arena, window...)
	s.steps += len(window)
	return true
}

// window is the words of the linearized set from s.lo's to s.hi's.
func (s *searcher) window() []uint64 {
	if s.hi <= s.lo {
		return nil
	}
	return s.set[s.lo/64 : (s.hi-1)/64+1]
}

// add puts operation o in the linearized set.
func (s *searcher) add(o int32) {
	s.set[o/64] |= 1 << (o % 64)
	s.hash ^= mix(uint64(o) + 1)
	s.hi = max(s.hi, o+1)
	for s.lo == o && s.lo < s.hi { // the first one out, at most s.hi
		w := s.lo / 64
		free := ^s.set[w] >> (s.lo % 64)
		if free != 0 {
			s.lo += int32(bits.TrailingZeros64(free))
			break
		}
		s.lo, o = (w+1)*64, (w+1)*64
	}
	s.lo = min(s.lo, s.hi)
}

// remove takes operation o out of the linearized set.
func (s *searcher) remove(o int32) {
	s.set[o/64] &^= 1 << (o % 64)
	s.hash ^= mix(uint64(o) + 1)
	s.lo = min(s.lo, o)
	for s.hi == o+1 && s.hi > s.lo { // the last one in, at least s.lo-1
		w := (s.hi - 1) / 64
		in := s.set[w] << (63 - (s.hi-1)%64)
		if in != 0 {
			s.hi -= int32(bits.LeadingZeros64(in))
			break
		}
		s.hi, o = w*64, w*64-1
	}
	s.hi = max(s.hi, s.lo)
}

// mix is splitmix64's finaliser.
func mix(x uint64) uint64 {
	x ^= x >> 30
	x *= 0xbf58476d1ce4e5b9
	x ^= x >> 27
	x *= 0x94d049bb133111eb
	return x ^ x>>31
}

// lift takes a call node and its return node out of the list.
func (s *searcher) lift(call int32) {
	s.next[s.prev[call]] = s.next[call]
	s.prev[s.next[call]] = s.prev[call] // a call is never last: its return follows
	ret := s.match[call]
	s.next[s.prev[ret]] = s.next[ret]
	if s.next[ret] >= 0 {
		s.prev[s.next[ret]] = s.prev[ret]
	}
}

// unlift puts back what lift took out.
func (s *searcher) unlift(call int32) {
	ret := s.match[call]
	s.next[s.prev[ret]] = ret
	if s.next[ret] >= 0 {
		s.prev[s.next[ret]] = ret
	}
	s.next[s.prev[call]] = call
	s.prev[s.next[call]] = call
}
