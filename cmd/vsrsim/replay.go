package main

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"

	"github.com/spf13/cobra"

	"vsrsim/seeds"
	"vsrsim/sim"
)

type replayOptions struct {
	trace  string
	line   int
	pin    bool
	update bool
	output *enumFlag
	// artifacts are written for the one case replayed with --line.
	artifacts artifactPaths
}

func newReplayCmd() *cobra.Command {
	o := &replayOptions{output: newEnumFlag("table", "table", "json")}
	cmd := &cobra.Command{
		Use:   "replay FILE",
		Short: "Re-run a corpus or failures file and report verdict or hash drift",
		Long: `Re-run every case of FILE and check that it still gives its pinned verdict
and trace hash. FILE is a regression corpus (seeds/*.txt: one
"SCENARIO SEED BUGS VERDICT TRACE_HASH [KEY=VALUE]..." per line) or a failure
record file (one "vsrsim run -o json" object per line, as "vsrsim sweep
--failures" writes); the two forms may be mixed.

--line N replays only the case on line N; --trace FILE writes the full NDJSON
trace of the one case replayed. --pin prints each case as a corpus line with
the verdict and hash it gives now (to merge findings into seeds/); --update
rewrites the expected verdict and hash of every text line of FILE in place.

Exit code: 0 no drift, 1 drift, 65 a malformed, empty or unreadable FILE or a
case naming an unknown scenario or bug, 64 bad flags.`,
		Example: `  vsrsim replay seeds/scenarios.txt
  vsrsim replay failures.jsonl --line 3 --trace run.ndjson
  vsrsim replay --pin findings.jsonl >> seeds/swarm.txt`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := outputPath("trace", o.trace, cmd.Flags().Changed("trace")); err != nil {
				return err
			}
			if cmd.Flags().Changed("line") && o.line < 1 {
				return usageErrorf("--line %d: lines are numbered from 1", o.line)
			}
			if err := o.artifacts.check(cmd.Flags(), o.trace); err != nil {
				return err
			}
			return o.replay(args[0], cmd.OutOrStdout(), cmd.ErrOrStderr())
		},
	}
	f := cmd.Flags()
	f.StringVar(&o.trace, "trace", "", "write the NDJSON trace of the replayed case to `FILE` (- for stdout; the report then goes to stderr)")
	f.IntVar(&o.line, "line", 0, "replay only the case on line `N`")
	f.BoolVar(&o.pin, "pin", false, "print each case as a corpus line with its current verdict and hash")
	f.BoolVar(&o.update, "update", false, "rewrite the expected verdict and hash of FILE's text lines in place")
	f.VarP(o.output, "output", "o", "output format")
	o.artifacts.addFlags(cmd)
	addSpecFlag(cmd)
	_ = cmd.RegisterFlagCompletionFunc("output", cobra.FixedCompletions(o.output.allowed, cobra.ShellCompDirectiveNoFileComp))
	return cmd
}

func dataErrorf(format string, args ...any) error {
	return &exitError{code: exitDataErr, err: fmt.Errorf(format, args...)}
}

// caseRun is one replayed case.
type caseRun struct {
	c      seeds.Case
	opts   *runOptions
	res    sim.Result
	cfg    sim.Config
	at     sim.Attach // the case's script, if any
	drifts bool
}

// replayJSON is one replayed case in -o json.
type replayJSON struct {
	File            string      `json:"file"`
	Line            int         `json:"line"`
	Seed            uint64      `json:"seed"`
	SeedHex         string      `json:"seed_hex"`
	OK              bool        `json:"ok"`
	ExpectedVerdict sim.Verdict `json:"expected_verdict"`
	Verdict         sim.Verdict `json:"verdict"`
	ExpectedHash    string      `json:"expected_trace_hash"`
	TraceHash       string      `json:"trace_hash"`
	Evidence        string      `json:"evidence,omitempty"`
	Replay          string      `json:"replay"`
}

func (o *replayOptions) replay(path string, stdout, stderr io.Writer) error {
	if o.pin && o.update {
		return usageErrorf("--pin and --update do not go together")
	}
	data, cases, err := o.loadCases(path)
	if err != nil {
		return err
	}
	// Check every case before running any: a typo on line 40 should not
	// cost the runs of lines 1..39.
	runs := make([]caseRun, len(cases))
	for i, c := range cases {
		opts, cfg, at, err := caseConfig(c)
		if err != nil {
			return dataErrorf("%s: %v", c.Where(), err)
		}
		runs[i] = caseRun{c: c, opts: opts, cfg: cfg, at: at}
	}
	report := stdout
	if o.trace == "-" {
		report = stderr
	}
	drift, err := o.runCases(runs, stdout, report)
	if err != nil {
		return err
	}
	if o.update {
		if err := updateCorpus(path, data, runs); err != nil {
			return internalErrorf("--update: %v", err)
		}
		fmt.Fprintf(report, "updated %s: %d of %d cases changed\n", path, drift, len(runs))
		return nil
	}
	if !o.pin && o.output.value == "table" {
		fmt.Fprintf(report, "%d cases, %d drifted\n", len(runs), drift)
	}
	if drift > 0 {
		return silentExit(exitDrift)
	}
	return nil
}

// loadCases reads and parses the corpus file, keeps the case --line picks,
// and checks that --trace has exactly one case to trace. It returns the
// file's bytes too, for --update to rewrite.
func (o *replayOptions) loadCases(path string) ([]byte, []seeds.Case, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, nil, dataErrorf("%s: %v", path, errUnwrapPath(err))
	}
	cases, err := seeds.Parse(path, bytes.NewReader(data))
	if err != nil {
		return nil, nil, dataErrorf("%v", err)
	}
	if o.line != 0 {
		var picked []seeds.Case
		for _, c := range cases {
			if c.Line == o.line {
				picked = append(picked, c)
			}
		}
		if len(picked) == 0 {
			return nil, nil, usageErrorf("--line %d: %s has no case on that line", o.line, path)
		}
		cases = picked
	}
	if o.trace != "" && len(cases) != 1 {
		return nil, nil, usageErrorf("--trace needs exactly one case; %s has %d (pick one with --line)", path, len(cases))
	}
	return data, cases, nil
}

// runCases runs each case, reports it to report as it ends, and returns how
// many drifted. Only the first case writes the artifacts (--trace and the
// like); loadCases saw to it that a trace has one case.
func (o *replayOptions) runCases(runs []caseRun, stdout, report io.Writer) (drift int, err error) {
	trace, err := o.artifacts.open(o.trace, stdout)
	if err != nil {
		return 0, err
	}
	for i := range runs {
		r := &runs[i]
		outs := &opened{}
		if i == 0 {
			outs = trace
		}
		if r.res, err = outs.simulate(r.cfg, r.at, r.opts.describe(r.cfg)); err != nil {
			return drift, err
		}
		r.drifts = r.c.Drifts(r.res.Verdict, r.res.TraceHash)
		if r.drifts {
			drift++
		}
		if err := o.report(report, r); err != nil {
			return drift, internalErrorf("writing output: %v", err)
		}
	}
	return drift, nil
}

func errUnwrapPath(err error) error {
	if pe, ok := err.(*os.PathError); ok {
		return pe.Err
	}
	return err
}

// caseConfig builds a case's run from the shape the corpus parsed, exactly
// as `vsrsim run` would from the same flags.
func caseConfig(c seeds.Case) (*runOptions, sim.Config, sim.Attach, error) {
	opts := newRunOptions()
	opts.seed.value = strconv.FormatUint(c.Seed, 10)
	opts.scenario.value = c.Shape.Scenario
	opts.scenarioFile.value = c.Shape.ScenarioFile
	opts.bugs = c.Shape.Bugs
	opts.noFoci = c.Shape.NoFoci
	opts.override = c.Shape.Override
	cfg, at, err := opts.config(c.Seed)
	if err != nil {
		return nil, sim.Config{}, sim.Attach{}, err
	}
	return opts, cfg, at, nil
}

func (o *replayOptions) report(w io.Writer, r *caseRun) error {
	replay := r.opts.replay(r.c.Seed)
	switch {
	case o.pin:
		// A file's run names its scenario "file:NAME"; the line replays it
		// from the scenario-file key, with no named scenario.
		scenario := r.res.Scenario
		if r.c.Shape.ScenarioFile != "" {
			scenario = ""
		}
		_, err := fmt.Fprintln(w, seeds.Format(scenario, r.c.Seed, r.res.Bugs, r.res.Verdict, r.res.TraceHash, overrides(r.c.Args)...))
		return err
	case o.output.value == "json":
		return writeJSON(w, replayJSON{
			File: r.c.File, Line: r.c.Line, Seed: r.c.Seed, SeedHex: seedHex(r.c.Seed), OK: !r.drifts,
			ExpectedVerdict: r.c.Verdict, Verdict: r.res.Verdict,
			ExpectedHash: r.c.Hash, TraceHash: r.res.TraceHash,
			Evidence: r.res.Evidence, Replay: replay,
		})
	case o.update:
		return nil
	}
	if !r.drifts {
		_, err := fmt.Fprintf(w, "ok     %s %s %s %s\n", r.c.Where(), r.res.Verdict, r.res.TraceHash, replay)
		return err
	}
	_, err := fmt.Fprintf(w, "DRIFT  %s verdict %s -> %s, hash %s -> %s\n       %s\n       evidence: %s\n",
		r.c.Where(), r.c.Verdict, r.res.Verdict, r.c.Hash, r.res.TraceHash, replay, orNone(oneLine(r.res.Evidence)))
	return err
}

// overrides turns run flags back into corpus KEY=VALUE words, leaving out the
// seed, scenario and bugs, which have columns of their own.
func overrides(args []string) []string {
	var out []string
	for i := 0; i < len(args); i++ {
		key, value, inline := strings.Cut(strings.TrimPrefix(args[i], "--"), "=")
		if key == "no-foci" {
			// The one flag without a value.
			if !inline {
				value = "true"
			}
			out = append(out, key+"="+value)
			continue
		}
		if !inline && i+1 < len(args) {
			i++
			value = args[i]
		}
		switch key {
		case "seed", "scenario", "bug":
			continue
		}
		out = append(out, key+"="+value)
	}
	return out
}

// updateCorpus rewrites the verdict and hash columns of each text case in
// place; comments, JSON lines and spacing elsewhere stay as they were.
func updateCorpus(path string, data []byte, runs []caseRun) error {
	lines := strings.Split(string(data), "\n")
	for _, r := range runs {
		if r.c.JSON || !r.drifts {
			continue
		}
		i := r.c.Line - 1
		text, comment, _ := strings.Cut(lines[i], " #")
		f := strings.Fields(text)
		f[3] = string(r.res.Verdict)
		if r.c.PinsHash() {
			f[4] = r.res.TraceHash
		}
		lines[i] = strings.Join(f, " ")
		if comment != "" {
			lines[i] += " #" + comment
		}
	}
	return os.WriteFile(path, []byte(strings.Join(lines, "\n")), 0o644)
}
