// Package shrink searches for a smaller scenario file that fails as a given
// one does: the same verdict and invariant, under the seed it records. It
// removes actions (delta debugging), moves them earlier, shortens the fault
// phase, lowers replicas and clients, turns the network's random faults off,
// drops the disks' settings, and drops a recorded file's source protocol and
// liveness cuts, keeping each change only if some seed still fails the same
// way.
//
// The search is deterministic: candidates are tried in a fixed order and the
// first that fails wins, so the output is the same whatever Options.Jobs is.
package shrink

import (
	"errors"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"

	"vsrsim/replica"
	"vsrsim/scenarios/vsrfile"
	"vsrsim/sim"
)

// Options bound and shape a search.
type Options struct {
	Seed uint64
	Bugs replica.Bugs
	// Target is the failure to keep; zero: whatever the source gives under
	// Seed.
	Target Target
	// StartSeeds is how many seeds, from Seed on, the source may need before
	// it fails as the target (a recorded file draws other packet fates than
	// its run did); SeedsPerCandidate is how many each candidate gets, from
	// the seed the search holds.
	StartSeeds        int
	SeedsPerCandidate int
	MaxRuns           int
	Jobs              int
	// Run is the simulation (sim.Run, or one adding the linearizability
	// check).
	Run func(sim.Config, sim.Attach) (sim.Result, error)
	// Progress, if set, gets a line per kept candidate.
	Progress io.Writer
}

// Size is what the search makes smaller.
type Size struct {
	Actions  int
	Ticks    uint64
	Replicas int
	Clients  int
}

func (s Size) String() string {
	return fmt.Sprintf("%d actions, %d ticks, %d replicas, %d clients", s.Actions, s.Ticks, s.Replicas, s.Clients)
}

// Outcome is a finished search.
type Outcome struct {
	Script         *vsrfile.File
	Seed           uint64 // the seed the smallest script fails under
	Result         sim.Result
	Before, After  Size
	Runs           int
	BudgetExceeded bool
}

// ErrPasses is a source that does not fail: there is nothing to shrink.
var ErrPasses = errors.New("the run passes: nothing to shrink")

type search struct {
	opts   Options
	eval   evaluator
	cur    *vsrfile.File
	seed   uint64
	res    sim.Result
	runs   int
	broke  bool // the budget ran out
	before Size
}

// Shrink searches from src.
func Shrink(src *vsrfile.File, opts Options) (Outcome, error) {
	opts.StartSeeds = max(opts.StartSeeds, 1)
	opts.SeedsPerCandidate = max(opts.SeedsPerCandidate, 1)
	opts.Jobs = max(opts.Jobs, 1)
	if opts.Run == nil {
		opts.Run = sim.Run
	}
	src = source(src)
	s := &search{opts: opts, eval: evaluator{bugs: opts.Bugs, target: opts.Target, run: opts.Run}, cur: src}
	if _, _, err := s.eval.config(src, opts.Seed); err != nil {
		return Outcome{}, err
	}
	if s.eval.target == (Target{}) {
		cfg, at, _ := s.eval.config(src, opts.Seed)
		res, err := opts.Run(cfg, at)
		if err != nil {
			return Outcome{}, err
		}
		s.runs++
		s.eval.target = Target{res.Verdict, res.Invariant}
	}
	if !s.eval.target.Verdict.Failed() {
		return Outcome{}, ErrPasses
	}
	start := s.eval.try(src, seedsFrom(opts.Seed, opts.StartSeeds))
	s.runs += start.runs
	if !start.ok {
		why := ""
		if len(opts.Bugs.Names()) > 0 {
			why = " (or fails so without its bug switches too)"
		}
		return Outcome{}, fmt.Errorf("the file fails as %s (%s) under none of seeds %d..%d%s", s.eval.target.Verdict,
			s.eval.target.Invariant, opts.Seed, opts.Seed+uint64(opts.StartSeeds)-1, why)
	}
	s.seed, s.res = start.seed, start.res
	s.before = s.size(src)
	s.dropNotes()
	s.progress()
	s.loop()
	return Outcome{Script: s.cur, Seed: s.seed, Result: s.res, Before: s.before, After: s.size(s.cur),
		Runs: s.runs, BudgetExceeded: s.broke}, nil
}

func seedsFrom(seed uint64, n int) []uint64 {
	out := make([]uint64, n)
	for i := range out {
		out[i] = seed + uint64(i)
	}
	return out
}

// first tries cands in order and keeps the first that fails as the target
// does; it reports whether one did.
func (s *search) first(cands []*vsrfile.File) bool {
	if len(cands) == 0 || s.broke {
		return false
	}
	seeds := seedsFrom(s.seed, s.opts.SeedsPerCandidate)
	trials := s.eval.trialsOf(cands, func(int) []uint64 { return seeds }, s.opts.Jobs, s.opts.MaxRuns-s.runs)
	for i, t := range trials {
		if s.runs >= s.opts.MaxRuns {
			s.broke = true
			return false
		}
		s.runs += t.runs
		if t.ok {
			s.cur, s.seed, s.res = cands[i], t.seed, t.res
			s.progress()
			return true
		}
	}
	if s.runs >= s.opts.MaxRuns {
		s.broke = true
	}
	return false
}

func (s *search) progress() {
	if s.opts.Progress != nil {
		fmt.Fprintf(s.opts.Progress, "shrink: %d runs, now %s (seed %d)\n", s.runs, s.size(s.cur), s.seed)
	}
}

// size reads a script's size from the configuration it gives.
func (s *search) size(sc *vsrfile.File) Size {
	cfg, _, err := s.eval.config(sc, s.opts.Seed)
	if err != nil {
		return Size{Actions: len(sc.Actions)}
	}
	return Size{Actions: len(sc.Actions), Ticks: cfg.FaultTicks, Replicas: cfg.Replicas, Clients: cfg.Clients}
}

// loop runs the passes until none makes progress or the budget is spent.
func (s *search) loop() {
	passes := []func() bool{s.quiet, s.disks, s.replicas, s.clients, s.ddmin, s.earlier, s.ticks, s.robust}
	for progress := true; progress && !s.broke; {
		progress = false
		for _, pass := range passes {
			for pass() {
				progress = true
			}
		}
	}
}

// quiet turns the network's random faults off: all at once, else one by
// one, else each at half its rate.
func (s *search) quiet() bool {
	zero := []struct{ key, value string }{
		{"network loss", "0"}, {"network replay", "0"}, {"network reorder", "0 max=1"}, {"network clog", "off"},
		{"network corrupt", "0"},
	}
	// Corruption is off unless a file sets it: no line to add.
	offAbsent := map[string]bool{"network corrupt": true}
	all := s.cur.Clone()
	var one, half []*vsrfile.File
	for _, z := range zero {
		v, ok := get(s.cur, z.key)
		if (ok && v == z.value) || (!ok && offAbsent[z.key]) {
			continue
		}
		set(all, z.key, z.value)
		c := s.cur.Clone()
		set(c, z.key, z.value)
		one = append(one, c)
		if h, ok := halve(v); ok {
			c := s.cur.Clone()
			set(c, z.key, h)
			half = append(half, c)
		}
	}
	if len(one) > 1 {
		one = append([]*vsrfile.File{all}, one...)
	}
	return s.first(append(one, half...))
}

// dropNotes removes the note actions (a recording repeats its aimed faults'
// trace notes): they change no behaviour, so the search need not spend runs
// on them, and a kept file without them fails as the source did.
func (s *search) dropNotes() {
	c := s.cur.Clone()
	c.Actions = slices.DeleteFunc(c.Actions, func(a vsrfile.Action) bool { return a.Verb == vsrfile.Note && a.Text != "" })
	if len(c.Actions) < len(s.cur.Actions) {
		s.first([]*vsrfile.File{c})
	}
}

// robust drops the settings that make the run a source system's or cut
// replicas off through the liveness phase, each on its own: a failure that
// needs neither is one the robust protocol and a healed network show.
func (s *search) robust() bool {
	var cands []*vsrfile.File
	for _, key := range []string{"protocol", "liveness"} {
		if _, ok := get(s.cur, key); ok {
			c := s.cur.Clone()
			del(c, key)
			cands = append(cands, c)
		}
	}
	return s.first(cands)
}

// halve reads a rate setting's value (P, or P max=N) and returns it at half
// the rate; ok is false for a value it does not read as N/D, and for a rate
// already too small to matter.
func halve(v string) (string, bool) {
	w := strings.Fields(v)
	if len(w) == 0 {
		return "", false
	}
	num, den, ok := strings.Cut(w[0], "/")
	n, err1 := strconv.ParseUint(num, 10, 32)
	d, err2 := strconv.ParseUint(den, 10, 32)
	if !ok || err1 != nil || err2 != nil || n == 0 || d == 0 || d/n > 1<<14 {
		return "", false
	}
	w[0] = fmt.Sprintf("%d/%d", n, 2*d)
	return strings.Join(w, " "), true
}

// replicas tries every smaller cluster, smallest first.
func (s *search) replicas() bool {
	size := s.size(s.cur)
	var cands []*vsrfile.File
	for r := 1; r < size.Replicas; r++ {
		c := without(s.cur, r, size.Clients)
		set(c, "replicas", strconv.Itoa(r))
		cands = append(cands, c)
	}
	return s.first(cands)
}

// clients tries fewer clients, fewest first.
func (s *search) clients() bool {
	size := s.size(s.cur)
	var cands []*vsrfile.File
	for n := 1; n < size.Clients; n++ {
		c := without(s.cur, size.Replicas, n)
		set(c, "clients", strconv.Itoa(n))
		cands = append(cands, c)
	}
	return s.first(cands)
}

// ddmin removes actions by delta debugging: the complement of each of n
// chunks, n doubling while no complement fails.
func (s *search) ddmin() bool {
	progress := false
	n := 2
	for len(s.cur.Actions) > 0 && !s.broke {
		acts := s.cur.Actions
		n = min(n, len(acts))
		var cands []*vsrfile.File
		for k := 0; k < n; k++ {
			lo, hi := k*len(acts)/n, (k+1)*len(acts)/n
			c := s.cur.Clone()
			c.Actions = append(c.Actions[:lo:lo], acts[hi:]...)
			cands = append(cands, c)
		}
		if s.first(cands) {
			progress = true
			n = max(n-1, 2)
			continue
		}
		if n >= len(acts) {
			break
		}
		n = min(2*n, len(acts))
	}
	return progress
}

// earlier moves actions earlier: all of them together so the first runs at
// tick 1, or a half, quarter, ... of that way; then each toward its
// predecessor's tick, all the way or half.
func (s *search) earlier() bool {
	acts := s.cur.Actions
	if len(acts) == 0 {
		return false
	}
	shift := func(d uint64, from int) *vsrfile.File {
		c := s.cur.Clone()
		for i := from; i < len(c.Actions); i++ {
			c.Actions[i].At -= d
		}
		return c
	}
	var cands []*vsrfile.File
	for d := acts[0].At - min(acts[0].At, 1); d > 0 && len(cands) < 6; d /= 2 {
		cands = append(cands, shift(d, 0))
	}
	for i := 1; i < len(acts); i++ {
		if gap := acts[i].At - acts[i-1].At; gap > 0 {
			cands = append(cands, shift(gap, i))
			if gap > 1 {
				cands = append(cands, shift(gap/2, i))
			}
		}
	}
	return s.first(cands)
}

// ticks shortens the fault phase toward the last action's tick.
func (s *search) ticks() bool {
	size := s.size(s.cur)
	last := uint64(1)
	if n := len(s.cur.Actions); n > 0 {
		last = max(s.cur.Actions[n-1].At, 1)
	}
	var cands []*vsrfile.File
	for _, t := range []uint64{last, last + (size.Ticks-last)/8, last + (size.Ticks-last)/2} {
		if t >= size.Ticks || (len(cands) > 0 && t == lastTicks(cands)) {
			continue
		}
		c := s.cur.Clone()
		set(c, "ticks", strconv.FormatUint(t, 10))
		cands = append(cands, c)
	}
	return s.first(cands)
}

func lastTicks(cands []*vsrfile.File) uint64 {
	v, _ := get(cands[len(cands)-1], "ticks")
	t, _ := strconv.ParseUint(v, 10, 64)
	return t
}
