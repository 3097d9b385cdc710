package fuzz

import (
	"slices"

	"vsrsim/marks"
	"vsrsim/sim"
	"vsrsim/vsr"
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
	// KindOutcome is how the run ended: its verdict, how long the cluster
	// took to recover in the liveness phase (a power of two of ticks), and
	// whether the harness had to help it. A slow recovery is a liveness
	// failure's near miss.
	KindOutcome = 4
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

func outcomeFeatures(res *sim.Result) []Feature {
	rec := uint64(0)
	for t := res.RecoveryTicks; t > 0; t >>= 1 {
		rec++
	}
	verdict := uint64(0)
	for _, c := range res.Verdict {
		verdict = verdict*31 + uint64(c)
	}
	base := Feature(KindOutcome) << kindShift
	return []Feature{base | Feature(verdict&0xffffff)<<16, base | 1<<8 | Feature(rec), base | 2<<8 | Feature(min(len(res.Assists), 3))}
}

// features are the run's marks, its pairs of marks, the abstract states its
// watch saw and how it ended, sorted.
func features(res *sim.Result, states []uint64) []Feature {
	c := &res.Marks
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
	out = append(out, outcomeFeatures(res)...)
	slices.Sort(out)
	return slices.Compact(out)
}

// watch computes the run's abstract states from the trace's records: the
// statuses, views and commits the replicas reported and the harness's own
// crashes and restarts. It reads no replica state, as the oracle does not
// (D11). Each replica falls in one class: down, recovering, in view change
// (in the highest view any up replica holds, or behind it), normal behind
// the highest view, the primary or a backup of the highest view; and its
// commit is within a checkpoint interval of the highest commit or past it.
// A state is the count of replicas in each class and past a checkpoint
// behind (0, 1 or more), whether the replicas up are below, at or above a
// quorum, the journal kind (memory, write-ahead, on disks) and the cluster
// size.
//
// Raw views and op numbers would make every run new; relative, bucketed
// values keep the set small enough that a new state means something
// (docs/fuzz.md has the figures).
type watch struct {
	n       int
	journal uint64
	ckpt    uint64
	up      []bool
	status  []vsr.Status
	view    []uint64
	commit  []uint64
	codes   []uint8
	last    uint64
	tick    uint64
	dirty   bool            // a report changed the state since it was last taken
	seen    map[uint64]bool // looked up, never ranged over
	states  []uint64        // in the order first seen
	moments []uint64
}

// maxMoments bounds the ticks a run keeps as moments to aim new faults at.
const maxMoments = 64

func newWatch(cfg *sim.Config) *watch {
	n := cfg.Replicas
	w := &watch{n: n, ckpt: max(cfg.CheckpointInterval, 1), up: make([]bool, n), status: make([]vsr.Status, n),
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

// Record takes one trace record; it never fails the run. A state is taken
// as a tick ends, not after every record: the replicas of one tick move one
// by one, and the orders they happen to move in are not states the cluster
// holds.
func (w *watch) Record(r *sim.Record) error {
	if r.Tick != w.tick && w.dirty {
		w.sign()
		w.dirty = false
	}
	w.tick = r.Tick
	switch r.Kind {
	case "crash":
		w.up[r.Node] = false
		w.moment(r.Tick)
	case "restart":
		w.up[r.Node] = true
		w.status[r.Node] = vsr.StatusRecovering
	case "event":
		if !w.event(r.Tick, r.Event) {
			return nil
		}
	default:
		return nil
	}
	w.dirty = true
	return nil
}

// event applies a replica's report; false if it moves nothing a state holds.
func (w *watch) event(tick uint64, e *vsr.Event) bool {
	i := e.Replica
	switch e.Kind {
	case vsr.EvStatus:
		s := e.StatusChanged()
		if s.Status == vsr.StatusViewChange && w.status[i] != vsr.StatusViewChange {
			w.moment(tick)
		}
		w.status[i], w.view[i] = s.Status, s.View
	case vsr.EvCommit:
		w.commit[i] = e.Op
	case vsr.EvTransferInstall:
		w.commit[i] = e.Op
		w.moment(tick)
	case vsr.EvRepairRequest:
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
	case w.status[i] == vsr.StatusViewChange && w.view[i] >= topView:
		class = classViewChange
	case w.status[i] == vsr.StatusViewChange:
		class = classViewChangeBehind
	case w.status[i] == vsr.StatusNormal && w.view[i] < topView:
		class = classNormalBehind
	case w.status[i] == vsr.StatusNormal && vsr.PrimaryOf(w.view[i], w.n) == i:
		class = classPrimary
	case w.status[i] == vsr.StatusNormal:
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
	// Counts per class and of replicas past a checkpoint behind.
	var counts [classes + 1]uint64
	for _, c := range w.codes {
		counts[c%classes]++
		if c >= classes {
			counts[classes]++
		}
	}
	h := uint64(14695981039346656037)
	mix := func(x uint64) { h = (h ^ x) * 1099511628211 }
	mix(w.journal)
	mix(uint64(w.n))
	// A count is 0, 1 or more, and the replicas up are below, at or above
	// a quorum: seven replicas have as many ways to be split as three, not
	// thousands more.
	for _, c := range counts {
		mix(min(c, 2))
	}
	up, quorum := uint64(w.n)-counts[classDown], uint64(w.n/2+1)
	switch {
	case up < quorum:
		mix(0)
	case up == quorum:
		mix(1)
	default:
		mix(2)
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
