package sim

import (
	"io"
	"strconv"

	"vsrsim/packetsim"
	"vsrsim/replica"
)

// Trace is the run's canonical event log. Every line's canonical text is hashed
// (FNV-1a, 64 bit); the hash is the run's determinism fingerprint. A sink, when
// set, gets each line with its structured fields too; those fields are derived
// from the same message or event, so they add nothing the hash does not cover.
type Trace struct {
	hash  uint64
	lines uint64
	buf   []byte
	sink  Sink
	rec   Record // the structured fields of the line being built
	// msg and ev hold copies for rec: pointing rec at the caller's value would
	// move a delivery's message to the heap on every packet, traced or not.
	msg   replica.Message
	ev    replica.Event
	err   error
	tail  [][]byte // the last lines, for failure reports
	tailN int
}

const (
	fnvOffset = 14695981039346656037
	fnvPrime  = 1099511628211
	tailLines = 40
)

// newTrace writes NDJSON lines to w, if it is not nil, and hands every record
// to observer, if it is not nil.
func newTrace(w io.Writer, observer Sink, replicas int) *Trace {
	t := &Trace{hash: fnvOffset, buf: make([]byte, 0, 256), tail: make([][]byte, tailLines)}
	switch {
	case w != nil && observer != nil:
		t.sink = tee{NewNDJSON(w, TraceFilter{}), observer}
	case w != nil:
		t.sink = NewNDJSON(w, TraceFilter{})
	case observer != nil:
		t.sink = observer
	}
	t.rec = Record{Replicas: replicas, Node: -1}
	return t
}

// tee hands a record to two sinks.
type tee [2]Sink

func (s tee) Record(r *Record) error {
	if err := s[0].Record(r); err != nil {
		return err
	}
	return s[1].Record(r)
}

// message sets the structured fields of the next line, a send, delivery or
// drop of packet id.
func (t *Trace) message(m *replica.Message, id uint64, drop packetsim.DropReason, dup bool) {
	if t.sink != nil {
		t.msg = *m
		t.rec.Msg, t.rec.Packet, t.rec.Drop, t.rec.Dup = &t.msg, id, drop, dup
	}
}

// event sets the structured fields of the next line, a replica event.
func (t *Trace) event(e *replica.Event) {
	if t.sink != nil {
		t.ev = *e
		t.rec.Event = &t.ev
	}
}

// node sets the replica of the next line, a crash or restart.
func (t *Trace) node(i int) {
	if t.sink != nil {
		t.rec.Node = i
	}
}

// begin starts a line at tick with its kind word.
func (t *Trace) begin(tick uint64, kind string) []byte {
	b := t.buf[:0]
	b = append(b, "t="...)
	b = strconv.AppendUint(b, tick, 10)
	b = append(b, ' ')
	b = append(b, kind...)
	b = append(b, ' ')
	return b
}

// end hashes the finished line and writes it.
func (t *Trace) end(tick uint64, kind string, b []byte) {
	t.buf = b
	h := t.hash
	for _, c := range b {
		h ^= uint64(c)
		h *= fnvPrime
	}
	h ^= '\n'
	h *= fnvPrime
	t.hash = h
	t.lines++
	slot := t.tail[t.tailN%tailLines]
	t.tail[t.tailN%tailLines] = append(slot[:0], b...)
	t.tailN++
	if t.sink != nil {
		r := &t.rec
		if t.err == nil {
			r.Tick, r.Kind, r.Line = tick, kind, b
			t.err = t.sink.Record(r)
		}
		*r = Record{Replicas: r.Replicas, Node: -1}
	}
}

// Hash is the trace hash so far, as 16 hex digits.
func (t *Trace) Hash() string {
	s := strconv.FormatUint(t.hash, 16)
	for len(s) < 16 {
		s = "0" + s
	}
	return s
}

// Lines is how many lines were traced.
func (t *Trace) Lines() uint64 { return t.lines }

// Tail returns the last lines traced, oldest first.
func (t *Trace) Tail() []string {
	n := t.tailN
	if n > tailLines {
		n = tailLines
	}
	out := make([]string, 0, n)
	for i := t.tailN - n; i < t.tailN; i++ {
		out = append(out, string(t.tail[i%tailLines]))
	}
	return out
}
