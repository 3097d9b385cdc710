package check

import "fmt"

// OpKind is the kind of a client operation, in the oracle's own terms.
type OpKind uint8

// Operations of the key-value service the clients use.
const (
	OpNoop OpKind = iota
	OpPut         // returns the previous value
	OpGet         // returns the current value
	OpIncr        // adds Value, returns the new value: a re-execution shows
)

// Op is one client operation.
type Op struct {
	Kind  OpKind
	Key   uint32
	Value uint64
}

// kvModel is the oracle's own key-value service: what the clients were
// promised, written independently of the replica's state machine.
type kvModel struct {
	kv []uint64 // by key
	// hash is StateHash of kv, kept up to date one write at a time.
	hash uint64
}

func (m *kvModel) apply(op Op) uint64 {
	for uint32(len(m.kv)) <= op.Key {
		m.kv = append(m.kv, 0)
	}
	v := &m.kv[op.Key]
	old := *v
	var result uint64
	switch op.Kind {
	case OpPut:
		result = old
		*v = op.Value
	case OpGet:
		return *v
	case OpIncr:
		*v += op.Value
		result = *v
	default:
		return 0
	}
	m.hash += entryHash(op.Key, *v) - entryHash(op.Key, old)
	return result
}

// StateHash is the oracle's digest of a key-value state given as values by
// key: a sum of one mixed word per non-zero key, so the model keeps it one
// write at a time and the harness computes it from a state a replica
// installed, in the same words.
func StateHash(kv []uint64) uint64 {
	var h uint64
	for k, v := range kv {
		h += entryHash(uint32(k), v)
	}
	return h
}

func entryHash(key uint32, v uint64) uint64 {
	if v == 0 {
		return 0
	}
	x := v ^ uint64(key)<<56 ^ 0x9e3779b97f4a7c15
	x ^= x >> 31
	x *= 0xbf58476d1ce4e5b9
	x ^= x >> 29
	x *= 0x94d049bb133111eb
	return x ^ x>>32
}

// clientRecord is one client's requests as it issued them, and the op each
// was executed at.
type clientRecord struct {
	reqs []requestRecord // by request number - 1
}

type requestRecord struct {
	op       Op
	issued   bool
	executed uint64 // op number it was committed at (0: not yet)
	// inLiveness: issued after the liveness phase began, so a reply to it
	// shows the healed core serving, not only finishing old work.
	inLiveness bool
}

// Request records that client (by index) issued request number request with
// operation op. Retries reuse the number and the operation.
func (c *Checker) Request(client int, request uint64, op Op) {
	if client < 0 || client >= len(c.clients) || request == 0 {
		return
	}
	cl := &c.clients[client]
	cl.reqs = grow(cl.reqs, request-1)
	cl.reqs[request-1] = requestRecord{op: op, issued: true, inLiveness: c.live.active}
}

func (c *Checker) request(client int, request uint64) *requestRecord {
	if client < 0 || client >= len(c.clients) || request == 0 || request > uint64(len(c.clients[client].reqs)) {
		return nil
	}
	r := &c.clients[client].reqs[request-1]
	if !r.issued {
		return nil
	}
	return r
}

// HistoryOp is one client operation as its client saw it: the history a
// linearizability check reads.
type HistoryOp struct {
	Client   int
	Input    Op
	Output   uint64
	Call     uint64
	Return   uint64
	Returned bool
}

// ExecutedAt returns the op a client's request committed at, if it did.
func (c *Checker) ExecutedAt(client int, request uint64) (uint64, bool) {
	if r := c.request(client, request); r != nil && r.executed != 0 {
		return r.executed, true
	}
	return 0, false
}

var opKindNames = [...]string{OpNoop: "noop", OpPut: "put", OpGet: "get", OpIncr: "incr"}

func (o Op) String() string {
	switch o.Kind {
	case OpPut, OpIncr:
		return fmt.Sprintf("%s(%d,%d)", opKindNames[o.Kind], o.Key, o.Value)
	case OpGet:
		return fmt.Sprintf("get(%d)", o.Key)
	}
	return "noop"
}
