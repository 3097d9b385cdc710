package sim

// Recording collects the faults a swarm run injected at random or aimed, so the run
// can be written out as an explicit scenario file (scenarios.Record). It only
// observes: a run with a Recording draws and does exactly what it does
// without one.
type Recording struct {
	Faults []RecordedFault
	// Core is the liveness core the run used; nil if the run ended before
	// the liveness phase.
	Core []int
	// LivenessCuts are the links among replicas the harness held down as
	// the liveness phase began (a source protocol's replicas outside the
	// core cut off, kept aimed cuts), which a file states as a setting.
	LivenessCuts []Link
	// Isolated are the replicas outside the core a source protocol's
	// liveness phase cut off whole, in order, each with its trace note.
	Isolated []int
	// Healed are the replicas outside the core whose cut-off would have
	// stranded an op, healed instead (D64), in order.
	Healed []int

	cut, clogged []bool // per node link at the end of the last tick seen
}

// Link is one directed link between nodes (clients after the replicas).
type Link struct{ From, To int }

// RecordedFault is one injected fault at the tick it took effect.
type RecordedFault struct {
	Tick uint64
	// Verb is crash, restart (Node set), cut, uncut, clog or unclog (From,
	// To set: a directed link between nodes), or note (Text: the trace note
	// an aimed fault made, so a replay's trace has it too).
	Verb     string
	Node     int
	From, To int
	Text     string
}

func (r *Recording) node(tick uint64, verb string, i int) {
	r.Faults = append(r.Faults, RecordedFault{Tick: tick, Verb: verb, Node: i})
}

// links notes the random and aimed cuts and the clogs that began or ended
// this tick, clients' links included. The run has no scripted cut or hold
// when it records, so a cut link is a random partition's or an aimed fault's.
func (r *Recording) links(c *Cluster) {
	n := c.nodes()
	if r.cut == nil {
		r.cut, r.clogged = make([]bool, n*n), make([]bool, n*n)
	}
	// Cuts first, then clogs, so that a partition's cuts from one replica
	// sit together and a file can write them as one line.
	for _, clog := range []bool{false, true} {
		for a := 0; a < n; a++ {
			for b := 0; b < n; b++ {
				if a == b {
					continue
				}
				l := a*n + b
				switch {
				case !clog && !c.net.Connected(a, b) != r.cut[l]:
					r.cut[l] = !r.cut[l]
					r.link(c.now, pick(r.cut[l], "cut", "uncut"), a, b)
				case clog && c.net.Clogged(a, b) != r.clogged[l]:
					r.clogged[l] = !r.clogged[l]
					r.link(c.now, pick(r.clogged[l], "clog", "unclog"), a, b)
				}
			}
		}
	}
}

// livenessStart notes the links among replicas the liveness phase begins
// with down. A file cannot act in the liveness phase, so the record stops
// here; the cut-offs that follow replay from LivenessCuts (aimedInLiveness).
func (r *Recording) livenessStart(c *Cluster) {
	n := c.cfg.Replicas
	for a := 0; a < n; a++ {
		for b := 0; b < n; b++ {
			if a != b && !c.net.Connected(a, b) {
				r.LivenessCuts = append(r.LivenessCuts, Link{a, b})
			}
		}
	}
}

func (r *Recording) link(tick uint64, verb string, a, b int) {
	r.Faults = append(r.Faults, RecordedFault{Tick: tick, Verb: verb, From: a, To: b})
}

func pick(on bool, yes, no string) string {
	if on {
		return yes
	}
	return no
}

// noteRecorded writes a trace note that a recorded file repeats as a note
// action at the same tick.
func (c *Cluster) noteRecorded(text string) {
	c.Note(text)
	if r := c.recording; r != nil {
		r.Faults = append(r.Faults, RecordedFault{Tick: c.now, Verb: "note", Text: text})
	}
}

func (c *Cluster) recordNode(verb string, i int) {
	if c.recording != nil {
		c.recording.node(c.now, verb, i)
	}
}
