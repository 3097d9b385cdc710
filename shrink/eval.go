package shrink

import (
	"bytes"
	"sync"

	"vsrsim/replica"
	"vsrsim/scenarios"
	"vsrsim/scenarios/vsrfile"
	"vsrsim/sim"
)

// fileName names every candidate: a run's trace notes carry it, so one name
// keeps candidates comparable.
const fileName = "shrink.vsr"

// Target is the failure a candidate must reproduce.
type Target struct {
	Verdict   sim.Verdict
	Invariant string
}

func (t Target) matches(r sim.Result) bool {
	return r.Verdict == t.Verdict && r.Invariant == t.Invariant
}

// trial is one candidate's evaluation: the first of its seeds under which it
// fails as the target does, and how many runs that took.
type trial struct {
	ok   bool
	seed uint64
	runs int
	res  sim.Result
}

// evaluator runs candidates. Everything it computes depends only on the
// candidate and its seeds, never on which worker ran it.
type evaluator struct {
	bugs   replica.Bugs
	target Target
	run    func(sim.Config, sim.Attach) (sim.Result, error)
}

// config builds the run of a candidate under a seed; a candidate the
// scenarios package refuses (a target the cluster lacks, say) gives an error.
func (e *evaluator) config(s *vsrfile.File, seed uint64) (sim.Config, sim.Attach, error) {
	f, err := scenarios.ParseFile(fileName, bytes.NewReader(vsrfile.Format(s)))
	if err != nil {
		return sim.Config{}, sim.Attach{}, err
	}
	cfg := sim.DefaultConfig(seed)
	cfg.Bugs = e.bugs
	script, err := f.Apply(&cfg)
	if err != nil {
		return sim.Config{}, sim.Attach{}, err
	}
	return cfg, sim.Attach{Script: script}, nil
}

// try runs s under each seed in order until one fails as the target does,
// and, if the run has bug switches, does not fail so without them.
func (e *evaluator) try(s *vsrfile.File, seeds []uint64) trial {
	t := trial{}
	for _, seed := range seeds {
		cfg, at, err := e.config(s, seed)
		if err != nil {
			return t
		}
		res, err := e.run(cfg, at)
		t.runs++
		if err != nil || !e.target.matches(res) {
			continue
		}
		if len(e.bugs.Names()) > 0 {
			// A failure the run has without its bug switches too is not the
			// bug's: a file built on it would send triage elsewhere.
			// A fresh configuration: a file's script keeps its place.
			cfg, at, _ := e.config(s, seed)
			cfg.Bugs = replica.Bugs{}
			clean, err := e.run(cfg, at)
			t.runs++
			if err != nil || e.target.matches(clean) {
				continue
			}
		}
		return trial{ok: true, seed: seed, runs: t.runs, res: res}
	}
	return t
}

// trialsOf evaluates candidates with jobs workers, in windows of jobs
// candidates, and stops after the first window holding a success. The
// caller reads the trials in order, so what it keeps does not depend on
// jobs; a trial past the first success is work thrown away.
// It also stops once the runs of the trials so far reach budget.
func (e *evaluator) trialsOf(cands []*vsrfile.File, seeds func(int) []uint64, jobs, budget int) []trial {
	out := make([]trial, len(cands))
	used := 0
	for lo := 0; lo < len(cands); lo += jobs {
		hi := min(lo+jobs, len(cands))
		var wg sync.WaitGroup
		for i := lo; i < hi; i++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				out[i] = e.try(cands[i], seeds(i))
			}()
		}
		wg.Wait()
		for i := lo; i < hi; i++ {
			used += out[i].runs
			if out[i].ok || used >= budget {
				return out[:hi]
			}
		}
	}
	return out
}
