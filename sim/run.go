package sim

import (
	"fmt"
	"strings"

	"vsrsim/marks"
	"vsrsim/packetsim"
	"vsrsim/replica"
	"vsrsim/sim/check"
	"vsrsim/spec"
	"vsrsim/vsr"
)

// Verdict is a run's outcome.
type Verdict string

// Verdicts. Names are a contract with the CLI's JSON output.
const (
	VerdictPass          Verdict = "pass"
	VerdictSafety        Verdict = "safety"
	VerdictLiveness      Verdict = "liveness"
	VerdictCrash         Verdict = "crash"
	VerdictUnrecoverable Verdict = "unrecoverable"
)

// Liveness judgements (Result.Liveness).
const (
	LivenessChecked   = "checked"
	LivenessUnchecked = "unchecked"
)

// Failed reports whether the verdict is a finding.
func (v Verdict) Failed() bool {
	return v == VerdictSafety || v == VerdictLiveness || v == VerdictCrash
}

// Result is what one run reports.
type Result struct {
	Seed      uint64
	Scenario  string
	Bugs      []string
	Replicas  int
	Verdict   Verdict
	Invariant string
	Evidence  string
	Rule      string // the recoverability rule that made the run unrecoverable
	// Excuse says what an unrecoverable verdict excuses: its rule, the ops
	// and replicas its proof covers, the proof (nil for any other verdict).
	Excuse *Excuse
	// Linearizability is set by a check after the run (verify): linearizable,
	// not linearizable, or unknown with LinearizabilityDetail saying why.
	Linearizability       string
	LinearizabilityDetail string
	// Liveness says whether the liveness phase judged the run: checked, or
	// unchecked when it was skipped or too short for the core to hold a view
	// for StableTicks (a pass then proves safety only).
	Liveness string
	// LivenessOff: the run asked for no liveness phase (Config.LivenessOff).
	LivenessOff bool
	// RecoveryTicks is how long the core took to converge, from the first
	// tick of the liveness phase (0 when it did not converge or the phase
	// was not judged).
	RecoveryTicks uint64
	// Assists are the harness's interventions in the run, in order.
	Assists []Assist
	// CrashesBeyondF: the run let scripted crashes leave more replicas down
	// or amnesiac than the protocol survives (Config.CrashesUnbounded, a
	// file's `crashes beyond-f`); Stats.CrashesSkipped counts the crashes a
	// run without it skipped.
	CrashesBeyondF bool
	// Disks says the replicas journaled to simulated disks (Config.Storage);
	// StorageFaults counts the faults the disks injected.
	Disks         bool
	StorageFaults int
	Ticks         uint64
	Events        uint64
	TraceHash     string
	Committed     uint64
	Stats         Stats
	// Marks counts the protocol branches the run took (docs/marks.md); it is
	// not part of the trace hash.
	Marks   marks.Counts
	History []HistoryOp
	Tail    []string // the last trace lines, for triage
}

// Attach is what a run carries besides its configuration: a script, outputs
// and observers, memory. None of it is data of the run; every field may be
// left empty.
type Attach struct {
	// Script, if set, drives a scenario over virtual time.
	Script Script
	// Observer, if set, receives every trace record as it is made: the
	// NDJSON trace file (sim/ndjson), triage outputs built from the run's own
	// events. It observes only: the run and its trace hash are the same
	// without it.
	Observer Sink
	// Recording, if set, collects the faults the run injects at random
	// (sim/faultrecord.go). It observes only, like Observer.
	Recording *Recording
	// Spare, if set, is memory earlier runs left for this one, and the run
	// leaves its own there for the next (one run at a time). It changes
	// nothing a run does: verify.Run gives each run of a sweep one, so a
	// worker's runs reuse their journals.
	Spare *Spare
}

// Run executes one simulation to its verdict, with what at attaches. A
// replica panic is caught and reported as a crash verdict; an invalid
// configuration is returned as an error.
func Run(cfg Config, at Attach) (Result, error) {
	spare := at.Spare
	t := newTrace(at.Observer, cfg.Replicas, spare)
	c, err := newCluster(cfg, at, t)
	if err != nil {
		return Result{}, err
	}
	c.initExpect()
	res := Result{Seed: cfg.Seed, Scenario: cfg.Scenario, Bugs: cfg.Bugs.Names(), Replicas: cfg.Replicas}
	c.runLoop(&res)
	c.judgeStorage(&res)
	res.StorageFaults = c.StorageFaults()
	res.Disks = c.disks != nil
	res.Ticks = c.now
	res.Events = t.Lines()
	res.TraceHash = t.Hash()
	res.Committed = c.checker.CommittedMax()
	res.Stats = c.stats
	res.Stats.Network = c.net.Stats()
	res.Marks = c.out.Marks
	res.History = c.history
	res.Assists = c.assists
	res.CrashesBeyondF = c.cfg.CrashesUnbounded
	res.LivenessOff = c.cfg.LivenessOff
	if res.Verdict != VerdictPass {
		res.Tail = t.Tail()
	}
	werr := t.err
	c.release(spare)
	if werr != nil {
		return res, fmt.Errorf("writing trace: %w", werr)
	}
	return res, nil
}

func (c *Cluster) runLoop(res *Result) {
	defer func() {
		if p := recover(); p != nil {
			res.Verdict = VerdictCrash
			switch v := p.(type) {
			case vsr.Violation:
				res.Invariant = v.Invariant
				res.Evidence = fmt.Sprintf("t=%d %s", c.now, v.Error())
			case eventsExceeded:
				res.Invariant = "events_max"
				res.Evidence = fmt.Sprintf("t=%d more than %d trace events", c.now, c.cfg.EventsMax)
			default:
				res.Invariant = "panic"
				res.Evidence = fmt.Sprintf("t=%d %s", c.now, oneLine(fmt.Sprint(p)))
			}
		}
	}()
	total := c.cfg.FaultTicks + c.cfg.LivenessTicks
	for c.now = 1; c.now <= total; c.now++ {
		c.step()
		c.tickExpect()
		if c.failure != nil {
			res.Verdict = VerdictSafety
			res.Invariant = c.failure.Invariant
			res.Evidence = fmt.Sprintf("t=%d %s", c.failure.Tick, c.failure.Evidence)
			return
		}
		if c.expect.miss != "" {
			res.Verdict, res.Invariant, res.Evidence = VerdictLiveness, "expect", c.expect.miss
			return
		}
		if c.liveness.active && c.tickLiveness() {
			res.Liveness = LivenessChecked
			res.RecoveryTicks = c.now - c.liveness.since
			c.finishPass(res)
			return
		}
	}
	c.now = total
	if !c.liveness.active || c.cfg.LivenessTicks < c.cfg.StableTicks {
		// No liveness phase, or one too short to converge in: the run
		// passes if it stayed safe, and says it judged no liveness.
		res.Liveness = LivenessUnchecked
		c.finishPass(res)
		return
	}
	res.Liveness = LivenessChecked
	ex, why := c.checker.Stalled(c.cfg.LivenessTicks, c.outstandingRequests(), c.stallGrace())
	if f := c.checker.Failed(); f != nil {
		// The stall's record proved a loss the protocol should have
		// prevented (a committed op's copies dropped, within f).
		res.Verdict = VerdictSafety
		res.Invariant = f.Invariant
		res.Evidence = fmt.Sprintf("t=%d %s; %s", f.Tick, f.Evidence, why)
		return
	}
	if ex != nil && !c.proveStorage(ex) {
		why = "the disks went past the atlas with no fault it forbade: " + ex.Proof + "; " + why
		ex = nil
	}
	if ex != nil {
		res.Verdict = VerdictUnrecoverable
		res.Invariant = "unrecoverable"
		c.excuse(res, ex)
		res.Evidence = why
		return
	}
	res.Verdict = VerdictLiveness
	res.Invariant = "liveness"
	res.Evidence = why
}

func (c *Cluster) finishPass(res *Result) {
	if f := c.checker.Failed(); f != nil {
		res.Verdict = VerdictSafety
		res.Invariant = f.Invariant
		res.Evidence = fmt.Sprintf("t=%d %s", f.Tick, f.Evidence)
		return
	}
	if miss := c.finishExpect(); miss != "" {
		res.Verdict, res.Invariant, res.Evidence = VerdictLiveness, "expect", miss
		return
	}
	if committed := c.checker.CommittedMax(); committed < c.cfg.CommitFloor {
		res.Verdict = VerdictLiveness
		res.Invariant = "commit_floor"
		res.Evidence = fmt.Sprintf("only %d ops committed, below the floor of %d: the run proves nothing", committed, c.cfg.CommitFloor)
		return
	}
	res.Verdict = VerdictPass
}

func oneLine(s string) string {
	s = strings.ReplaceAll(s, "\n", " ")
	if len(s) > 300 {
		s = s[:300] + "..."
	}
	return s
}

// Journal memory is most of what a run allocates. A finished run, and a
// replica that crashes on a memory journal, hand theirs back (replica.Release)
// for the replicas made next in this process: a sweep worker's next run, a
// restart. It changes no run: recycled memory comes back cleared.

// releaseCrashed recycles the journal of replica r, which just crashed, if its
// durable state does not keep it.
func (c *Cluster) releaseCrashed(r *replica.Replica) {
	if c.cfg.Durability != replica.DurabilityWAL {
		r.Release()
	}
}

// release recycles every replica's journal, and into spare, if not nil, the
// network's and the trace's memory; the cluster is finished. A restarted
// replica shares its write-ahead journal with the Durable it came from, so
// each journal is released once: a live replica's, or a crashed one's
// Durable.
func (c *Cluster) release(spare *Spare) {
	if spare != nil {
		c.net.Recycle(&spare.net)
		spare.trace = c.trace
		spare.checker = c.checker
		if c.spec != nil {
			spare.spec = c.spec
		}
		if c.disks != nil {
			spare.disks = c.disks
		}
	}
	for i, r := range c.replicas {
		if r != nil {
			r.Release()
		} else {
			c.durable[i].Release()
		}
		c.replicas[i] = nil
		c.durable[i] = replica.Durable{}
	}
}

// Spare is the memory a finished run leaves for the next run of the same
// worker (Attach.Spare): the replicas' journals, the network's packet pool and
// queue, the trace, the oracle's records, the disks' media. One run at a time, and, like replica.Spare, it changes
// nothing a run does: what comes back is cleared.
type Spare struct {
	// Replica is lent to the run's replicas (replica.Options.Spare).
	Replica replica.Spare
	net     packetsim.Spare[vsr.Message]
	trace   *Trace
	checker *check.Checker
	spec    *spec.Model
	disks   *disks
}

// replicaOptions are replica i's options, lent the spare's journals if the
// run has a spare.
func (c *Cluster) replicaOptions(i int) replica.Options {
	o := c.cfg.ReplicaOptions(i)
	if c.spare != nil {
		o.Spare = &c.spare.Replica
	}
	return o
}

// takeChecker returns the oracle spare holds, if any, and forgets it.
func (s *Spare) takeChecker() *check.Checker {
	if s == nil {
		return nil
	}
	c := s.checker
	s.checker = nil
	return c
}
