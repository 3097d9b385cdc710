// Package fuzz is a coverage-guided search over fault schedules (`vsrsim
// fuzz`, docs/fuzz.md). Its inputs are a seed and a scenario file; it keeps a
// corpus of the inputs whose runs reached a condition no run before them did
// (a coverage mark, a pair of marks, an abstract state of the cluster), picks
// parents from it with an energy that favours rare conditions, mutates them
// (faults added, dropped, moved, retargeted, widened or narrowed; a setting
// or the protocol options changed; two schedules spliced; the run's own
// randomness reseeded) and runs the children.
//
// The search is deterministic: it works in generations of a fixed size, each
// drawn from the corpus as the generation before left it, and reads a
// generation's outcomes in order, so what it finds depends on its seed and
// budget and not on how many workers ran the runs. The workers are
// sweep.Run's; this package starts no goroutine.
package fuzz

import (
	"context"

	"vsrsim/marks"
	"vsrsim/prng"
	"vsrsim/replica"
	"vsrsim/scenarios"
	"vsrsim/sim"
	"vsrsim/sweep"
	"vsrsim/verify"
)

// GenerationSize is how many inputs a generation runs. It is fixed, not
// derived from the workers, so that the search is the same for any number.
const GenerationSize = 32

// freshOneIn is how often a child is instead a fresh swarm seed. A search
// that only mutates what it has circles one region of the seed space, and
// on budgets of hundreds of runs a fresh draw is worth more than a child:
// on the eleven switches, six searches of 300 runs each caught 45 first
// failures with one fresh seed in eight, 53 with one in two, and the blind
// swarm from six starts 50 (docs/fuzz.md). A child's failures cluster in
// its lineage; a first catch needs the diversity of fresh draws.
const freshOneIn = 2

// Options shape a search.
type Options struct {
	Budget int    // runs in all
	Seed   uint64 // the search's own randomness
	Jobs   int
	Bugs   replica.Bugs
	// Corpus are inputs to start from (a resumed or shared corpus); they run
	// first and count towards the budget.
	Corpus []Input
	// Run is the simulation; nil is verify.Run (with linearizability).
	Run func(sim.Config, sim.Attach) (sim.Result, error)
	// Deliver, if set, gets every outcome in run order.
	Deliver func(Outcome)
	// Keep, if set, gets every input as it joins the corpus (a fresh swarm
	// seed as the file its run was recorded to).
	Keep func(Input)
	// Blind runs swarm seeds BlindStart+1, +2, +3, ... and mutates
	// nothing: the plain swarm, counted as the search counts, to compare
	// the two by.
	Blind      bool
	BlindStart uint64
	// Unfocused draws fresh and blind swarm seeds without their focus
	// slices (swarm.Unfocused), to measure what the foci add.
	Unfocused bool
	// Confirm reruns a run that failed with Bugs on without them: a
	// failure it has without them too is not the switches', and is not the
	// search's first failure.
	Confirm bool
	// StopAtFailure ends the search with the generation of its first
	// failure (the failure's index is the same whatever Jobs is).
	StopAtFailure bool
}

// Outcome is one finished run.
type Outcome struct {
	Index  int // from 0, in run order
	Input  Input
	Result sim.Result
	Err    error
	New    int  // features no earlier run reached
	Kept   bool // joined the corpus
}

// Failed reports whether the outcome is a finding.
func (o *Outcome) Failed() bool { return o.Err == nil && o.Result.Verdict.Failed() }

// Point is the coverage after a number of runs.
type Point struct {
	Runs, States, Marks, Pairs int
}

// Summary is what a search did.
type Summary struct {
	Runs          int
	Passed        int
	Unrecoverable int
	// UnrecoverableBy counts the unrecoverable runs by the rule that
	// excused each (sim.Result.Rule); read it in sorted key order.
	UnrecoverableBy map[string]int
	// BeyondF counts the runs whose file said `crashes beyond-f`
	// (CrashesBeyondFOneIn), BeyondFUnrecoverable those of them that ended
	// unrecoverable.
	BeyondF              int
	BeyondFUnrecoverable int
	Failed               map[sim.Verdict]int
	Errors               int
	FirstFailure         *Outcome
	Fresh                int // runs of fresh swarm seeds
	Corpus               int // inputs kept
	States               int // distinct abstract states reached
	MarksReached         int
	Pairs                int
	Marks                marks.Runs
	Curve                []Point // after each generation
	Interrupted          bool
	Events               uint64
	PartitionRuns        int
}

// FailedTotal is the number of findings.
func (s *Summary) FailedTotal() int {
	n := 0
	for _, v := range []sim.Verdict{sim.VerdictSafety, sim.VerdictLiveness, sim.VerdictCrash} {
		n += s.Failed[v]
	}
	return n
}

// entry is a corpus input with the conditions its run reached first.
type entry struct {
	in    Input
	shape shape
	// claims index search.hits: the features no run before this one reached.
	// An entry's energy is theirs alone, so that it costs the length of what
	// it found, not of all it reached.
	claims []int32
	picks  int
	fam    family
}

// family is the part of a run's configuration no mutation changes: the
// cluster size, the journal and whether it runs on disks.
type family struct {
	replicas  int
	wal, disk bool
}

type search struct {
	opts   Options
	rng    *prng.Stream
	index  map[Feature]int32 // looked up, never ranged over
	hits   []uint32          // per feature, the runs that reached it
	corpus []*entry
	sum    Summary
	// drawn counts the fresh swarm seeds per family: how often the swarm
	// itself draws each (looked up, never ranged over).
	drawn map[family]int
}

// slot is what a worker leaves beside a run's result: read only after the
// generation's sweep has handed the result back.
type slot struct {
	// clean is a failure the run has without its bug switches too
	// (Options.Confirm).
	clean  bool
	feats  []Feature
	shape  shape
	fam    family
	record []byte // a fresh seed's run as a file
}

// Run searches until the budget is spent or ctx is done.
func Run(ctx context.Context, opts Options) Summary {
	if opts.Run == nil {
		opts.Run = verify.Run
	}
	s := &search{opts: opts, rng: prng.New(opts.Seed, prng.StreamFuzz), index: map[Feature]int32{}, drawn: map[family]int{}}
	s.sum.Failed = map[sim.Verdict]int{}
	s.sum.UnrecoverableBy = map[string]int{}
	queue := opts.Corpus
	for s.sum.Runs < opts.Budget && ctx.Err() == nil && (!opts.StopAtFailure || s.sum.FirstFailure == nil) {
		n := min(GenerationSize, opts.Budget-s.sum.Runs)
		var gen []plan
		if len(queue) > 0 {
			k := min(n, len(queue))
			for _, in := range queue[:k] {
				gen = append(gen, plan{in: in})
			}
			queue = queue[k:]
		} else {
			gen = s.generation(n)
		}
		if !s.runGeneration(ctx, gen) {
			s.sum.Interrupted = true
			break
		}
		s.sum.Curve = append(s.sum.Curve, Point{Runs: s.sum.Runs, States: s.sum.States, Marks: s.sum.MarksReached, Pairs: s.sum.Pairs})
	}
	if ctx.Err() != nil && s.sum.Runs < opts.Budget {
		s.sum.Interrupted = true
	}
	s.sum.Corpus = len(s.corpus)
	return s.sum
}

// plan is one input of a generation as the search drew it: a fresh seed, a
// corpus input to rerun, or a parent (and a second one for a splice) with
// the seed of the child's own mutation stream. Workers carry the mutations
// out, in parallel; the plan alone fixes what they make.
type plan struct {
	in            Input // a fresh seed or a corpus input; unset for a child
	parent, other *entry
	mutSeed       uint64
}

// generation draws n plans from the corpus as it stands.
func (s *search) generation(n int) []plan {
	out := make([]plan, n)
	if s.opts.Blind {
		for i := range out {
			out[i].in = Input{Seed: s.opts.BlindStart + uint64(s.sum.Runs+i+1), Op: "swarm", Unfocused: s.opts.Unfocused}
		}
		return out
	}
	if len(s.corpus) == 0 {
		for i := range out {
			out[i].in = Input{Seed: s.rng.Uint64(), Op: "fresh", Unfocused: s.opts.Unfocused}
		}
		return out
	}
	cum := s.energies()
	for i := range out {
		if s.rng.IntN(freshOneIn) == 0 {
			out[i].in = Input{Seed: s.rng.Uint64(), Op: "fresh", Unfocused: s.opts.Unfocused}
			continue
		}
		p := s.pickBy(cum)
		p.picks++
		out[i] = plan{parent: p, other: s.corpus[s.rng.IntN(len(s.corpus))], mutSeed: s.rng.Uint64()}
	}
	return out
}

// input is the plan's input, mutated here for a child.
func (p *plan) input() Input {
	if p.parent == nil {
		return p.in
	}
	return mutate(prng.New(p.mutSeed, prng.StreamFuzz), p.parent, p.other)
}

// energies are the corpus's cumulative energies, in two layers. Across
// families (cluster size, journal, disks) a family gets the share of the
// swarm's own draws that fell in it: a size or journal the swarm seldom
// draws has states no other reaches, and a search rewarded for each new one
// drifted there (five and six replicas were 43% of the kept inputs of a
// 1,000-run search, 8% of the swarm's seeds; three write-ahead replicas on
// disks 7%, against 24%). Within a family an entry's energy is the sum over
// the conditions it reached first of one over how many runs have reached
// each since, so an input whose finds stay rare is picked far more often
// than one whose finds every run now reaches; an entry picked often loses
// some of it.
func (s *search) energies() []float64 {
	own := make([]float64, len(s.corpus))
	within := map[family]float64{} // summed in corpus order: deterministic
	for i, e := range s.corpus {
		en := 0.0
		for _, f := range e.claims {
			en += 1 / float64(s.hits[f])
		}
		own[i] = en / (1 + float64(e.picks)/4)
		within[e.fam] += own[i]
	}
	cum := make([]float64, len(s.corpus))
	total := 0.0
	for i, e := range s.corpus {
		if w := within[e.fam]; w > 0 {
			total += own[i] / w * float64(1+s.drawn[e.fam])
		}
		cum[i] = total
	}
	return cum
}

func (s *search) pickBy(cum []float64) *entry {
	x := float64(s.rng.Uint64N(1<<53)) / (1 << 53) * cum[len(cum)-1]
	lo, hi := 0, len(cum)-1
	for lo < hi {
		mid := (lo + hi) / 2
		if cum[mid] > x {
			hi = mid
		} else {
			lo = mid + 1
		}
	}
	return s.corpus[lo]
}

// runGeneration runs gen on the workers and reads the outcomes in order;
// false if ctx stopped it before the end.
func (s *search) runGeneration(ctx context.Context, plans []plan) bool {
	slots := make([]slot, len(plans))
	gen := make([]Input, len(plans))
	run := func(i uint64) (sim.Result, error) {
		gen[i] = plans[i].input()
		return s.runOne(&gen[i], &slots[i])
	}
	done := 0
	sweep.Run(ctx, sweep.Options{Range: sweep.Range{First: 0, Count: uint64(len(gen))}, Jobs: s.opts.Jobs}, run,
		func(o sweep.Outcome) {
			s.take(Outcome{Index: s.sum.Runs, Input: gen[o.Index], Result: o.Result, Err: o.Err}, &slots[o.Index])
			done++
		})
	return done == len(gen)
}

// runOne runs one input with a watch on its trace, and a fresh seed with a
// recording too.
func (s *search) runOne(in *Input, sl *slot) (sim.Result, error) {
	cfg, at, err := in.Config(s.opts.Bugs)
	if err != nil {
		return sim.Result{}, err
	}
	w := newWatch(&cfg)
	at.Observer = w
	var rec *sim.Recording
	if in.Swarm() && !s.opts.Blind {
		rec = &sim.Recording{}
		at.Recording = rec
	}
	res, err := s.opts.Run(cfg, at)
	if err != nil {
		return res, err
	}
	if s.opts.Confirm && res.Verdict.Failed() && len(s.opts.Bugs.Names()) > 0 {
		ccfg, cat, err := in.Config(replica.Bugs{})
		if err == nil {
			clean, err := s.opts.Run(ccfg, cat)
			sl.clean = err == nil && clean.Verdict == res.Verdict
		}
	}
	sl.feats = features(&res, w.states)
	sl.shape = shape{replicas: cfg.Replicas, clients: cfg.Clients, ticks: cfg.FaultTicks, moments: w.moments}
	sl.fam = family{replicas: cfg.Replicas, wal: cfg.Durability == replica.DurabilityWAL, disk: cfg.Storage.On}
	if rec != nil {
		sl.record = scenarios.Record(&cfg, rec, nil)
	}
	return res, nil
}

// take counts one outcome, keeps its input if it reached something new and
// hands it on.
func (s *search) take(o Outcome, sl *slot) {
	s.sum.Runs++
	if o.Input.Swarm() {
		s.sum.Fresh++
		s.drawn[sl.fam]++
	}
	s.count(&o, sl.clean)
	var claims []int32
	for _, f := range sl.feats {
		id, ok := s.index[f]
		if !ok {
			id = int32(len(s.hits))
			s.index[f] = id
			s.hits = append(s.hits, 0)
			claims = append(claims, id)
			o.New++
			switch f.Kind() {
			case KindState:
				s.sum.States++
			case KindMark:
				s.sum.MarksReached++
			case KindPair:
				s.sum.Pairs++
			}
		}
		s.hits[id]++
	}
	// An unrecoverable run is kept from the corpus: no protocol could have
	// recovered, so its children spend runs where no defect can show, and
	// the search, rewarded for each new way to end so, drifted there (a
	// fifth of its runs, against one in 2,000 of the swarm's: docs/fuzz.md).
	if o.New > 0 && o.Err == nil && !s.opts.Blind && o.Result.Verdict != sim.VerdictUnrecoverable {
		in := o.Input
		if in.Swarm() {
			in = Input{Seed: in.Seed, File: sl.record, Op: "fresh"}
		}
		s.corpus = append(s.corpus, &entry{in: in, shape: sl.shape, claims: claims, fam: sl.fam})
		o.Kept = true
		if s.opts.Keep != nil {
			s.opts.Keep(in)
		}
	}
	if s.opts.Deliver != nil {
		s.opts.Deliver(o)
	}
}

func (s *search) count(o *Outcome, clean bool) {
	switch {
	case o.Err != nil:
		s.sum.Errors++
		return
	case o.Result.Verdict.Failed():
		s.sum.Failed[o.Result.Verdict]++
		if s.sum.FirstFailure == nil && !clean {
			first := *o
			s.sum.FirstFailure = &first
		}
	default:
		s.sum.Passed++
		if o.Result.Verdict == sim.VerdictUnrecoverable {
			s.sum.Unrecoverable++
			s.sum.UnrecoverableBy[o.Result.Rule]++
		}
	}
	if o.Result.CrashesBeyondF {
		s.sum.BeyondF++
		if o.Result.Verdict == sim.VerdictUnrecoverable {
			s.sum.BeyondFUnrecoverable++
		}
	}
	s.sum.Events += o.Result.Events
	if o.Result.Stats.Network.Partitions > 0 {
		s.sum.PartitionRuns++
	}
	s.sum.Marks.Add(&o.Result.Marks)
}
