package main

import (
	"context"
	"fmt"
	"io"
	"maps"
	"os"
	"os/signal"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"vsrsim/marks"
	"vsrsim/outcome"
	"vsrsim/prng"
	"vsrsim/sim"
	"vsrsim/sim/settings"
	"vsrsim/sweep"
	"vsrsim/verify"
)

// Bounds on sweep counts: past them a typo, not a plan, is the likelier cause.
const (
	sweepCountMax = 1 << 32
	sweepJobsMax  = 1024
)

type sweepOptions struct {
	run         *runOptions
	flags       interface{ Changed(string) bool } // for --seeds and --count
	seeds       string
	count       uint64
	start       string
	jobs        int
	shard       string
	maxFailures int
	all         bool
	failures    string
	linHTMLDir  string
	junit       string
	marks       bool
	output      *enumFlag
	// forBudget, cursor, resume: a time-boxed sweep that a later one goes on
	// from (sweep_resume.go); cursor0 is the cursor resumed from, zero
	// without --resume.
	forBudget    time.Duration
	cursor       string
	resume       string
	resumeCursor bool
	cursor0      sweep.Cursor
	excused      string
}

func newSweepCmd() *cobra.Command {
	o := &sweepOptions{run: newRunOptions(), output: newEnumFlag("table", "table", "json")}
	cmd := &cobra.Command{
		Use:   "sweep [--seeds A-B | --count N [--start S]] [flags]",
		Short: "Run many seeds in parallel and report every failure",
		Long: `Run a range of seeds, each an independent single-threaded simulation, on
--jobs workers. Results come back in seed order whatever --jobs is, so two
sweeps of the same seeds print the same failures. Every failure is appended to
--failures FILE (JSONL, one run -o json object per line, flushed as it is found)
with the command that replays it (a file that already holds an earlier sweep's
lines gets a line on stderr saying so, unless the sweep resumes). Ctrl-C stops
the sweep and keeps what it found.

--shard I/N keeps the seeds at index k of the range with k % N == I, so N
machines running shards 0..N-1 of one range cover it exactly once.

--for DURATION starts no new seed once DURATION of wall time is spent (the
runs in flight finish; the first seed always runs), and --cursor FILE records
where the sweep stopped: the next seed, the counts so far and the lines
written to --failures and --excused. --resume FILE goes on from such a cursor
with the same run flags (its range, unless the range flags name the same
one), and rewrites it unless --cursor names another file; the summary is the
one a single sweep of every seed covered would print, and states the seeds
covered. --resume-cursor resumes from --cursor FILE when it exists and starts
the range when it does not, so one command line serves a job that is rerun.
--excused FILE appends every run that ended unrecoverable.

Exit code: 0 if every run passed (unrecoverable counts as a pass), else the code
of the most severe verdict found: 1 safety, 4 crash, 3 liveness; 130 if
interrupted before any finding (a sweep stopped by --for is not interrupted);
64 for bad arguments, 65 a malformed scenario file or cursor, 70 an internal
error (such as a failed write of --failures).`,
		Example: `  vsrsim sweep --count 1000
  vsrsim sweep --seeds 1-500 --jobs 2 -o json
  vsrsim sweep --count 5000 --start "$(git rev-parse HEAD)" --shard 3/8 --failures failures.jsonl
  vsrsim sweep --scenario hollow-op --bug narrow-repair-under-commit-lag --seeds 1-20
  vsrsim sweep --count 100000 --for 50m --cursor cursor.json --failures failures.jsonl
  vsrsim sweep --resume cursor.json --for 50m --failures failures.jsonl`,
		Args:              cobra.NoArgs,
		ValidArgsFunction: cobra.NoFileCompletions,
		RunE: func(cmd *cobra.Command, _ []string) error {
			o.flags = cmd.Flags()
			ctx, stop := signal.NotifyContext(cmd.Context(), os.Interrupt, syscall.SIGTERM)
			defer stop()
			return o.sweep(ctx, cmd.OutOrStdout(), cmd.ErrOrStderr())
		},
	}
	f := cmd.Flags()
	f.StringVar(&o.seeds, "seeds", "", "inclusive seed range `A-B` (each a seed as --seed takes it)")
	f.Uint64Var(&o.count, "count", 100, "number of seeds, from --start")
	f.StringVar(&o.start, "start", "1", "first seed (decimal, 0x hex, or a 40-hex commit hash; default the --scenario-file's seed line if it has one, else 1)")
	f.IntVar(&o.jobs, "jobs", runtime.NumCPU(), "parallel workers, each running one seed at a time")
	f.StringVar(&o.shard, "shard", "", "run shard `I/N` of the range (0 <= I < N)")
	f.IntVar(&o.maxFailures, "max-failures", 0, "stop after this many failures (0: never)")
	f.StringVar(&o.failures, "failures", "", "append each failure as one JSON line to `FILE`")
	f.BoolVar(&o.all, "all", false, "print every run, not only failures (with -o json: one object per run, in seed order)")
	f.StringVar(&o.linHTMLDir, "linearizability-html-dir", "", "write porcupine's visualisation of each linearizability failure to `DIR`/linearizability-SEED.html")
	f.BoolVar(&o.marks, "marks", false, "report, per coverage mark (docs/marks.md), how many runs reached it")
	f.StringVar(&o.junit, "junit", "", "write the findings as JUnit XML to `FILE` when the sweep ends (with --resume, added to the sweeps it holds)")
	f.DurationVar(&o.forBudget, "for", 0, "start no new seed after `DURATION` of wall time (runs in flight finish)")
	f.StringVar(&o.cursor, "cursor", "", "write where the sweep stopped (next seed, counts, findings written) to `FILE` as JSON")
	f.StringVar(&o.resume, "resume", "", "go on from the cursor in `FILE`, and rewrite it there unless --cursor is given")
	f.BoolVar(&o.resumeCursor, "resume-cursor", false, "go on from --cursor FILE if it exists, else start the range (a rerun pod or job)")
	f.StringVar(&o.excused, "excused", "", "append each run that ended unrecoverable (exit 0) as one JSON line to `FILE`")
	f.VarP(o.output, "output", "o", "output format")
	o.run.addShapeFlags(cmd)
	_ = cmd.RegisterFlagCompletionFunc("output", cobra.FixedCompletions(o.output.allowed, cobra.ShellCompDirectiveNoFileComp))
	for _, name := range []string{"seeds", "count", "start", "jobs", "shard", "max-failures", "for"} {
		_ = cmd.RegisterFlagCompletionFunc(name, cobra.NoFileCompletions)
	}
	return cmd
}

// startText is --start, or, if it was not given, the seed line of the
// --scenario-file (a file without one, or unreadable, leaves the default; the
// run's configuration reports a bad file).
func (o *sweepOptions) startText(flags interface{ Changed(string) bool }) string {
	if flags.Changed("start") || o.run.scenarioFile.value == "" {
		return o.start
	}
	if file, err := readScenarioFile(o.run.scenarioFile.value); err == nil {
		if seed, ok := file.Seed(); ok {
			return strconv.FormatUint(seed, 10)
		}
	}
	return o.start
}

// parseRange turns the seed flags into a sweep range; every error is a usage
// error.
func (o *sweepOptions) parseRange(flags interface{ Changed(string) bool }) (sweep.Range, error) {
	var r sweep.Range
	var err error
	if o.seeds != "" {
		r.First, r.Count, err = o.parseSeeds(flags)
	} else {
		r.First, r.Count, err = o.parseStartCount(flags)
	}
	if err != nil {
		return r, err
	}
	if r.Shard, r.ShardN, err = o.parseShard(); err != nil {
		return r, err
	}
	if err := r.Validate(); err != nil {
		return r, usageErrorf("--shard: %v", err)
	}
	if r.Len() == 0 {
		// A shard with nothing to run would exit 0 as if it had passed.
		return r, usageErrorf("--shard %s: a range of %d seeds leaves this shard no seed to run", o.shard, r.Count)
	}
	return r, nil
}

// parseSeeds reads --seeds A-B, which excludes --count and --start, as a
// first seed and a count.
func (o *sweepOptions) parseSeeds(flags interface{ Changed(string) bool }) (first, count uint64, err error) {
	if flags.Changed("count") || flags.Changed("start") {
		return 0, 0, usageErrorf("--seeds: give either --seeds or --count/--start, not both")
	}
	a, b, ok := strings.Cut(o.seeds, "-")
	if !ok {
		return 0, 0, usageErrorf("--seeds %q: want A-B", o.seeds)
	}
	if first, err = prng.ParseSeed(a); err != nil {
		return 0, 0, usageErrorf("--seeds: %v", err)
	}
	last, err := prng.ParseSeed(b)
	if err != nil {
		return 0, 0, usageErrorf("--seeds: %v", err)
	}
	if last < first {
		return 0, 0, usageErrorf("--seeds %s: the range ends before it starts", o.seeds)
	}
	// The whole seed space has 2^64 seeds, one more than a count can hold.
	if last-first == ^uint64(0) {
		return 0, 0, usageErrorf("--seeds %s: the range is too large", o.seeds)
	}
	return first, last - first + 1, nil
}

// parseStartCount reads --start (or the scenario file's seed) and --count as
// a first seed and a count.
func (o *sweepOptions) parseStartCount(flags interface{ Changed(string) bool }) (first, count uint64, err error) {
	if first, err = prng.ParseSeed(o.startText(flags)); err != nil {
		return 0, 0, usageErrorf("--start: %v", err)
	}
	if o.count == 0 || o.count > sweepCountMax {
		return 0, 0, usageErrorf("--count %d: must be 1..%d", o.count, uint64(sweepCountMax))
	}
	if first+(o.count-1) < first {
		return 0, 0, usageErrorf("--start %s --count %d: the range runs past the last seed, 2^64-1", o.start, o.count)
	}
	return first, o.count, nil
}

// parseShard reads --shard I/N; without it the range is one whole shard
// (0, 0). That I < N is the range's own check.
func (o *sweepOptions) parseShard() (shard, shards uint64, err error) {
	if o.shard == "" {
		return 0, 0, nil
	}
	i, n, ok := strings.Cut(o.shard, "/")
	si, err1 := strconv.ParseUint(i, 10, 64)
	sn, err2 := strconv.ParseUint(n, 10, 64)
	if !ok || err1 != nil || err2 != nil || sn == 0 {
		return 0, 0, usageErrorf("--shard %q: want I/N with 0 <= I < N", o.shard)
	}
	return si, sn, nil
}

func (o *sweepOptions) sweep(ctx context.Context, stdout, stderr io.Writer) error {
	rng, err := o.check()
	if err != nil {
		return err
	}
	sink, err := o.openSink(stdout, stderr, rng)
	if err != nil {
		return err
	}
	defer sink.close()

	run := func(seed uint64) (sim.Result, error) {
		cfg, at, err := o.run.config(seed)
		if err != nil {
			return sim.Result{}, err
		}
		return verify.Run(cfg, at)
	}
	sum := sweep.Run(ctx, sweep.Options{
		Range: rng, Jobs: o.jobs, MaxFailures: o.maxFailures,
		From: o.cursor0.NextIndex, Prior: o.cursor0.Counts, Budget: o.forBudget,
	}, run, sink.deliver)
	sink.progress.clear()
	if err := o.finish(stdout, stderr, rng, &sum, sink); err != nil {
		return err
	}
	return silentExit(sweepExitCode(sum))
}

// openSink opens the files the sweep writes as it goes, so a path that
// cannot be written fails before the first seed.
func (o *sweepOptions) openSink(stdout, stderr io.Writer, rng sweep.Range) (*sweepSink, error) {
	sink := &sweepSink{o: o, stdout: stdout, stderr: stderr, asJSON: o.output.value == "json"}
	var err error
	resuming := o.resume != ""
	if sink.failures, err = openAppend("--failures", o.failures, stderr, resuming); err != nil {
		return nil, err
	}
	if sink.excused, err = openAppend("--excused", o.excused, stderr, resuming); err != nil {
		sink.close()
		return nil, err
	}
	if sink.junit, err = openJUnit(o.junit, o.resume != ""); err != nil {
		sink.close()
		return nil, err
	}
	sink.progress = newProgress(stderr, rng.Len()-o.cursor0.NextIndex)
	return sink, nil
}

// openAppend opens a JSONL output for appending; no path, no file. A file
// that already holds lines, outside a resumed sweep, gets a line on stderr:
// the runs of two sweeps (of two builds, say) would otherwise read as one's.
func openAppend(flag, path string, stderr io.Writer, resuming bool) (*os.File, error) {
	if path == "" {
		return nil, nil
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o644)
	if err != nil {
		return nil, internalErrorf("%s: %v", flag, errUnwrapPath(err))
	}
	if st, err := f.Stat(); err == nil && st.Size() > 0 && !resuming {
		fmt.Fprintf(stderr, "vsrsim: %s %s already holds %d bytes of an earlier sweep; this one appends after them\n", flag, path, st.Size())
	}
	return f, nil
}

// finish writes what the sweep reports once it ends: the JUnit file, the
// cursor, the summary and the line on stderr saying why it stopped early.
func (o *sweepOptions) finish(stdout, stderr io.Writer, rng sweep.Range, sum *sweep.Summary, sink *sweepSink) error {
	if err := sink.junit.finish(*sum, rng, o.jobs); err != nil {
		return internalErrorf("--junit: %v", err)
	}
	if sink.writeErr != nil {
		return internalErrorf("writing failures: %v", sink.writeErr)
	}
	if err := o.writeCursor(rng, sum, sink); err != nil {
		return err
	}
	if err := o.writeSummary(stdout, *sum, rng); err != nil {
		return internalErrorf("writing output: %v", err)
	}
	switch {
	case sum.Interrupted:
		fmt.Fprintf(stderr, "vsrsim: interrupted after %d of %d runs\n", sum.Runs, rng.Len())
	case sum.Expired:
		fmt.Fprintf(stderr, "vsrsim: --for %s spent after %d of %d runs; next seed %d%s\n",
			o.forBudget, sum.Runs, rng.Len(), rng.Seed(sum.Next), o.resumeHint())
	}
	return nil
}

// resumeHint tells how to go on from a sweep stopped early.
func (o *sweepOptions) resumeHint() string {
	if path := o.cursorPath(); path != "" {
		return " (go on with --resume " + path + ")"
	}
	return " (--cursor FILE records it for --resume)"
}

// check validates every flag before the first seed runs, and returns the
// range to sweep.
func (o *sweepOptions) check() (sweep.Range, error) {
	rng, err := o.parseRange(o.flags)
	if err != nil {
		return rng, err
	}
	if o.jobs < 1 || o.jobs > sweepJobsMax {
		return rng, usageErrorf("--jobs %d: must be 1..%d", o.jobs, sweepJobsMax)
	}
	if o.maxFailures < 0 {
		return rng, usageErrorf("--max-failures must be 0 or more, got %d", o.maxFailures)
	}
	if o.forBudget < 0 {
		return rng, usageErrorf("--for %s: must be positive", o.forBudget)
	}
	if rng, err = o.resumeFrom(rng); err != nil {
		return rng, err
	}
	// Every seed shares the flags: a configuration error shows on the first.
	if _, _, err := o.run.config(rng.Seed(0)); err != nil {
		return rng, err
	}
	if o.linHTMLDir != "" {
		if st, err := os.Stat(o.linHTMLDir); err != nil || !st.IsDir() {
			return rng, usageErrorf("--linearizability-html-dir %s: not a directory", o.linHTMLDir)
		}
	}
	return rng, nil
}

// sweepSink takes the sweep's outcomes, in seed order: it prints each one
// the flags ask for, keeps each failure in --failures and
// --linearizability-html-dir, and adds each to the JUnit report.
type sweepSink struct {
	o              *sweepOptions
	stdout, stderr io.Writer
	asJSON         bool
	progress       *progress
	failures       *os.File // nil without --failures
	excused        *os.File // nil without --excused
	junit          *junitReport
	// findingsWritten and excusedWritten count the lines this sweep
	// appended to --failures and --excused, for the cursor.
	findingsWritten, excusedWritten uint64
	// writeErr is the first failed write; after it no more failures are
	// kept, since the files would miss one, but the sweep runs on.
	writeErr error
}

// close closes the files the sink appends to; a nil file is skipped.
func (s *sweepSink) close() {
	for _, f := range []*os.File{s.failures, s.excused} {
		if f != nil {
			f.Close()
		}
	}
}

func (s *sweepSink) deliver(out sweep.Outcome) {
	s.progress.step(out.Failed())
	if out.Err != nil {
		s.progress.clear()
		fmt.Fprintf(s.stderr, "vsrsim: seed %d: %s\n", out.Seed, oneLine(out.Err.Error()))
		s.junit.add(out, nil)
		return
	}
	excused := out.Result.Verdict == sim.VerdictUnrecoverable && s.excused != nil
	if !out.Failed() && !s.o.all && !excused {
		return
	}
	cfg, _, _ := s.o.run.config(out.Seed)
	rec := newRunJSON(out.Result, settings.Describe(&cfg), s.o.run.replay(out.Seed))
	if excused {
		s.keepExcused(&rec)
	}
	if !out.Failed() && !s.o.all {
		return
	}
	s.junit.add(out, &rec)
	if out.Failed() {
		s.keepFailure(out, &rec)
	}
	s.progress.clear()
	s.print(out, &rec)
}

// keepExcused appends an unrecoverable run to --excused: its whole record,
// so the rule and evidence (and whatever the run states of its excuse) are
// there with the command that replays it.
func (s *sweepSink) keepExcused(rec *runJSON) {
	if s.writeErr != nil {
		return
	}
	if err := writeJSON(s.excused, *rec); err != nil {
		s.writeErr = fmt.Errorf("--excused: %w", err)
		return
	}
	s.excusedWritten++
}

// keepFailure appends a failure to --failures and writes its porcupine page
// for a linearizability failure.
func (s *sweepSink) keepFailure(out sweep.Outcome, rec *runJSON) {
	if s.failures != nil && s.writeErr == nil {
		if s.writeErr = writeJSON(s.failures, *rec); s.writeErr == nil {
			s.findingsWritten++
		}
	}
	if s.o.linHTMLDir != "" && out.Result.Invariant == outcome.InvLinearizable && s.writeErr == nil {
		s.writeErr = writeLinearizabilityPage(s.o.linHTMLDir, &out.Result)
	}
}

// print writes one run to stdout: its record with -o json, else one line
// for a pass (with --all) and two for a failure, the second how to replay it.
func (s *sweepSink) print(out sweep.Outcome, rec *runJSON) {
	switch {
	case s.asJSON:
		if err := writeJSON(s.stdout, *rec); err != nil && s.writeErr == nil {
			s.writeErr = err
		}
	case out.Failed():
		fmt.Fprintf(s.stdout, "FAIL seed %d %s %s: %s\n  replay: %s\n", out.Seed, out.Result.Verdict,
			out.Result.Invariant, oneLine(out.Result.Evidence), rec.Replay)
	default:
		rule := ""
		if rec.Rule != "" {
			rule = " (rule " + rec.Rule + ")"
		}
		fmt.Fprintf(s.stdout, "%s seed %d%s\n", strings.ToUpper(string(out.Result.Verdict)), out.Seed, rule)
	}
}

// writeSummary ends the sweep's output: the summary object with -o json,
// else the summary table, and with --marks the coverage and never-mark tables.
func (o *sweepOptions) writeSummary(w io.Writer, sum sweep.Summary, rng sweep.Range) error {
	if o.output.value == "json" {
		out := newSweepJSON(sum, rng, o.jobs)
		if o.marks {
			out.Marks = sum.Marks.Map()
			out.MarksNever = neverJSON(&sum)
		}
		return writeJSON(w, out)
	}
	if err := writeSweepTable(w, sum, rng, o.jobs); err != nil || !o.marks {
		return err
	}
	if err := writeMarksTable(w, &sum); err != nil {
		return err
	}
	return writeNeverTable(w, &sum)
}

// sweepExitCode is the code of the most severe finding (outcome's order:
// safety, then crash, then liveness); 130 for an interrupted sweep that found
// nothing.
func sweepExitCode(sum sweep.Summary) int {
	return findingsExitCode(func(v sim.Verdict) uint64 { return sum.Failed[v] }, sum.Errors > 0, sum.Interrupted)
}

// findingsExitCode is the exit code of a command that runs many
// simulations: the most severe verdict found (failed counts them), else 70
// for runs that errored and 130 for an interrupted one.
func findingsExitCode(failed func(sim.Verdict) uint64, errors, interrupted bool) int {
	if v, ok := outcome.Worst(func(v string) uint64 { return failed(sim.Verdict(v)) }); ok {
		return outcome.ExitCode(v)
	}
	switch {
	case errors:
		return exitSoftware
	case interrupted:
		return exitInterrupted
	}
	return exitPass
}

// sweepJSON is the summary object that ends `sweep -o json`. The names of runs,
// passed, failed_total, failed, runs_per_s, events_per_s and first_failure_seed
// are a contract; the rest may grow.
type sweepJSON struct {
	Summary          bool       `json:"summary"` // marks this line as the summary
	Runs             uint64     `json:"runs"`
	Passed           uint64     `json:"passed"`
	FailedTotal      uint64     `json:"failed_total"`
	Failed           failedJSON `json:"failed"`
	RunsPerS         float64    `json:"runs_per_s"`
	EventsPerS       float64    `json:"events_per_s"`
	FirstFailureSeed *uint64    `json:"first_failure_seed"` // null when nothing failed
	FirstFailureHex  *string    `json:"first_failure_seed_hex"`
	Unrecoverable    uint64     `json:"unrecoverable"`
	// Assisted: runs the harness helped at least once (each run's assists);
	// Unchecked: passing runs whose liveness phase judged nothing.
	Assisted  uint64 `json:"assisted"`
	Unchecked uint64 `json:"unchecked"`
	// RecoveryTicks: ticks from the start of the liveness phase to the
	// core's convergence, over the runs that converged.
	RecoveryTicks  recoveryJSON  `json:"recovery_ticks"`
	Errors         uint64        `json:"errors"`
	Events         uint64        `json:"events"`
	CommittedAvg   float64       `json:"ops_committed_avg"`
	WallS          float64       `json:"wall_s"`
	SlowestSeed    uint64        `json:"slowest_seed"`
	SlowestSeedHex string        `json:"slowest_seed_hex"`
	SlowestWallS   float64       `json:"slowest_wall_s"`
	Interrupted    bool          `json:"interrupted"`
	Stopped        bool          `json:"stopped_at_max_failures"`
	Expired        bool          `json:"stopped_at_for"`
	Jobs           int           `json:"jobs"`
	Range          sweepRangeOut `json:"range"`
	// Covered is the seeds of the range's shard done so far, by this sweep
	// and any it resumed; ResumedAt the index this sweep started at.
	Covered   coveredJSON `json:"covered"`
	ResumedAt uint64      `json:"resumed_at_index"`
	// UnrecoverableRules counts the unrecoverable runs per rule.
	UnrecoverableRules map[string]uint64 `json:"unrecoverable_rules"`
	// Exercised counts the runs in which each mechanism happened at least once.
	Exercised sweep.Coverage `json:"exercised"`
	// LinearizabilityUnknown counts the runs whose linearizability check
	// answered unknown: its step budget ran out before an answer.
	LinearizabilityUnknown uint64 `json:"linearizability_unknown"`
	// Marks, with --marks, counts per coverage mark the runs that reached it,
	// every mark listed (a zero is the finding).
	Marks map[string]uint64 `json:"marks,omitempty"`
	// MarksNever, with --marks, lists every mark no correct run reaches
	// (marks.Mark.Never), with the runs that reached it and the first of
	// them: a reached one is a finding, not coverage.
	MarksNever []neverMarkJSON `json:"marks_never,omitempty"`
}

type recoveryJSON struct {
	Runs int    `json:"runs"`
	P50  uint64 `json:"p50"`
	P99  uint64 `json:"p99"`
	Max  uint64 `json:"max"`
}

func newRecoveryJSON(r *sweep.Recovery) recoveryJSON {
	return recoveryJSON{Runs: r.Runs(), P50: r.Percentile(50), P99: r.Percentile(99), Max: r.Max()}
}

type neverMarkJSON struct {
	Mark         string  `json:"mark"`
	Reason       string  `json:"reason"`
	Runs         uint64  `json:"runs"`
	FirstSeed    *uint64 `json:"first_seed"` // null when no run reached it
	FirstSeedHex *string `json:"first_seed_hex"`
}

// coveredJSON is the part of a shard's seed order done: the seeds at
// indices 0..runs-1, first to last, and the next one (null once complete).
type coveredJSON struct {
	Runs     uint64  `json:"runs"`
	First    *uint64 `json:"first"`
	Last     *uint64 `json:"last"`
	Next     *uint64 `json:"next"`
	Complete bool    `json:"complete"`
}

func newCoveredJSON(sum *sweep.Summary, rng sweep.Range) coveredJSON {
	c := coveredJSON{Runs: sum.Next, Complete: sum.Next >= rng.Len()}
	if sum.Next > 0 {
		first, last := rng.Seed(0), rng.Seed(sum.Next-1)
		c.First, c.Last = &first, &last
	}
	if !c.Complete {
		next := rng.Seed(sum.Next)
		c.Next = &next
	}
	return c
}

type failedJSON struct {
	Safety   uint64 `json:"safety"`
	Liveness uint64 `json:"liveness"`
	Crash    uint64 `json:"crash"`
}

type sweepRangeOut struct {
	First    uint64 `json:"first"`
	FirstHex string `json:"first_hex"`
	Count    uint64 `json:"count"`
	Shard    uint64 `json:"shard"`
	Shards   uint64 `json:"shards"`
}

func newSweepJSON(sum sweep.Summary, rng sweep.Range, jobs int) sweepJSON {
	out := sweepJSON{
		Summary:     true,
		Runs:        sum.Runs,
		Passed:      sum.Passed,
		FailedTotal: sum.FailedTotal(),
		Failed: failedJSON{
			Safety:   sum.Failed[sim.VerdictSafety],
			Liveness: sum.Failed[sim.VerdictLiveness],
			Crash:    sum.Failed[sim.VerdictCrash],
		},
		RunsPerS:       round1(sum.RunsPerSecond()),
		EventsPerS:     round1(sum.EventsPerSecond()),
		Unrecoverable:  sum.Unrecoverable,
		Assisted:       sum.Assisted,
		Unchecked:      sum.Unchecked,
		Errors:         sum.Errors,
		Events:         sum.Events,
		CommittedAvg:   round1(float64(sum.Committed) / float64(max(sum.Runs, 1))),
		WallS:          round3(sum.Wall.Seconds()),
		SlowestSeed:    sum.Slowest.Seed,
		SlowestSeedHex: seedHex(sum.Slowest.Seed),
		SlowestWallS:   round3(sum.Slowest.Wall.Seconds()),
		Interrupted:    sum.Interrupted,
		Stopped:        sum.Stopped,
		Expired:        sum.Expired,
		Covered:        newCoveredJSON(&sum, rng),
		ResumedAt:      sum.From,
		Jobs:           jobs,
		Range:          sweepRangeOut{First: rng.First, FirstHex: seedHex(rng.First), Count: rng.Count, Shard: rng.Shard, Shards: max(rng.ShardN, 1)},
		Exercised:      sum.Coverage,
		RecoveryTicks:  newRecoveryJSON(&sum.Recovery),
	}
	out.LinearizabilityUnknown = sum.LinearizabilityUnknown
	out.UnrecoverableRules = sum.UnrecoverableRules
	if out.UnrecoverableRules == nil {
		out.UnrecoverableRules = map[string]uint64{}
	}
	if sum.FirstFailure != nil {
		seed, hex := sum.FirstFailure.Seed, seedHex(sum.FirstFailure.Seed)
		out.FirstFailureSeed, out.FirstFailureHex = &seed, &hex
	}
	return out
}

func round1(x float64) float64 { return float64(int64(x*10+0.5)) / 10 }
func round3(x float64) float64 { return float64(int64(x*1000+0.5)) / 1000 }

func writeSweepTable(w io.Writer, sum sweep.Summary, rng sweep.Range, jobs int) error {
	first := "-"
	if sum.FirstFailure != nil {
		first = strconv.FormatUint(sum.FirstFailure.Seed, 10)
	}
	shard := "-"
	if rng.ShardN > 1 {
		shard = fmt.Sprintf("%d/%d", rng.Shard, rng.ShardN)
	}
	rows := [][]string{
		{"seeds", fmt.Sprintf("%d from %d (shard %s)", rng.Len(), rng.First, shard)},
		{"covered", coveredText(&sum, rng)},
		{"runs", fmt.Sprint(sum.Runs)},
		{"passed", fmt.Sprintf("%d (%d unrecoverable)", sum.Passed, sum.Unrecoverable)},
		{"assisted by the harness", share(sum.Assisted, sum.Runs)},
		{"liveness unchecked", share(sum.Unchecked, sum.Runs)},
		{"recovery ticks p50 / p99 / max", fmt.Sprintf("%d / %d / %d (%d runs converged)",
			sum.Recovery.Percentile(50), sum.Recovery.Percentile(99), sum.Recovery.Max(), sum.Recovery.Runs())},
		{"linearizability unknown", fmt.Sprint(sum.LinearizabilityUnknown)},
		{"failed: safety", fmt.Sprint(sum.Failed[sim.VerdictSafety])},
		{"failed: liveness", fmt.Sprint(sum.Failed[sim.VerdictLiveness])},
		{"failed: crash", fmt.Sprint(sum.Failed[sim.VerdictCrash])},
		{"errors", fmt.Sprint(sum.Errors)},
		{"first failure seed", first},
		{"runs/s", fmt.Sprintf("%.1f (%d jobs)", sum.RunsPerSecond(), jobs)},
		{"events/s", fmt.Sprintf("%.0f", sum.EventsPerSecond())},
		{"ops committed per run", fmt.Sprintf("%.1f", float64(sum.Committed)/float64(max(sum.Runs, 1)))},
		{"slowest seed", fmt.Sprintf("%d (%.3f s)", sum.Slowest.Seed, sum.Slowest.Wall.Seconds())},
		{"runs with view changes", share(sum.Coverage.ViewChanges, sum.Runs)},
		{"runs with crashes / restarts", share(sum.Coverage.Crashes, sum.Runs) + " / " + share(sum.Coverage.Restarts, sum.Runs)},
		{"runs with repairs", share(sum.Coverage.Repairs, sum.Runs)},
		{"runs with state transfers", share(sum.Coverage.StateTransfers, sum.Runs)},
		{"runs with partitions", share(sum.Coverage.Partitions, sum.Runs)},
		{"runs with one-way cuts (aimed)", share(sum.Coverage.DirectedCuts, sum.Runs)},
		{"runs on disks / with storage faults", share(sum.Coverage.Disks, sum.Runs) + " / " + share(sum.Coverage.StorageFaults, sum.Runs)},
		{"status", sweepStatus(&sum)},
	}
	// Each rule an unrecoverable run named, after the passed row it refines.
	var ruleRows [][]string
	for _, rule := range slices.Sorted(maps.Keys(sum.UnrecoverableRules)) {
		ruleRows = append(ruleRows, []string{"unrecoverable: " + orNone(rule), fmt.Sprint(sum.UnrecoverableRules[rule])})
	}
	rows = slices.Insert(rows, 4, ruleRows...)
	t := newTable(w, "sweep", "")
	if err := t.Bulk(rows); err != nil {
		return err
	}
	return t.Render()
}

// coveredText is the table's statement of the seeds done: all of them, or
// the first to the last done and the next, with the index this sweep
// resumed at.
func coveredText(sum *sweep.Summary, rng sweep.Range) string {
	c := newCoveredJSON(sum, rng)
	text := "none"
	if c.First != nil {
		text = fmt.Sprintf("%d of %d seeds, %d to %d", c.Runs, rng.Len(), *c.First, *c.Last)
	}
	if c.Next != nil {
		text += fmt.Sprintf("; next seed %d", *c.Next)
	}
	switch {
	case sum.From >= rng.Len():
		text += " (resumed with nothing left to run)"
	case sum.From > 0:
		text += fmt.Sprintf(" (resumed at seed %d)", rng.Seed(sum.From))
	}
	return text
}

func sweepStatus(sum *sweep.Summary) string {
	switch {
	case sum.Interrupted:
		return "interrupted"
	case sum.Stopped:
		return "stopped at --max-failures"
	case sum.Expired:
		return "stopped at --for"
	}
	return "complete"
}

// writeMarksTable lists every coverage mark a correct run can reach, in the
// order of docs/marks.md, with the runs that reached it.
func writeMarksTable(w io.Writer, sum *sweep.Summary) error {
	rows := make([][]string, 0, marks.Count)
	for m := marks.Mark(0); m < marks.Count; m++ {
		if m.Never() == "" {
			rows = append(rows, []string{m.String(), share(sum.Marks[m], sum.Runs)})
		}
	}
	t := newTable(w, "mark", "runs")
	if err := t.Bulk(rows); err != nil {
		return err
	}
	return t.Render()
}

func neverJSON(sum *sweep.Summary) []neverMarkJSON {
	var out []neverMarkJSON
	for m := marks.Mark(0); m < marks.Count; m++ {
		if m.Never() == "" {
			continue
		}
		j := neverMarkJSON{Mark: m.String(), Reason: m.Never(), Runs: sum.Marks[m]}
		if seed, ok := sum.MarksFirst.First(m); ok {
			hex := seedHex(seed)
			j.FirstSeed, j.FirstSeedHex = &seed, &hex
		}
		out = append(out, j)
	}
	return out
}

// writeNeverTable lists the marks no correct run reaches apart from the
// coverage table, and names each one a run reached as a finding, with the
// seed that replays it.
func writeNeverTable(w io.Writer, sum *sweep.Summary) error {
	var rows [][]string
	for _, j := range neverJSON(sum) {
		first := "-"
		if j.FirstSeed != nil {
			first = fmt.Sprint(*j.FirstSeed)
		}
		rows = append(rows, []string{j.Mark, fmt.Sprint(j.Runs), first})
	}
	t := newTable(w, "never-mark", "runs", "first seed")
	if err := t.Bulk(rows); err != nil {
		return err
	}
	if err := t.Render(); err != nil {
		return err
	}
	for _, h := range marks.NeverReached(&sum.Marks, &sum.MarksFirst) {
		if _, err := fmt.Fprintf(w, "FINDING never-mark %s reached in %d runs, first seed %d (no correct run can: %s)\n",
			h.Mark, h.Runs, h.FirstSeed, h.Mark.Never()); err != nil {
			return err
		}
	}
	return nil
}

func share(n, of uint64) string {
	if of == 0 {
		return "0"
	}
	return fmt.Sprintf("%d (%.0f%%)", n, 100*float64(n)/float64(of))
}

// writeLinearizabilityPage writes the porcupine page of one failing run, named
// by its seed so it sits beside the run's record in the failures file.
func writeLinearizabilityPage(dir string, res *sim.Result) error {
	f, err := os.Create(filepath.Join(dir, "linearizability-"+seedHex(res.Seed)+".html"))
	if err != nil {
		return err
	}
	_, err = verify.WriteLinearizabilityHTML(f, res.History)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}
