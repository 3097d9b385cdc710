package sim

import (
	"io"
	"strconv"
)

// Trace is the run's canonical event log. Every line is hashed (FNV-1a, 64 bit);
// the hash is the run's determinism fingerprint. Lines are written as NDJSON when
// a writer is set.
type Trace struct {
	hash  uint64
	lines uint64
	buf   []byte
	json  []byte
	w     io.Writer
	err   error
	tail  [][]byte // the last lines, for failure reports
	tailN int
}

const (
	fnvOffset = 14695981039346656037
	fnvPrime  = 1099511628211
	tailLines = 40
)

func newTrace(w io.Writer) *Trace {
	t := &Trace{hash: fnvOffset, w: w, buf: make([]byte, 0, 256), tail: make([][]byte, tailLines)}
	return t
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
	if t.w != nil && t.err == nil {
		j := t.json[:0]
		j = append(j, `{"tick":`...)
		j = strconv.AppendUint(j, tick, 10)
		j = append(j, `,"kind":`...)
		j = strconv.AppendQuote(j, kind)
		j = append(j, `,"line":`...)
		j = strconv.AppendQuote(j, string(b))
		j = append(j, "}\n"...)
		t.json = j
		_, t.err = t.w.Write(j)
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
