package viz

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"strconv"

	"vsrsim/sim"
)

// Perfetto's process ids: one process per kind of track.
const (
	pidReplicas = 1
	pidClients  = 2
	pidNetwork  = 3
	// tidClientNet offsets a client's message track from its operations
	// track: operations may share a tick with the next one's call, and a
	// message slice must nest inside whatever it overlaps.
	tidClientNet = 100
)

// traceEvent is one Chrome trace event ("JSON Array Format" inside an object).
// Times are microseconds: one tick is shown as one millisecond.
type traceEvent struct {
	Name string         `json:"name"`
	Cat  string         `json:"cat,omitempty"`
	Ph   string         `json:"ph"`
	Ts   uint64         `json:"ts"`
	Dur  *uint64        `json:"dur,omitempty"`
	Pid  int            `json:"pid"`
	Tid  int            `json:"tid"`
	ID   uint64         `json:"id,omitempty"`
	Bp   string         `json:"bp,omitempty"`
	S    string         `json:"s,omitempty"`
	Args map[string]any `json:"args,omitempty"`
}

// perfettoWriter streams events into the traceEvents array.
type perfettoWriter struct {
	w     *bufio.Writer
	enc   *json.Encoder
	first bool
	err   error
}

func (p *perfettoWriter) emit(e traceEvent) {
	if p.err != nil {
		return
	}
	if !p.first {
		_, p.err = p.w.WriteString(",")
	}
	p.first = false
	if p.err == nil {
		p.err = p.enc.Encode(e)
	}
}

func dur(d uint64) *uint64 { return &d }

// WritePerfetto writes the run as a Chrome trace-event JSON file, which
// ui.perfetto.dev and chrome://tracing open: a track per replica with its
// status and view as slices and its commit numbers as counters, message flows
// from send to delivery or drop, drops on a network track, crashes, restarts
// and phase changes as instant events, and each client's operations on a track
// of its own.
func WritePerfetto(out io.Writer, c *Collector, res *sim.Result) error {
	c.Finish()
	p := &perfettoWriter{w: bufio.NewWriter(out), first: true}
	p.enc = json.NewEncoder(p.w)
	p.enc.SetEscapeHTML(false)
	if _, err := fmt.Fprintf(p.w, `{"displayTimeUnit":"ms","otherData":{"seed":%q,"verdict":%q,"trace_hash":%q,"time":"1 tick = 1 ms"},"traceEvents":[`,
		"0x"+strconv.FormatUint(res.Seed, 16), res.Verdict, res.TraceHash); err != nil {
		return err
	}
	p.names(c)
	for i := range c.Spans {
		for _, s := range c.Spans[i] {
			name := s.Status
			if s.Status != "crashed" {
				name = fmt.Sprintf("%s v=%d", s.Status, s.View)
			}
			p.emit(traceEvent{Name: name, Cat: "status", Ph: "X", Ts: s.From, Dur: dur(s.To - s.From),
				Pid: pidReplicas, Tid: i, Args: map[string]any{"status": s.Status, "view": s.View}})
		}
		for _, cp := range c.Commits[i] {
			p.emit(traceEvent{Name: c.Node(i) + " commit", Ph: "C", Ts: cp.At, Pid: pidReplicas, Tid: i,
				Args: map[string]any{"commit_min": cp.Min, "commit_max": cp.Max}})
		}
	}
	p.packets(c)
	for _, m := range c.Marks {
		e := traceEvent{Name: m.Kind, Cat: "fault", Ph: "i", Ts: m.At, Pid: pidReplicas, Tid: m.Replica, S: "t"}
		if m.Replica < 0 {
			e.Cat, e.Tid, e.S, e.Args = "run", 0, "g", map[string]any{"line": m.Text}
		}
		p.emit(e)
	}
	for _, h := range res.History {
		end := c.End
		name := h.Input.String() + " (no reply)"
		if h.Returned {
			// The reply arrives during its tick: the slice covers it.
			end = h.Return*subTicks + subTicks - 1
			name = fmt.Sprintf("%s -> %d", h.Input, h.Output)
		}
		start := h.Call * subTicks
		p.emit(traceEvent{Name: name, Cat: "client", Ph: "X", Ts: start, Dur: dur(max(end, start) - start),
			Pid: pidClients, Tid: h.Client, Args: map[string]any{"call_tick": h.Call, "return_tick": h.Return, "returned": h.Returned}})
	}
	if p.err != nil {
		return p.err
	}
	if _, err := p.w.WriteString("]}\n"); err != nil {
		return err
	}
	return p.w.Flush()
}

// names labels the processes and threads, in a fixed order.
func (p *perfettoWriter) names(c *Collector) {
	meta := func(name string, pid, tid int, args map[string]any) {
		p.emit(traceEvent{Name: name, Ph: "M", Pid: pid, Tid: tid, Args: args})
	}
	for _, proc := range []struct {
		pid  int
		name string
	}{{pidReplicas, "replicas"}, {pidClients, "clients"}, {pidNetwork, "network"}} {
		meta("process_name", proc.pid, 0, map[string]any{"name": proc.name})
		meta("process_sort_index", proc.pid, 0, map[string]any{"sort_index": proc.pid})
	}
	for i := 0; i < c.Replicas; i++ {
		meta("thread_name", pidReplicas, i, map[string]any{"name": c.Node(i)})
		meta("thread_sort_index", pidReplicas, i, map[string]any{"sort_index": i})
	}
	for j := 0; j < c.Clients; j++ {
		node := c.Node(c.Replicas + j)
		meta("thread_name", pidClients, j, map[string]any{"name": node + " operations"})
		meta("thread_name", pidClients, tidClientNet+j, map[string]any{"name": node + " messages"})
		meta("thread_sort_index", pidClients, j, map[string]any{"sort_index": 2 * j})
		meta("thread_sort_index", pidClients, tidClientNet+j, map[string]any{"sort_index": 2*j + 1})
	}
	meta("thread_name", pidNetwork, 0, map[string]any{"name": "drops"})
}

// thread is the track a node's messages go on.
func (c *Collector) thread(node int) (pid, tid int) {
	if node < c.Replicas {
		return pidReplicas, node
	}
	return pidClients, tidClientNet + node - c.Replicas
}

// packets draws each packet that reached its fate as a slice at the sender,
// a slice at the receiver (or on the drop track) and a flow arrow between.
func (p *perfettoWriter) packets(c *Collector) {
	for k, pk := range c.Packets {
		if pk.Done == 0 {
			continue // still in flight when the run ended
		}
		flow := uint64(k + 1)
		label := pk.Command
		if pk.HasOp {
			label += " op=" + strconv.FormatUint(pk.Op, 10)
		}
		args := map[string]any{"packet": pk.ID, "from": c.Node(pk.From), "to": c.Node(pk.To)}
		if pk.Dup {
			args["dup"] = true
		}
		pid, tid := c.thread(pk.From)
		p.emit(traceEvent{Name: "send " + label, Cat: "message", Ph: "X", Ts: pk.Sent, Dur: dur(1), Pid: pid, Tid: tid, Args: args})
		p.emit(traceEvent{Name: label, Cat: "message", Ph: "s", Ts: pk.Sent, Pid: pid, Tid: tid, ID: flow})
		name := "recv " + label
		pid, tid = c.thread(pk.To)
		if pk.Dropped {
			name = "drop " + pk.Reason + " " + label
			pid, tid = pidNetwork, 0
			args["reason"] = pk.Reason
		}
		p.emit(traceEvent{Name: name, Cat: "message", Ph: "X", Ts: pk.Done, Dur: dur(1), Pid: pid, Tid: tid, Args: args})
		p.emit(traceEvent{Name: label, Cat: "message", Ph: "f", Bp: "e", Ts: pk.Done, Pid: pid, Tid: tid, ID: flow})
	}
}
