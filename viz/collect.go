// Package viz turns one run's trace records into pictures for triage: a
// Chrome/Perfetto trace-event file and an SVG timeline. A Collector watches the
// run as a sim.Sink (it never changes the run or its hash); the writers draw
// from what it kept once the run is over.
package viz

import (
	"vsrsim/sim"
	"vsrsim/vsr"
)

// subTicks spreads the records of one tick over distinct timestamps, so the
// order inside a tick survives in the pictures: timestamp = tick*subTicks + k.
const subTicks = 1000

// Span is a stretch of one replica's life: a status and view, or "crashed".
type Span struct {
	From, To uint64 // timestamps; To is the start of the next span
	Status   string
	View     uint64
}

// CommitPoint is a replica's commit numbers after a change.
type CommitPoint struct {
	At       uint64
	Min, Max uint64 // commit_min (applied), commit_max (highest commit heard of)
}

// Packet is one message copy: its send, and its delivery or drop.
type Packet struct {
	ID       uint64
	From, To int // node ids; at or above Replicas a client
	Command  string
	Op       uint64
	HasOp    bool
	Sent     uint64 // timestamp
	Done     uint64 // timestamp of the delivery or drop; 0 while in flight
	Dropped  bool
	Reason   string
	Dup      bool
}

// Mark is a point event: a crash, restart, phase change or scenario note.
type Mark struct {
	At      uint64
	Kind    string
	Replica int // -1 for phase and note
	Text    string
}

// Collector keeps what the pictures need from a run's records.
type Collector struct {
	Replicas, Clients int

	Spans   [][]Span        // per replica, in time order
	Commits [][]CommitPoint // per replica, in time order
	Packets []Packet        // in send order, then duplicates as they arrive
	Marks   []Mark
	End     uint64 // the last timestamp seen

	open   []int          // per replica, index of its open span or -1
	commit [][2]uint64    // per replica: commit_min, commit_max
	sent   map[uint64]int // packet id -> index in Packets of its original
	tick   uint64
	sub    uint64
}

// NewCollector watches a run of replicas replicas and clients clients.
func NewCollector(replicas, clients int) *Collector {
	c := &Collector{
		Replicas: replicas, Clients: clients,
		Spans:   make([][]Span, replicas),
		Commits: make([][]CommitPoint, replicas),
		open:    make([]int, replicas),
		commit:  make([][2]uint64, replicas),
		sent:    map[uint64]int{},
	}
	for i := range c.open {
		c.open[i] = -1
	}
	return c
}

// Tick is the virtual tick of a timestamp.
func Tick(ts uint64) uint64 { return ts / subTicks }

func (c *Collector) stamp(tick uint64) uint64 {
	if tick != c.tick {
		c.tick, c.sub = tick, 0
	}
	ts := tick*subTicks + min(c.sub, subTicks-1)
	c.sub++
	c.End = ts
	return ts
}

// Record implements sim.Sink.
func (c *Collector) Record(r *sim.Record) error {
	ts := c.stamp(r.Tick)
	switch r.Kind {
	case "send":
		m := r.Msg
		op, hasOp := r.Op()
		c.sent[r.Packet] = len(c.Packets)
		c.Packets = append(c.Packets, Packet{ID: r.Packet, From: m.From, To: m.To, Command: m.Command.String(),
			Op: op, HasOp: hasOp, Sent: ts})
	case "recv", "drop":
		c.arrive(r, ts)
	case "event":
		c.event(r.Event, ts)
	case "crash":
		c.startSpan(r.Node, ts, "crashed", 0)
		c.Marks = append(c.Marks, Mark{At: ts, Kind: "crash", Replica: r.Node})
	case "restart":
		c.closeSpan(r.Node, ts)
		c.Marks = append(c.Marks, Mark{At: ts, Kind: "restart", Replica: r.Node})
	case "phase", "note":
		c.Marks = append(c.Marks, Mark{At: ts, Kind: r.Kind, Replica: -1, Text: string(r.Line)})
	}
	return nil
}

func (c *Collector) arrive(r *sim.Record, ts uint64) {
	i, ok := c.sent[r.Packet]
	if !ok {
		return
	}
	p := &c.Packets[i]
	if r.Dup {
		// The replayed copy is a packet of its own on the picture, with the
		// same send.
		dup := *p
		dup.Dup, dup.Done, dup.Dropped, dup.Reason = true, 0, false, ""
		c.Packets = append(c.Packets, dup)
		p = &c.Packets[len(c.Packets)-1]
	}
	p.Done = ts
	if r.Kind == "drop" {
		p.Dropped, p.Reason = true, r.Drop.String()
		return
	}
	m := r.Msg
	if m.To < c.Replicas {
		// What a replica hears raises the highest commit it knows of.
		switch m.Command {
		case vsr.CmdCommit:
			c.raiseCommit(m.To, ts, c.commit[m.To][0], m.Commit().Commit)
		case vsr.CmdStartView:
			c.raiseCommit(m.To, ts, c.commit[m.To][0], m.StartView().Commit)
		case vsr.CmdDoViewChange:
			c.raiseCommit(m.To, ts, c.commit[m.To][0], m.DoViewChange().Commit)
		case vsr.CmdPrepare:
			c.raiseCommit(m.To, ts, c.commit[m.To][0], m.Prepare().Header.Commit)
		}
	}
}

func (c *Collector) event(e *vsr.Event, ts uint64) {
	switch e.Kind {
	case vsr.EvStatus:
		p := e.StatusChanged()
		c.startSpan(e.Replica, ts, p.Status.String(), p.View)
		c.raiseCommit(e.Replica, ts, c.commit[e.Replica][0], p.Commit)
	case vsr.EvCommit:
		c.raiseCommit(e.Replica, ts, e.Op, e.Op)
	case vsr.EvTransferInstall:
		c.raiseCommit(e.Replica, ts, e.Op, e.Op)
	}
}

func (c *Collector) raiseCommit(i int, ts, lo, hi uint64) {
	cm := &c.commit[i]
	lo, hi = max(cm[0], lo), max(cm[1], hi, lo)
	if lo == cm[0] && hi == cm[1] {
		return
	}
	cm[0], cm[1] = lo, hi
	c.Commits[i] = append(c.Commits[i], CommitPoint{At: ts, Min: lo, Max: hi})
}

func (c *Collector) startSpan(i int, ts uint64, status string, view uint64) {
	c.closeSpan(i, ts)
	if status == "crashed" {
		// A restarted replica starts again from its checkpoint: what it had
		// applied in memory is gone.
		c.commit[i] = [2]uint64{}
		c.Commits[i] = append(c.Commits[i], CommitPoint{At: ts})
	}
	c.open[i] = len(c.Spans[i])
	c.Spans[i] = append(c.Spans[i], Span{From: ts, Status: status, View: view})
}

func (c *Collector) closeSpan(i int, ts uint64) {
	if k := c.open[i]; k >= 0 {
		c.Spans[i][k].To = ts
		c.open[i] = -1
	}
}

// Finish closes the spans still open at the end of the run.
func (c *Collector) Finish() {
	for i := range c.open {
		c.closeSpan(i, c.End+1)
	}
}

// Node names a node as the trace does: r<i> or c<j>.
func (c *Collector) Node(id int) string {
	return string(vsr.AppendNode(nil, id, c.Replicas))
}
