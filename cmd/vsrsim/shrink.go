package main

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"

	"github.com/spf13/cobra"

	"vsrsim/outcome"
	"vsrsim/scenarios"
	"vsrsim/scenarios/vsrfile"
	"vsrsim/shrink"
	"vsrsim/sim"
	"vsrsim/verify"
)

type shrinkOptions struct {
	run      *runOptions
	out      string
	line     int
	maxRuns  int
	jobs     int
	perCand  int
	startMax int
}

func newShrinkCmd() *cobra.Command {
	o := &shrinkOptions{run: newRunOptions()}
	cmd := &cobra.Command{
		Use:   "shrink (--seed SEED [flags] | FAILURES.jsonl --line K) -o FILE",
		Short: "Shrink a failing run to a small scenario file that fails the same way",
		Long: `Shrink a failing run to the smallest scenario file found that fails with the
same verdict and invariant. A swarm seed is recorded first (run --record); a
scenario file is shrunk as it is. The search removes actions, moves them
earlier, shortens the fault phase, lowers replicas and clients and turns the
network's random faults off, keeping a change only if one of a few seeds still
fails the same way; the file records that seed. The output is the same for
any --jobs. Progress goes to stderr.

Exit codes: 0 a file was written, 64 bad flags or a run that passes, 65 a
malformed input file, 70 an internal error.`,
		Example: `  vsrsim shrink --seed 5 --bug narrow-repair-under-commit-lag -o small.vsr
  vsrsim shrink --seed 7 --scenario-file big.vsr -o small.vsr
  vsrsim shrink sweep-failures.jsonl --line 2 -o small.vsr`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			o.run.flags = cmd.Flags()
			return o.shrink(args, cmd.ErrOrStderr())
		},
	}
	f := cmd.Flags()
	f.Var(&o.run.seed, "seed", "seed of the failing run")
	o.run.addShapeFlags(cmd)
	f.StringVarP(&o.out, "output", "o", "", "write the shrunk scenario file to `FILE` (required)")
	f.IntVar(&o.line, "line", 0, "with FAILURES.jsonl: shrink the run on line `K` (from 1)")
	f.IntVar(&o.maxRuns, "max-runs", 3000, "stop the search after about this many runs")
	f.IntVar(&o.jobs, "jobs", 1, "candidates run in parallel (the output does not depend on it)")
	f.IntVar(&o.perCand, "seeds-per-candidate", 3, "seeds a candidate may fail under, from the seed the search holds")
	f.IntVar(&o.startMax, "start-seeds", 64, "seeds the source may need before it fails as the run did")
	_ = cmd.MarkFlagRequired("output")
	return cmd
}

func (o *shrinkOptions) shrink(args []string, stderr io.Writer) error {
	seed, err := o.failingSeed(args)
	if err != nil {
		return err
	}
	cfg, at, err := o.run.config(seed)
	if err != nil {
		return err
	}
	script, target, before, err := o.source(cfg, at, seed)
	if err != nil {
		return err
	}
	out, err := o.search(script, cfg, seed, target, stderr)
	if err != nil {
		return err
	}
	summary := fmt.Sprintf("%s -> %s in %s runs", sizeText(before), sizeText(out.After), thousands(out.Runs))
	if out.BudgetExceeded {
		summary += " (stopped at --max-runs)"
	}
	if err := o.write(out, cfg, seed, summary); err != nil {
		return err
	}
	fmt.Fprintln(stderr, summary)
	return nil
}

// failingSeed checks the flags and returns the seed of the run to shrink,
// from --seed or from the failures file's line --line.
func (o *shrinkOptions) failingSeed(args []string) (uint64, error) {
	if strings.TrimSpace(o.out) == "" || o.out == "-" {
		return 0, usageErrorf("-o: give a file name")
	}
	if o.maxRuns < 1 || o.jobs < 1 || o.perCand < 1 || o.startMax < 1 {
		return 0, usageErrorf("--max-runs, --jobs, --seeds-per-candidate and --start-seeds must be 1 or more")
	}
	if len(args) == 1 {
		if o.run.seed.set {
			return 0, usageErrorf("give --seed or FAILURES.jsonl, not both")
		}
		if err := o.fromFailures(args[0]); err != nil {
			return 0, err
		}
	} else if o.line != 0 {
		return 0, usageErrorf("--line goes with FAILURES.jsonl")
	}
	seed, err := o.run.runSeed("give --seed SEED or FAILURES.jsonl --line K")
	if err != nil {
		return 0, err
	}
	if o.run.scenario.value != "" {
		return 0, usageErrorf("--scenario: a named scenario is a Go script and cannot be shrunk; shrink a swarm seed or a --scenario-file")
	}
	return seed, nil
}

// search shrinks script while it keeps failing as target. A linearizability
// target needs the checker's run; any other, the plain one, which is faster.
func (o *shrinkOptions) search(script *vsrfile.File, cfg sim.Config, seed uint64, target shrink.Target, stderr io.Writer) (shrink.Outcome, error) {
	run := sim.Run
	if target.Invariant == outcome.InvLinearizable {
		run = verify.Run
	}
	run = specRun(run)
	out, err := shrink.Shrink(script, shrink.Options{
		Seed: seed, Bugs: cfg.Bugs, Target: target, StartSeeds: o.startMax, SeedsPerCandidate: o.perCand,
		MaxRuns: o.maxRuns, Jobs: o.jobs, Run: run, Progress: stderr,
	})
	if errors.Is(err, shrink.ErrPasses) {
		return out, usageErrorf("seed %d passes: nothing to shrink", seed)
	}
	if err != nil {
		return out, usageErrorf("%v", err)
	}
	return out, nil
}

// write saves the shrunk file to -o, its header saying where it came from,
// how much it shrank and how to replay it.
func (o *shrinkOptions) write(out shrink.Outcome, cfg sim.Config, seed uint64, summary string) error {
	bugs := ""
	for _, b := range cfg.Bugs.Names() {
		bugs += " --bug " + b
	}
	header := append([]string{
		"shrunk from: " + o.sourceText(seed),
		fmt.Sprintf("source seed: %d, bugs: %s", seed, orNone(strings.Join(cfg.Bugs.Names(), ","))),
		"shrunk: " + summary,
		fmt.Sprintf("replay: vsrsim run --seed %d%s --scenario-file %s", out.Seed, bugs, shellQuote(o.out)),
	}, verdictHeader(out.Result)...)
	small := out.Script.Clone()
	small.SetComments(header)
	small.SetSeed(out.Seed)
	if err := os.WriteFile(o.out, vsrfile.Format(small), 0o644); err != nil {
		return internalErrorf("-o: %v", errUnwrapPath(err))
	}
	return nil
}

// source is the scenario file the search starts from, the failure it must
// keep, and its size as the run had it.
func (o *shrinkOptions) source(cfg sim.Config, at sim.Attach, seed uint64) (*vsrfile.File, shrink.Target, shrink.Size, error) {
	var res sim.Result
	var data []byte
	var err error
	path := o.run.scenarioFile.value
	if path != "" {
		if data, err = os.ReadFile(path); err != nil {
			return nil, shrink.Target{}, shrink.Size{}, dataErrorf("%s: %v", path, errUnwrapPath(err))
		}
		res, err = verify.Run(cfg, at)
	} else {
		res, data, err = scenarios.RecordRun(cfg, nil, verify.Run)
	}
	if err != nil {
		return nil, shrink.Target{}, shrink.Size{}, internalErrorf("%v", err)
	}
	switch {
	case !res.Verdict.Failed() && path != "":
		return nil, shrink.Target{}, shrink.Size{}, usageErrorf("seed %d passes with %s: nothing to shrink", seed, path)
	case !res.Verdict.Failed():
		return nil, shrink.Target{}, shrink.Size{}, usageErrorf("seed %d passes (verdict %s): nothing to shrink", seed, res.Verdict)
	}
	script, err := vsrfile.Parse(data)
	if err != nil {
		return nil, shrink.Target{}, shrink.Size{}, dataErrorf("%s: %v", path, err)
	}
	return script, shrink.Target{Verdict: res.Verdict, Invariant: res.Invariant}, shrink.Size{
		Actions: len(script.Actions), Ticks: cfg.FaultTicks, Replicas: cfg.Replicas, Clients: cfg.Clients}, nil
}

func (o *shrinkOptions) sourceText(seed uint64) string {
	r := o.run.replay(seed)
	if o.run.scenarioFile.value == "" {
		r += " (recorded)"
	}
	return r
}

// fromFailures reads the run on line K of a sweep's failures file into the
// run options, through its replay command.
func (o *shrinkOptions) fromFailures(path string) error {
	if o.line < 1 {
		return usageErrorf("FAILURES.jsonl needs --line K (from 1)")
	}
	f, err := os.Open(path)
	if err != nil {
		return dataErrorf("%s: %v", path, errUnwrapPath(err))
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<16), 16<<20)
	for n := 1; sc.Scan(); n++ {
		if n < o.line {
			continue
		}
		var rec struct {
			Replay string `json:"replay"`
		}
		if err := json.Unmarshal(sc.Bytes(), &rec); err != nil || rec.Replay == "" {
			return dataErrorf("%s:%d: not a run's JSON line with a replay command", path, n)
		}
		words := splitCommand(rec.Replay)
		if len(words) < 2 || words[0] != "vsrsim" || words[1] != "run" {
			return dataErrorf("%s:%d: replay %q is not a vsrsim run command", path, n, rec.Replay)
		}
		cmd := newRunCmdWith(o.run)
		if err := cmd.ParseFlags(words[2:]); err != nil {
			return dataErrorf("%s:%d: replay: %v", path, n, err)
		}
		return nil
	}
	if err := sc.Err(); err != nil {
		return dataErrorf("%s: %v", path, err)
	}
	return usageErrorf("--line %d: %s has fewer lines", o.line, path)
}

// splitCommand splits a command shellQuote built, as a POSIX shell would:
// words separated by spaces, a quoted word in single quotes.
func splitCommand(s string) []string {
	var out []string
	var w strings.Builder
	in, any := false, false
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '\'':
			in, any = !in, true
		case c == ' ' && !in:
			if any {
				out = append(out, w.String())
			}
			w.Reset()
			any = false
		case c == '\\' && !in && i+1 < len(s):
			i++
			w.WriteByte(s[i])
			any = true
		default:
			w.WriteByte(c)
			any = true
		}
	}
	if any {
		out = append(out, w.String())
	}
	return out
}

func sizeText(s shrink.Size) string {
	return fmt.Sprintf("%d actions, %d ticks, %d replicas, %d clients", s.Actions, s.Ticks, s.Replicas, s.Clients)
}

// thousands writes n with comma separators: 1,840.
func thousands(n int) string {
	s := strconv.Itoa(n)
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}
