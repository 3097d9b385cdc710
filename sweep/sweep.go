// Package sweep runs many independent simulations in parallel and hands their
// outcomes back in seed order. It is the one package with goroutines: each run
// stays single-threaded inside its own worker, and nothing a run computes
// depends on which worker ran it or when, so a sweep's findings are the same
// with one job or many.
package sweep

import (
	"context"
	"fmt"
	"runtime"
	"sync"
	"sync/atomic"
	"time"

	"vsrsim/marks"
	"vsrsim/sim"
	"vsrsim/sim/check/linearize"
)

// Range is the seeds First, First+1, ..., First+Count-1, of which a shard keeps
// every ShardN-th: the seeds at index k with k % ShardN == Shard. Shards 0..N-1
// of one range cover it exactly once between them.
type Range struct {
	First  uint64 `json:"first"`
	Count  uint64 `json:"count"`
	Shard  uint64 `json:"shard"`
	ShardN uint64 `json:"shards"` // 0 or 1: no sharding
}

// Len is the number of seeds this shard runs.
func (r Range) Len() uint64 {
	n := max(r.ShardN, 1)
	if r.Shard >= n || r.Count <= r.Shard {
		return 0
	}
	return (r.Count-r.Shard-1)/n + 1
}

// Seed is the i-th seed of this shard (0 <= i < Len). Seeds wrap around at
// 2^64, as uint64 arithmetic does.
func (r Range) Seed(i uint64) uint64 {
	return r.First + r.Shard + i*max(r.ShardN, 1)
}

// Validate reports a range no sweep can run.
func (r Range) Validate() error {
	if r.Count == 0 {
		return fmt.Errorf("the range is empty")
	}
	if r.ShardN > 0 && r.Shard >= r.ShardN {
		return fmt.Errorf("shard %d/%d: the index must be below the count", r.Shard, r.ShardN)
	}
	return nil
}

// Outcome is one finished run.
type Outcome struct {
	Index  uint64 // position in the shard's seed order
	Seed   uint64
	Result sim.Result
	// Err is an error the run returned (an invalid configuration, a trace
	// write): the sweep reports it, it is not a verdict.
	Err  error
	Wall time.Duration // wall time of this run alone, for the slowest-seed report
}

// Failed reports whether the outcome is a finding: a failing verdict.
func (o Outcome) Failed() bool { return o.Err == nil && o.Result.Verdict.Failed() }

// Options shape a sweep.
type Options struct {
	Range Range
	Jobs  int // workers; 0 means one per CPU
	// MaxFailures stops the sweep once this many findings are delivered (in
	// seed order, so the same findings whatever Jobs is); 0 is no limit.
	MaxFailures int
	// From is the index of the shard's seed order to start at: a resumed
	// sweep's cursor. Prior holds the counts of the indices before it, which
	// the Summary goes on from.
	From  uint64
	Prior State
	// Budget, if positive, is the wall time after which no new seed starts;
	// the runs in flight finish and are delivered. The first seed of a sweep
	// always starts, so a sweep resumed under any budget makes progress.
	// Which seeds a budget covers depends on the clock, but every seed
	// covered gives the result it gives in any sweep.
	Budget time.Duration
	// Now is the clock Budget is measured on; nil is time.Now. Tests
	// inject one, so which seeds a budget covers is theirs to choose.
	Now func() time.Time
}

// RunFunc runs one seed. It must be safe to call from several goroutines at
// once: each call builds and runs its own simulation.
type RunFunc func(seed uint64) (sim.Result, error)

// Summary is what a whole sweep did.
type Summary struct {
	Runs          uint64
	Passed        uint64 // pass and unrecoverable: not findings
	Unrecoverable uint64
	// Assisted counts runs the harness helped at least once (sim.Assist);
	// Unchecked, passing runs whose liveness was not judged.
	Assisted  uint64
	Unchecked uint64
	// Recovery holds, per run whose core converged, its RecoveryTicks.
	Recovery     Recovery
	Failed       map[sim.Verdict]uint64
	Errors       uint64
	Events       uint64
	Committed    uint64 // ops committed, summed over runs
	Wall         time.Duration
	Slowest      Outcome
	FirstFailure *Outcome
	Interrupted  bool // stopped by the context before the range was done
	Stopped      bool // stopped by MaxFailures
	Expired      bool // stopped by Budget before the range was done
	// From and Next bound the indices this sweep ran: From..Next-1 of the
	// shard's seed order. Indices below From are the Prior's; Next is where
	// a resumed sweep starts (Range.Len() once the range is done).
	From, Next uint64
	// UnrecoverableRules counts the unrecoverable runs per rule (sim.Result's
	// Rule), the rule "" for a run that names none.
	UnrecoverableRules map[string]uint64
	Coverage           Coverage
	// LinearizabilityUnknown counts the runs whose linearizability check
	// answered unknown (its step budget ran out): not findings, but runs
	// whose histories nothing vouched for.
	LinearizabilityUnknown uint64
	// Marks counts, per mark, the runs that reached it (docs/marks.md).
	Marks marks.Runs
	// MarksFirst holds, per mark, the first seed that reached it: where a
	// reached never-mark (marks.Mark.Never) is replayed from.
	MarksFirst marks.Firsts
}

// Coverage counts the runs that exercised each mechanism at least once: a
// sweep that never changes views or transfers state proves little about them.
// Its JSON names are those of `sweep -o json`'s exercised object, a contract.
type Coverage struct {
	ViewChanges    uint64 `json:"view_changes"`
	Crashes        uint64 `json:"crashes"`
	Restarts       uint64 `json:"restarts"`
	Repairs        uint64 `json:"repairs"`
	StateTransfers uint64 `json:"state_transfers"`
	Partitions     uint64 `json:"partitions"`
	// DirectedCuts counts the runs with an aimed cut among replicas in one
	// direction (sim.Stats.DirectedCuts), which Partitions does not count.
	DirectedCuts uint64 `json:"directed_cuts"`
	// Disks counts the runs whose replicas journaled to simulated disks,
	// StorageFaults those where a disk injected at least one fault.
	Disks         uint64 `json:"disks"`
	StorageFaults uint64 `json:"storage_faults"`
}

// FailedTotal is the number of findings.
func (s Summary) FailedTotal() uint64 {
	var n uint64
	for _, k := range s.Failed {
		n += k
	}
	return n
}

// RunsPerSecond and EventsPerSecond are wall-clock rates over the sweep.
func (s Summary) RunsPerSecond() float64 { return perSecond(s.Runs, s.Wall) }

// EventsPerSecond is the trace events of every run per wall second.
func (s Summary) EventsPerSecond() float64 { return perSecond(s.Events, s.Wall) }

func perSecond(n uint64, d time.Duration) float64 {
	if d <= 0 {
		return 0
	}
	return float64(n) / d.Seconds()
}

// Run sweeps the range with opts.Jobs workers and calls deliver for each
// outcome in seed order, from the calling goroutine. A run that panics is a
// crash finding for its seed, never the end of the sweep. When ctx is done the
// sweep hands out no new seeds, waits for the runs in flight, and delivers the
// completed runs up to the first seed that did not complete; so it does once
// opts.Budget is spent, and every seed handed out completes, so the seeds
// delivered are From..Next-1 with none missing.
func Run(ctx context.Context, opts Options, run RunFunc, deliver func(Outcome)) Summary {
	jobs := opts.Jobs
	if jobs <= 0 {
		jobs = runtime.NumCPU()
	}
	total := opts.Range.Len()
	start := time.Now()
	sum := opts.Prior.summary()
	sum.From, sum.Next = opts.From, opts.From
	if opts.MaxFailures > 0 && sum.FailedTotal() >= uint64(opts.MaxFailures) {
		// Resumed from a sweep that had stopped there: one sweep would
		// have run no further.
		sum.Stopped = true
		return sum
	}
	h := &handout{opts: &opts, total: total, budget: newBudget(opts.Budget, opts.Now)}
	h.next.Store(opts.From)
	results := h.start(ctx, jobs, run)

	// Reorder: outcomes wait here until every earlier seed is delivered. The
	// map is only looked up by index, never ranged over.
	pending := map[uint64]Outcome{}
	want := opts.From
	for o := range results {
		pending[o.Index] = o
		for {
			d, ok := pending[want]
			if !ok || h.stop.Load() {
				break
			}
			delete(pending, want)
			want++
			sum.add(d)
			deliver(d)
			if opts.MaxFailures > 0 && sum.FailedTotal() >= uint64(opts.MaxFailures) {
				sum.Stopped = true
				h.stop.Store(true)
			}
		}
	}
	sum.Wall += time.Since(start)
	sum.Next = want
	sum.Expired = !sum.Stopped && want < total && h.expired.Load() && ctx.Err() == nil
	sum.Interrupted = !sum.Stopped && !sum.Expired && want < total
	return sum
}

// handout gives the shard's indices to the workers, one at a time, until
// the range is done, the context ends, the sweep is stopped, or the budget
// is spent.
type handout struct {
	opts          *Options
	total         uint64
	budget        budget
	next          atomic.Uint64 // the next index to hand out
	stop, expired atomic.Bool
}

// start runs jobs workers and returns their outcomes, in the order they
// finish; the channel closes when the last worker returns.
func (h *handout) start(ctx context.Context, jobs int, run RunFunc) <-chan Outcome {
	results := make(chan Outcome, jobs)
	var wg sync.WaitGroup
	for w := 0; w < jobs; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for !h.stop.Load() && ctx.Err() == nil {
				i, ok := h.take()
				if !ok {
					return
				}
				results <- runOne(i, h.opts.Range.Seed(i), run)
			}
		}()
	}
	go func() {
		wg.Wait()
		close(results)
	}()
	return results
}

// take hands out the next index, or false once there is none to run. The
// budget is read before an index is taken, so a seed is either run whole or
// left to the next sweep, and never before the sweep's first.
func (h *handout) take() (uint64, bool) {
	if h.next.Load() > h.opts.From && h.budget.spent() {
		h.expired.Store(true)
		return 0, false
	}
	i := h.next.Add(1) - 1
	return i, i < h.total
}

func (s *Summary) add(o Outcome) {
	s.Runs++
	s.Events += o.Result.Events
	s.Committed += o.Result.Committed
	if o.Result.Linearizability == linearize.Unknown {
		s.LinearizabilityUnknown++
	}
	st := &o.Result.Stats
	for _, c := range []struct {
		n   uint64
		sum *uint64
	}{
		{st.ViewChanges, &s.Coverage.ViewChanges}, {st.Crashes, &s.Coverage.Crashes},
		{st.Restarts, &s.Coverage.Restarts}, {st.Repairs, &s.Coverage.Repairs},
		{st.StateTransfers, &s.Coverage.StateTransfers}, {st.Network.Partitions, &s.Coverage.Partitions},
		{st.DirectedCuts, &s.Coverage.DirectedCuts},
	} {
		if c.n > 0 {
			*c.sum++
		}
	}
	if o.Result.Disks {
		s.Coverage.Disks++
	}
	if o.Result.StorageFaults > 0 {
		s.Coverage.StorageFaults++
	}
	if len(o.Result.Assists) > 0 {
		s.Assisted++
	}
	if o.Result.RecoveryTicks > 0 {
		s.Recovery.ticks = append(s.Recovery.ticks, o.Result.RecoveryTicks)
	}
	s.Marks.Add(&o.Result.Marks)
	s.MarksFirst.Add(o.Seed, &o.Result.Marks)
	if o.Wall > s.Slowest.Wall || s.Runs == 1 {
		s.Slowest = o
	}
	switch {
	case o.Err != nil:
		s.Errors++
	case o.Result.Verdict.Failed():
		s.Failed[o.Result.Verdict]++
		if s.FirstFailure == nil {
			first := o
			s.FirstFailure = &first
		}
	default:
		s.Passed++
		if o.Result.Verdict == sim.VerdictUnrecoverable {
			s.Unrecoverable++
			s.UnrecoverableRules[o.Result.Rule]++
		}
		if o.Result.Liveness == sim.LivenessUnchecked {
			s.Unchecked++
		}
	}
}

// runOne runs one seed and turns a panic that escaped the run into a crash
// verdict for that seed.
func runOne(i, seed uint64, run RunFunc) (o Outcome) {
	o.Index, o.Seed = i, seed
	began := time.Now()
	defer func() {
		o.Wall = time.Since(began)
		if p := recover(); p != nil {
			o.Err = nil
			o.Result = sim.Result{Seed: seed, Verdict: sim.VerdictCrash, Invariant: "panic",
				Evidence: fmt.Sprintf("the run panicked: %v", p)}
		}
	}()
	o.Result, o.Err = run(seed)
	return o
}
