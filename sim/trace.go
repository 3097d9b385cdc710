package sim

import (
	"strconv"

	"vsrsim/packetsim"
	"vsrsim/vsr"
)

// Trace is the run's canonical event log. Every line is hashed in its compact
// binary form (replica.Line: 64-bit words, no text); the hash is the run's
// determinism fingerprint. Text is made only on demand: for a sink, when one
// is set, and for the tail of a failed run, from a ring of the last lines'
// records. A sink gets each line's text with its structured fields; those come
// from the same message or event, so they add nothing the hash does not cover.
type Trace struct {
	hash     uint64
	lines    uint64
	replicas int
	buf      []byte
	sink     Sink
	textless bool   // the sink is a FieldSink
	rec      Record // the record handed to the sink, reused
	err      error
	// ring holds the last tailLines lines' records, next is where the next
	// line goes. Entries are reused in place, so a run's lines allocate
	// nothing.
	ring [tailLines]entry
	next int
}

// lineKind is the kind of a trace line; its number is part of the hash.
type lineKind uint8

const (
	lineSend lineKind = iota + 1
	lineRecv
	lineDrop
	lineEvent
	lineCrash
	lineRestart
	lineText // phase and note: free text, kept whole
)

var lineKindNames = [...]string{lineSend: "send", lineRecv: "recv", lineDrop: "drop", lineEvent: "event",
	lineCrash: "crash", lineRestart: "restart"}

// entry is one line's record: enough to format its text again. A message's
// slices are shared, not copied: a message is never mutated after it is sent.
type entry struct {
	tick   uint64
	kind   lineKind
	node   int // crash, restart
	packet uint64
	drop   packetsim.DropReason
	dup    bool
	msg    vsr.Message // send, recv, drop
	ev     vsr.Event   // event
	text   []byte      // lineText: the whole line
	word   string      // lineText: its kind word
}

const tailLines = 40

// newTrace hands every record to observer, if it is not nil.
// A trace spare holds is cleared and reused.
func newTrace(observer Sink, replicas int, spare *Spare) *Trace {
	var t *Trace
	if spare != nil && spare.trace != nil {
		t, spare.trace = spare.trace, nil
		*t = Trace{hash: fnvOffset, replicas: replicas, buf: t.buf[:0]}
	} else {
		t = &Trace{hash: fnvOffset, replicas: replicas, buf: make([]byte, 0, 256)}
	}
	t.sink = observer
	_, t.textless = observer.(FieldSink)
	t.rec = Record{Replicas: replicas, Node: -1}
	return t
}

// fnvOffset seeds the hash (the FNV-1a offset basis, kept from the text hash).
const fnvOffset = 14695981039346656037

// open hashes a line's tick and kind and returns its ring entry.
func (t *Trace) open(tick uint64, kind lineKind, l *vsr.Line) *entry {
	l.H = t.hash
	l.Word(tick)
	l.Word(uint64(kind))
	e := &t.ring[t.next]
	t.next++
	if t.next == tailLines {
		t.next = 0
	}
	e.tick, e.kind = tick, kind
	return e
}

// close stores the line's hash and hands the line to the sink.
func (t *Trace) close(e *entry, l *vsr.Line) {
	t.hash = l.H
	t.lines++
	if t.sink == nil || t.err != nil {
		return
	}
	r := &t.rec
	*r = Record{Replicas: t.replicas, Node: -1, Tick: e.tick, Kind: e.kindWord()}
	if !t.textless {
		t.buf = t.format(t.buf[:0], e)
		r.Line = t.buf
	}
	switch e.kind {
	case lineSend, lineRecv, lineDrop:
		r.Msg, r.Packet, r.Drop, r.Dup = &e.msg, e.packet, e.drop, e.dup
	case lineEvent:
		r.Event = &e.ev
	case lineCrash, lineRestart:
		r.Node = e.node
	}
	t.err = t.sink.Record(r)
}

// message traces a send, delivery or drop of packet id.
func (t *Trace) message(tick uint64, kind lineKind, m *vsr.Message, id uint64, drop packetsim.DropReason, dup bool) {
	var l vsr.Line
	e := t.open(tick, kind, &l)
	l.Word(uint64(drop))
	l.Message(m, t.replicas)
	if dup {
		l.Word(1)
	}
	e.msg, e.packet, e.drop, e.dup = *m, id, drop, dup
	t.close(e, &l)
}

// event traces a replica event.
func (t *Trace) event(tick uint64, ev *vsr.Event) {
	var l vsr.Line
	e := t.open(tick, lineEvent, &l)
	l.Event(ev)
	e.ev = *ev
	t.close(e, &l)
}

// node traces a crash or restart of replica i.
func (t *Trace) node(tick uint64, kind lineKind, i int) {
	var l vsr.Line
	e := t.open(tick, kind, &l)
	l.Word(uint64(i))
	e.node = i
	t.close(e, &l)
}

// begin starts a free-text line (phase, note) at tick with its kind word.
func (t *Trace) begin(tick uint64, kind string) []byte {
	b := t.buf[:0]
	b = append(b, "t="...)
	b = strconv.AppendUint(b, tick, 10)
	b = append(b, ' ')
	b = append(b, kind...)
	b = append(b, ' ')
	return b
}

// end traces the free-text line b that begin started.
func (t *Trace) end(tick uint64, kind string, b []byte) {
	var l vsr.Line
	e := t.open(tick, lineText, &l)
	l.Bytes(b)
	e.text = append(e.text[:0], b...)
	e.word = kind
	t.buf = b
	t.close(e, &l)
}

func (e *entry) kindWord() string {
	if e.kind == lineText {
		return e.word
	}
	return lineKindNames[e.kind]
}

// format appends e's canonical text.
func (t *Trace) format(b []byte, e *entry) []byte {
	if e.kind == lineText {
		return append(b, e.text...)
	}
	b = append(b, "t="...)
	b = strconv.AppendUint(b, e.tick, 10)
	b = append(b, ' ')
	b = append(b, lineKindNames[e.kind]...)
	b = append(b, ' ')
	switch e.kind {
	case lineCrash, lineRestart:
		b = vsr.AppendNode(b, e.node, t.replicas)
	case lineEvent:
		b = vsr.AppendEvent(b, &e.ev)
	case lineDrop:
		b = append(b, e.drop.String()...)
		b = append(b, ' ')
		b = vsr.AppendMessage(b, &e.msg, t.replicas)
	case lineSend, lineRecv:
		b = vsr.AppendMessage(b, &e.msg, t.replicas)
		if e.dup {
			b = append(b, " dup"...)
		}
	}
	return b
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

// Tail returns the last lines traced, oldest first, as text.
func (t *Trace) Tail() []string {
	n := min(t.lines, tailLines)
	out := make([]string, 0, n)
	for k := tailLines - int(n); k < tailLines; k++ {
		e := &t.ring[(t.next+k)%tailLines]
		out = append(out, string(t.format(nil, e)))
	}
	return out
}
