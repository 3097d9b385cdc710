package fuzz

import (
	"slices"

	"vsrsim/marks"
	"vsrsim/replica"
	"vsrsim/sim"
)

// A feature is one condition a run reached, as a number: its kind in the top
// four bits, what it names below. Coverage is the set of features the
// search's runs reached; an input is kept when its run reached one no run
// before it did.
type Feature uint64

// The feature kinds.
const (
	KindMark  = 1 // a coverage mark (docs/marks.md)
	KindPair  = 2 // two marks reached in one run
	KindState = 3 // an abstract state of the cluster (watch)
)

const kindShift = 60

// Kind is f's kind.
func (f Feature) Kind() int { return int(f >> kindShift) }

func markFeature(m marks.Mark) Feature { return Feature(KindMark)<<kindShift | Feature(m) }

func pairFeature(a, b marks.Mark) Feature {
	return Feature(KindPair)<<kindShift | Feature(a)<<8 | Feature(b)
}

func stateFeature(sig uint64) Feature {
	return Feature(KindState)<<kindShift | Feature(sig&(1<<kindShift-1))
}

// features are the run's marks, its pairs of marks and the abstract states
// its watch saw, sorted.
func features(c *marks.Counts, states []uint64) []Feature {
	var reached []marks.Mark
	for m := marks.Mark(0); m < marks.Count; m++ {
		// A never-mark is a finding, not coverage to steer towards.
		if c.Reached(m) && m.Never() == "" {
			reached = append(reached, m)
		}
	}
	out := make([]Feature, 0, len(reached)*(len(reached)+1)/2+len(states))
	for i, a := range reached {
		out = append(out, markFeature(a))
		for _, b := range reached[i+1:] {
			out = append(out, pairFeature(a, b))
		}
	}
	for _, s := range states {
		out = append(out, stateFeature(s))
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// watch computes the run's abstract states from the trace's records: the
// statuses, views and commits the replicas reported and the harness's own
// crashes and restarts. It reads no replica state, as the oracle does not
// (D11). A state is a signature of
//
//   - per replica, as a multiset (replicas are interchangeable): down,
//     recovering, in view change or normal; for an up replica whether its
//     view is the highest any up replica holds; for a normal one in the
//     highest view whether it is the primary; and whether its commit is
//     behind the highest commit by more than a checkpoint interval;
//   - cluster-wide: the journal kind (memory, write-ahead, on disks) and the
//     cluster size.
//
// How many replicas are up, in view change or past a checkpoint behind are
// counts the multiset holds. Raw views and op numbers would make every run
// new; relative, bucketed values keep the set small enough that a new state
// means something (docs/fuzz.md has the figures).
type watch struct {
	n       int
	journal uint64
	ckpt    uint64
	up      []bool
	status  []replica.Status
	view    []uint64
	commit  []uint64
	codes   []uint8
	sorted  []uint8
	last    uint64
	seen    map[uint64]bool // looked up, never ranged over
	states  []uint64        // in the order first seen
	moments []uint64
}

// maxMoments bounds the ticks a run keeps as moments to aim new faults at.
const maxMoments = 64

func newWatch(cfg *sim.Config) *watch {
	n := cfg.Replicas
	w := &watch{n: n, ckpt: max(cfg.CheckpointInterval, 1), up: make([]bool, n), status: make([]replica.Status, n),
		view: make([]uint64, n), commit: make([]uint64, n), codes: make([]uint8, n), seen: map[uint64]bool{}}
	w.journal = uint64(cfg.Durability) + 1
	if cfg.Storage.On {
		w.journal += 8
	}
	for i := range w.up {
		w.up[i] = true
	}
	return w
}

// Record takes one trace record; it never fails the run.
func (w *watch) Record(r *sim.Record) error {
	switch r.Kind {
	case "crash":
		w.up[r.Node] = false
		w.moment(r.Tick)
	case "restart":
		w.up[r.Node] = true
		w.status[r.Node] = replica.StatusRecovering
	case "event":
		if !w.event(r.Tick, r.Event) {
			return nil
		}
	default:
		return nil
	}
	w.sign()
	return nil
}

// event applies a replica's report; false if it moves nothing a state holds.
func (w *watch) event(tick uint64, e *replica.Event) bool {
	i := e.Replica
	switch e.Kind {
	case replica.EvStatus:
		s := e.StatusChanged()
		if s.Status == replica.StatusViewChange && w.status[i] != replica.StatusViewChange {
			w.moment(tick)
		}
		w.status[i], w.view[i] = s.Status, s.View
	case replica.EvCommit:
		w.commit[i] = e.Op
	case replica.EvTransferInstall:
		w.commit[i] = e.Op
		w.moment(tick)
	case replica.EvRepairRequest:
		w.moment(tick)
		return false
	default:
		return false
	}
	return true
}

// moment keeps tick as one worth aiming a fault at, spaced out so a storm
// of view changes does not fill the list.
func (w *watch) moment(tick uint64) {
	if len(w.moments) < maxMoments && (len(w.moments) == 0 || tick >= w.moments[len(w.moments)-1]+50) {
		w.moments = append(w.moments, tick)
	}
}

// Replica classes of a state.
const (
	classDown = iota
	classRecovering
	classViewChange
	classViewChangeBehind
	classPrimary
	classBackup
	classNormalBehind
	classes
)

// code is replica i's class and commit lag, as one small number.
func (w *watch) code(i int, topView, topCommit uint64) uint8 {
	if !w.up[i] {
		return classDown
	}
	class := classRecovering
	switch {
	case w.status[i] == replica.StatusViewChange && w.view[i] >= topView:
		class = classViewChange
	case w.status[i] == replica.StatusViewChange:
		class = classViewChangeBehind
	case w.status[i] == replica.StatusNormal && w.view[i] < topView:
		class = classNormalBehind
	case w.status[i] == replica.StatusNormal && replica.PrimaryOf(w.view[i], w.n) == i:
		class = classPrimary
	case w.status[i] == replica.StatusNormal:
		class = classBackup
	}
	lag := topCommit - min(w.commit[i], topCommit)
	if lag > w.ckpt {
		return uint8(class + classes)
	}
	return uint8(class)
}

func (w *watch) sign() {
	var topView, topCommit uint64
	for i := 0; i < w.n; i++ {
		if w.up[i] {
			topView, topCommit = max(topView, w.view[i]), max(topCommit, w.commit[i])
		}
	}
	for i := 0; i < w.n; i++ {
		w.codes[i] = w.code(i, topView, topCommit)
	}
	sorted := append(w.sorted[:0], w.codes...)
	slices.Sort(sorted)
	h := uint64(14695981039346656037)
	mix := func(x uint64) { h = (h ^ x) * 1099511628211 }
	mix(w.journal)
	mix(uint64(w.n))
	for _, c := range sorted {
		mix(uint64(c))
	}
	if h == w.last {
		return
	}
	w.last = h
	if !w.seen[h] {
		w.seen[h] = true
		w.states = append(w.states, h)
	}
}

// FieldsOnly marks the watch as a sim.FieldSink: it reads no line's text.
func (w *watch) FieldsOnly() {}
