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
	"strings"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"vsrsim/fuzz"
	"vsrsim/marks"
	"vsrsim/prng"
	"vsrsim/replica"
	"vsrsim/sim"
	"vsrsim/sim/settings"
	"vsrsim/verify"
)

// fuzzBudgetMax bounds --budget: past it a typo, not a plan, is the likelier
// cause.
const fuzzBudgetMax = 1 << 30

type fuzzOptions struct {
	budget   int
	seed     string
	jobs     int
	bugs     []string
	corpus   string
	failures string
	excused  string
	noFoci   bool
}

func newFuzzCmd() *cobra.Command {
	o := &fuzzOptions{}
	cmd := &cobra.Command{
		Use:   "fuzz --budget RUNS [--seed S] [flags]",
		Short: "Search fault schedules guided by coverage, and report every failure",
		Long: `Search for failing runs by mutating fault schedules (docs/fuzz.md). An input
is a seed and a scenario file; the search starts from fresh swarm seeds,
recorded as files, keeps every input whose run reached a condition no run
before it did (a coverage mark, a pair of marks, an abstract state of the
cluster), picks parents with an energy that favours rare conditions, and
mutates them: faults added, dropped, moved, retargeted, widened or narrowed, a
setting or the protocol options changed, two schedules spliced, the run's own
randomness reseeded.

Given --seed and --budget, the failures and the summary are the same whatever
--jobs is. Each failure is appended to --failures FILE (JSONL, one run -o json
object per line) with the command that replays it; a failing input that is a
file is saved beside FILE, named by its content. Each run that ended
unrecoverable (excused: no protocol could have recovered) is appended the
same way to --excused FILE, with the rule that excused it, its evidence and
its run index, its input saved beside that file. --corpus DIR resumes a
search: its .vsr files run first, and every input the search keeps is written
there. Progress and the run rate go to stderr.

Exit code: 0 if every run passed, else the code of the most severe verdict
found: 1 safety, 4 crash, 3 liveness; 130 if interrupted before any finding;
64 for bad arguments, 65 a malformed corpus file, 70 an internal error.`,
		Example: `  vsrsim fuzz --budget 2000 --seed 1
  vsrsim fuzz --budget 5000 --bug narrow-repair-under-commit-lag --failures f.jsonl
  vsrsim fuzz --budget 20000 --corpus corpus/ --jobs 8`,
		Args:              cobra.NoArgs,
		ValidArgsFunction: cobra.NoFileCompletions,
		RunE: func(cmd *cobra.Command, _ []string) error {
			ctx, stop := signal.NotifyContext(cmd.Context(), os.Interrupt, syscall.SIGTERM)
			defer stop()
			return o.fuzz(ctx, cmd.OutOrStdout(), cmd.ErrOrStderr())
		},
	}
	f := cmd.Flags()
	f.IntVar(&o.budget, "budget", 1000, "runs in all, corpus reruns included")
	f.StringVar(&o.seed, "seed", "1", "seed of the search's own randomness (decimal, 0x hex, or a 40-hex commit hash)")
	f.IntVar(&o.jobs, "jobs", runtime.NumCPU(), "parallel workers (the output does not depend on it)")
	f.StringArrayVar(&o.bugs, "bug", nil, "turn on a bug switch (repeatable; see vsrsim list)")
	f.StringVar(&o.corpus, "corpus", "", "resume from and keep the corpus in `DIR`")
	f.StringVar(&o.failures, "failures", "", "append each failure as one JSON line to `FILE`")
	f.StringVar(&o.excused, "excused", "", "append each unrecoverable (excused) run as one JSON line to `FILE`")
	f.BoolVar(&o.noFoci, "no-foci", false, "draw fresh swarm seeds without their focus slices (docs/fuzz.md measures the foci so)")
	_ = cmd.RegisterFlagCompletionFunc("bug", completeBugs)
	addSpecFlag(cmd)
	for _, name := range []string{"budget", "seed", "jobs"} {
		_ = cmd.RegisterFlagCompletionFunc(name, cobra.NoFileCompletions)
	}
	return cmd
}

// fuzzRun is one search's state on the command's side: its files.
type fuzzRun struct {
	o        *fuzzOptions
	bugs     replica.Bugs
	stdout   io.Writer
	stderr   io.Writer
	progress *progress
	failures *os.File
	excused  *os.File
	writeErr error
}

func (o *fuzzOptions) fuzz(ctx context.Context, stdout, stderr io.Writer) error {
	seed, bugs, corpus, err := o.check()
	if err != nil {
		return err
	}
	r := &fuzzRun{o: o, bugs: bugs, stdout: stdout, stderr: stderr, progress: newProgress(stderr, uint64(o.budget))}
	if r.failures, err = openAppend("--failures", o.failures, stderr, o.corpus != ""); err != nil {
		return err
	}
	if r.failures != nil {
		defer r.failures.Close()
	}
	if r.excused, err = openAppend("--excused", o.excused, stderr, o.corpus != ""); err != nil {
		return err
	}
	if r.excused != nil {
		defer r.excused.Close()
	}
	began := time.Now()
	sum := fuzz.Run(ctx, fuzz.Options{Budget: o.budget, Seed: seed, Jobs: o.jobs, Bugs: bugs, Corpus: corpus,
		Unfocused: o.noFoci, Deliver: r.deliver, Keep: r.keep, Run: specRun(verify.Run)})
	r.progress.clear()
	if r.writeErr != nil {
		return internalErrorf("%v", r.writeErr)
	}
	if err := writeFuzzTable(stdout, &sum, o, seed, bugs); err != nil {
		return internalErrorf("writing output: %v", err)
	}
	wall := time.Since(began)
	fmt.Fprintf(stderr, "vsrsim: %d runs in %.1f s (%.1f runs/s, %d jobs)\n", sum.Runs, wall.Seconds(),
		float64(sum.Runs)/max(wall.Seconds(), 1e-9), o.jobs)
	if sum.Interrupted {
		fmt.Fprintf(stderr, "vsrsim: interrupted after %d of %d runs\n", sum.Runs, o.budget)
	}
	return silentExit(fuzzExitCode(&sum))
}

// check validates the flags and reads the corpus before any run.
func (o *fuzzOptions) check() (uint64, replica.Bugs, []fuzz.Input, error) {
	if o.budget < 1 || o.budget > fuzzBudgetMax {
		return 0, replica.Bugs{}, nil, usageErrorf("--budget %d: must be 1..%d", o.budget, fuzzBudgetMax)
	}
	if o.jobs < 1 || o.jobs > sweepJobsMax {
		return 0, replica.Bugs{}, nil, usageErrorf("--jobs %d: must be 1..%d", o.jobs, sweepJobsMax)
	}
	seed, err := prng.ParseSeed(o.seed)
	if err != nil {
		return 0, replica.Bugs{}, nil, usageErrorf("--seed: %v", err)
	}
	bugs, err := replica.ParseBugs(o.bugs)
	if err != nil {
		return 0, replica.Bugs{}, nil, usageErrorf("--bug: %v", err)
	}
	for _, f := range []struct{ name, path string }{{"failures", o.failures}, {"excused", o.excused}} {
		if strings.TrimSpace(f.path) == "-" {
			return 0, replica.Bugs{}, nil, usageErrorf("--%s: give a file name", f.name)
		}
	}
	if o.excused != "" && filepath.Clean(o.excused) == filepath.Clean(o.failures) {
		return 0, replica.Bugs{}, nil, usageErrorf("--excused: give a file other than --failures")
	}
	corpus, err := o.readCorpus()
	return seed, bugs, corpus, err
}

// readCorpus reads every .vsr file of --corpus, in name order, creating the
// directory if it is missing.
func (o *fuzzOptions) readCorpus() ([]fuzz.Input, error) {
	if o.corpus == "" {
		return nil, nil
	}
	if err := os.MkdirAll(o.corpus, 0o755); err != nil {
		return nil, usageErrorf("--corpus: %v", errUnwrapPath(err))
	}
	names, err := filepath.Glob(filepath.Join(o.corpus, "*.vsr"))
	if err != nil {
		return nil, usageErrorf("--corpus: %v", err)
	}
	slices.Sort(names)
	var out []fuzz.Input
	for _, name := range names {
		data, err := os.ReadFile(name)
		if err != nil {
			return nil, dataErrorf("%s: %v", name, errUnwrapPath(err))
		}
		in, err := fuzz.FromFile(data)
		if err != nil {
			return nil, dataErrorf("%s: %s", name, oneLine(err.Error()))
		}
		out = append(out, in)
	}
	return out, nil
}

// keep writes an input the search kept to --corpus.
func (r *fuzzRun) keep(in fuzz.Input) {
	if r.o.corpus == "" || r.writeErr != nil {
		return
	}
	path := filepath.Join(r.o.corpus, in.Name())
	if _, err := os.Stat(path); err == nil {
		return
	}
	if err := os.WriteFile(path, in.File, 0o644); err != nil {
		r.writeErr = fmt.Errorf("--corpus: %v", errUnwrapPath(err))
	}
}

// excusedJSON is a line of --excused: the run's record (its rule, evidence
// and, where the run carries one, its excuse), the run's index in the
// search, and the scenario file its input was saved to (empty for a fresh
// swarm seed, which replays from its seed alone).
type excusedJSON struct {
	runJSON
	Run          int    `json:"run"`
	ScenarioFile string `json:"scenario_file,omitempty"`
}

func (r *fuzzRun) deliver(out fuzz.Outcome) {
	r.progress.step(out.Failed())
	if out.Err != nil {
		r.progress.clear()
		fmt.Fprintf(r.stderr, "vsrsim: run %d (seed %d): %s\n", out.Index, out.Input.Seed, oneLine(out.Err.Error()))
		return
	}
	switch {
	case out.Failed():
		replay, _ := r.record(&out, r.failures, r.o.failures)
		r.progress.clear()
		fmt.Fprintf(r.stdout, "FAIL run %d seed %d %s %s: %s\n  replay: %s\n", out.Index, out.Input.Seed, out.Result.Verdict,
			out.Result.Invariant, oneLine(out.Result.Evidence), replay)
	case out.Result.Verdict == sim.VerdictUnrecoverable && r.excused != nil:
		replay, path := r.record(&out, nil, r.o.excused)
		if r.writeErr == nil {
			cfg, _, _ := out.Input.Config(r.bugs)
			r.writeErr = writeJSON(r.excused, excusedJSON{newRunJSON(out.Result, settings.Describe(&cfg), replay), out.Index, path})
		}
	}
}

// record saves a file input beside the file at beside (or in the working
// directory without one), writes the run's record to w if set, and returns
// the command that replays the run and the saved file's path. w is the
// file itself, never an interface: a nil *os.File in an io.Writer is not
// nil, and writing to it ended a search 70 at its first finding.
func (r *fuzzRun) record(out *fuzz.Outcome, w *os.File, beside string) (replay, path string) {
	replay, path, err := r.saveInput(out, beside)
	if err != nil && r.writeErr == nil {
		r.writeErr = err
	}
	if w != nil && r.writeErr == nil {
		cfg, _, _ := out.Input.Config(r.bugs)
		r.writeErr = writeJSON(w, newRunJSON(out.Result, settings.Describe(&cfg), replay))
	}
	return replay, path
}

// saveInput writes a file input beside the file at beside (or in the
// working directory without one) and returns the command that replays it
// and the path it saved it to ("" for a swarm seed, which has no file).
func (r *fuzzRun) saveInput(out *fuzz.Outcome, beside string) (string, string, error) {
	if out.Input.Swarm() {
		return out.Input.Replay("", r.bugs), "", nil
	}
	dir := "."
	if beside != "" {
		dir = filepath.Dir(beside)
	}
	path := filepath.Join(dir, out.Input.Name())
	replay := out.Input.Replay(path, r.bugs)
	data, err := out.Input.Saved(append([]string{
		fmt.Sprintf("found by: vsrsim fuzz --seed %s --budget %d (run %d, %s)", r.o.seed, r.o.budget, out.Index, out.Input.Op),
		"replay: " + replay,
	}, verdictHeader(out.Result)...))
	if err != nil {
		return replay, path, fmt.Errorf("saving run %d: %v", out.Index, err)
	}
	if err := os.WriteFile(path, data, 0o644); err != nil {
		return replay, path, fmt.Errorf("saving run %d: %v", out.Index, errUnwrapPath(err))
	}
	return replay, path, nil
}

// fuzzExitCode is sweep's: the most severe finding, else 70 for errors and
// 130 for an interrupted search.
func fuzzExitCode(sum *fuzz.Summary) int {
	return findingsExitCode(func(v sim.Verdict) uint64 { return uint64(sum.Failed[v]) }, sum.Errors > 0, sum.Interrupted)
}

// withoutFoci notes in the summary that fresh seeds were drawn without the
// focus slices.
func withoutFoci(on bool) string {
	if on {
		return ", drawn without foci"
	}
	return ""
}

// unrecoverableRows count the unrecoverable runs by the rule that excused
// them, in rule order, and the runs whose file said `crashes beyond-f` (the
// search draws it in 1 of fuzz.CrashesBeyondFOneIn mutated inputs).
func unrecoverableRows(sum *fuzz.Summary) [][]string {
	runs := uint64(sum.Runs)
	var rows [][]string
	for _, rule := range slices.Sorted(maps.Keys(sum.UnrecoverableBy)) {
		rows = append(rows, []string{"unrecoverable: " + rule, share(uint64(sum.UnrecoverableBy[rule]), runs)})
	}
	return append(rows, []string{"crashes beyond-f",
		fmt.Sprintf("%s (%d unrecoverable; drawn in 1 of %d mutated inputs)", share(uint64(sum.BeyondF), runs), sum.BeyondFUnrecoverable, fuzz.CrashesBeyondFOneIn)})
}

// writeFuzzTable is the search's summary. It holds no wall-clock figure, so
// two searches of one seed and budget print the same table.
func writeFuzzTable(w io.Writer, sum *fuzz.Summary, o *fuzzOptions, seed uint64, bugSet replica.Bugs) error {
	first := "-"
	if sum.FirstFailure != nil {
		first = fmt.Sprintf("run %d (seed %d)", sum.FirstFailure.Index, sum.FirstFailure.Input.Seed)
	}
	reachable := 0
	for m := marks.Mark(0); m < marks.Count; m++ {
		if m.Never() == "" {
			reachable++
		}
	}
	status := "complete"
	if sum.Interrupted {
		status = "interrupted"
	}
	bugs := strings.Join(bugSet.Names(), ",")
	if bugs == "" {
		bugs = "none"
	}
	runs := uint64(sum.Runs)
	rows := [][]string{
		{"search seed", fmt.Sprint(seed)},
		{"budget", fmt.Sprint(o.budget)},
		{"bug switches", bugs},
		{"runs", fmt.Sprint(sum.Runs)},
		{"fresh swarm seeds", share(uint64(sum.Fresh), runs) + withoutFoci(o.noFoci)},
		{"passed", fmt.Sprintf("%d (%d unrecoverable)", sum.Passed, sum.Unrecoverable)},
	}
	rows = append(rows, unrecoverableRows(sum)...)
	rows = append(rows, [][]string{
		{"failed: safety", fmt.Sprint(sum.Failed[sim.VerdictSafety])},
		{"failed: liveness", fmt.Sprint(sum.Failed[sim.VerdictLiveness])},
		{"failed: crash", fmt.Sprint(sum.Failed[sim.VerdictCrash])},
		{"errors", fmt.Sprint(sum.Errors)},
		{"first failure", first},
		{"corpus (inputs kept)", fmt.Sprint(sum.Corpus)},
		{"abstract states reached", fmt.Sprint(sum.States)},
		{"marks reached", fmt.Sprintf("%d of %d", sum.MarksReached, reachable)},
		{"mark pairs reached", fmt.Sprint(sum.Pairs)},
		{"runs with partitions", share(uint64(sum.PartitionRuns), runs)},
		{"status", status},
	}...)
	t := newTable(w, "fuzz", "")
	if err := t.Bulk(rows); err != nil {
		return err
	}
	return t.Render()
}
