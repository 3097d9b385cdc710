// Package ndjson writes a run's trace as NDJSON, the trace file of `vsrsim run
// --trace`: a sim.Sink, attached to a run as sim.Attach.Observer, with a
// filter that cuts lines from the file and never touches the hash.
package ndjson

import (
	"encoding/json"
	"io"
	"strconv"
	"unicode/utf8"

	"vsrsim/sim"
	"vsrsim/vsr"
)

// Writer writes a run's trace as one JSON object per line: an optional header
// (seed, scenario, bugs, options), one line per kept record with its
// structured fields, and an optional trailer (verdict, evidence, trace hash).
// A filter cuts lines from the file only; the hash always covers every line.
type Writer struct {
	w       io.Writer
	filter  Filter
	buf     []byte
	written uint64
}

// New writes records that pass filter to w.
func New(w io.Writer, filter Filter) *Writer {
	return &Writer{w: w, filter: filter, buf: make([]byte, 0, 512)}
}

// Record writes one line if the filter keeps it.
func (n *Writer) Record(r *sim.Record) error {
	if !n.filter.Keep(r) {
		return nil
	}
	n.buf = appendRecordJSON(n.buf[:0], r)
	n.written++
	_, err := n.w.Write(n.buf)
	return err
}

// traceHeader is the first line of a trace file.
type traceHeader struct {
	Kind     string       `json:"kind"` // "header"
	Seed     uint64       `json:"seed"`
	SeedHex  string       `json:"seed_hex"`
	Scenario string       `json:"scenario"`
	Bugs     []string     `json:"bugs"`
	Replicas int          `json:"replicas"`
	Clients  int          `json:"clients"`
	Options  []sim.Option `json:"options"`
	Filter   string       `json:"filter,omitempty"`
}

// traceTrailer is the last line of a trace file.
type traceTrailer struct {
	Kind      string      `json:"kind"` // "trailer"
	Verdict   sim.Verdict `json:"verdict"`
	Invariant string      `json:"invariant"`
	Evidence  string      `json:"evidence"`
	TraceHash string      `json:"trace_hash"`
	Ticks     uint64      `json:"ticks"`
	Events    uint64      `json:"events"`
	Written   uint64      `json:"lines_written"` // event lines in this file, after the filter
}

// Header writes the header line; options is the run's option dump.
func (n *Writer) Header(cfg *sim.Config, options []sim.Option) error {
	bugs := cfg.Bugs.Names()
	if bugs == nil {
		bugs = []string{}
	}
	return n.writeJSON(traceHeader{
		Kind: "header", Seed: cfg.Seed, SeedHex: "0x" + strconv.FormatUint(cfg.Seed, 16),
		Scenario: cfg.Scenario, Bugs: bugs, Replicas: cfg.Replicas, Clients: cfg.Clients,
		Options: options, Filter: n.filter.String(),
	})
}

// Trailer writes the trailer line for the run's final result.
func (n *Writer) Trailer(res *sim.Result) error {
	return n.writeJSON(traceTrailer{
		Kind: "trailer", Verdict: res.Verdict, Invariant: res.Invariant, Evidence: res.Evidence,
		TraceHash: res.TraceHash, Ticks: res.Ticks, Events: res.Events, Written: n.written,
	})
}

func (n *Writer) writeJSON(v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	_, err = n.w.Write(append(b, '\n'))
	return err
}

// appendRecordJSON is one event line. It appends to b without allocating, so
// a traced run costs no more allocations than an untraced one.
func appendRecordJSON(b []byte, r *sim.Record) []byte {
	b = append(b, `{"tick":`...)
	b = strconv.AppendUint(b, r.Tick, 10)
	b = appendStr(b, "kind", r.Kind)
	b = append(b, `,"line":`...)
	b = appendJSONString(b, r.Line)
	if i, ok := r.Replica(); ok {
		b = appendNum(b, "replica", uint64(i))
	}
	if i, ok := r.Peer(); ok {
		b = appendNum(b, "peer", uint64(i))
	}
	if i, ok := r.Client(); ok {
		b = appendNum(b, "client", uint64(i))
	}
	switch {
	case r.Msg != nil:
		b = appendMsgJSON(b, r)
	case r.Event != nil:
		b = appendEventJSON(b, r.Event)
	}
	return append(b, "}\n"...)
}

// appendMsgJSON is the fields of a line about a message.
func appendMsgJSON(b []byte, r *sim.Record) []byte {
	m := r.Msg
	f := sim.MessageFields(m)
	b = appendStr(b, "msg", m.Command.String())
	b = appendNum(b, "view", m.View)
	b = appendOpt(b, "op", f.Op, f.HasOp)
	b = appendOpt(b, "commit", f.Commit, f.HasCommit)
	b = appendHexOpt(b, "checksum", f.Checksum, f.HasSum)
	b = appendHexOpt(b, "parent", f.Parent, f.HasParent)
	b = appendNum(b, "packet", r.Packet)
	if r.Kind == "drop" {
		b = appendStr(b, "reason", r.Drop.String())
	}
	if r.Dup {
		b = append(b, `,"dup":true`...)
	}
	return b
}

// appendEventJSON is the fields of a line about a replica's event.
func appendEventJSON(b []byte, e *vsr.Event) []byte {
	f := sim.EventFields(e.Kind)
	b = appendStr(b, "event", e.Kind.String())
	if f.View {
		b = appendNum(b, "view", e.View)
	}
	b = appendOpt(b, "op", e.Op, f.Op)
	var status vsr.StatusChanged
	if e.Kind == vsr.EvStatus {
		status = e.StatusChanged()
	}
	b = appendOpt(b, "commit", status.Commit, f.Commit)
	b = appendHexOpt(b, "checksum", e.Checksum, f.Checksum)
	b = appendHexOpt(b, "parent", eventParent(e), f.Parent)
	return appendEventKind(b, e, status)
}

// eventParent is the parent checksum an applied op or an ack names; the
// journal's kinds name none.
func eventParent(e *vsr.Event) uint64 {
	switch e.Kind {
	case vsr.EvCommit:
		return e.Applied().Parent
	case vsr.EvAck:
		return e.Acked().Parent
	}
	return 0
}

// appendEventKind appends the fields only one kind carries.
func appendEventKind(b []byte, e *vsr.Event, status vsr.StatusChanged) []byte {
	switch e.Kind {
	case vsr.EvStatus:
		b = appendStr(b, "status", status.Status.String())
		b = appendNum(b, "log_view", status.LogView)
	case vsr.EvDrop:
		d := e.Dropped()
		b = appendStr(b, "msg", d.Command.String())
		b = appendStr(b, "reason", d.Reason.String())
	case vsr.EvOfferRefused:
		b = appendStr(b, "reason", e.OfferRefused().Reason.String())
	case vsr.EvTimeout:
		if t := e.TimedOut().Timer; t != "" {
			b = appendStr(b, "reason", t)
		}
	}
	return b
}

func appendNum(b []byte, name string, v uint64) []byte {
	b = append(b, ',', '"')
	b = append(b, name...)
	b = append(b, '"', ':')
	return strconv.AppendUint(b, v, 10)
}

func appendOpt(b []byte, name string, v uint64, ok bool) []byte {
	if !ok {
		return b
	}
	return appendNum(b, name, v)
}

// appendHex writes a 64-bit checksum as 16 hex digits in a string: a JSON
// number would be rounded, and the canonical line's 4 digits are its tail.
// appendHexOpt is appendHex if ok.
func appendHexOpt(b []byte, name string, v uint64, ok bool) []byte {
	if !ok {
		return b
	}
	return appendHex(b, name, v)
}

func appendHex(b []byte, name string, v uint64) []byte {
	const digits = "0123456789abcdef"
	b = append(b, ',', '"')
	b = append(b, name...)
	b = append(b, `":"`...)
	for shift := 60; shift >= 0; shift -= 4 {
		b = append(b, digits[v>>uint(shift)&0xf])
	}
	return append(b, '"')
}

func appendStr(b []byte, name, v string) []byte {
	b = append(b, ',', '"')
	b = append(b, name...)
	b = append(b, '"', ':')
	return appendJSONString(b, v)
}

// appendJSONString quotes s as a JSON string. strconv's Go quoting is not
// JSON: it writes \x escapes that JSON readers refuse.
func appendJSONString[S ~string | ~[]byte](b []byte, s S) []byte {
	const hex = "0123456789abcdef"
	b = append(b, '"')
	for i := 0; i < len(s); {
		c := s[i]
		switch {
		case c == '"' || c == '\\':
			b = append(b, '\\', c)
			i++
		case c < 0x20:
			b = append(b, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xf])
			i++
		case c < utf8.RuneSelf:
			b = append(b, c)
			i++
		default:
			r, size := utf8.DecodeRuneInString(string(s[i:min(i+utf8.UTFMax, len(s))]))
			if r == utf8.RuneError && size == 1 {
				b = append(b, `\ufffd`...)
			} else {
				b = append(b, s[i:i+size]...)
			}
			i += size
		}
	}
	return append(b, '"')
}
