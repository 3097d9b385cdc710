// Command fuzzeval measures the guided search (`vsrsim fuzz`, package fuzz)
// against the plain swarm on the same budget of runs: runs to first catch of
// every bug switch and every planted defect of tools/mutants (the swarm from
// seed 1, the search as the median over several search seeds), the
// conditions each reaches per 1,000 runs, and the runs each takes to first
// reach every mark. It writes docs/fuzz.md and an SVG of coverage against
// runs. It is a benchmark, not a test: `make fuzz-eval`.
package main

import (
	"bufio"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"slices"
	"strings"
	"time"

	"vsrsim/fuzz"
	"vsrsim/marks"
	"vsrsim/replica"
)

type options struct {
	swarmLimit, fuzzBudget, fuzzSeeds, coverageRuns, fociRuns, jobs int
	only                                                            string
	mutants                                                         bool
	// replicate runs a second set of -fuzz-seeds searches (search seeds
	// N+1..2N) per defect: how far the median of five searches moves with
	// the draw of the five.
	replicate bool
}

// target is one defect's runs to first catch: the swarm's (0: not within
// its limit) and the search's per search seed (0: not within its budget).
type target struct {
	name, kind, expect string
	swarm              int
	fuzz               []int
	// starts are the swarm's runs to first catch from -fuzz-seeds starts
	// (seed 1, then startStride+1, ...), each up to -fuzz-budget seeds: the
	// swarm counted as the searches are (0: none within the budget).
	starts []int
	// replicate are the runs to first catch of the second set of searches
	// (-replicate), in the same form as fuzz.
	replicate []int
	stale     string
}

// startStride spaces the swarm's starts apart, as tools/mutants does.
const startStride = 1_000_000

// reach is one side's coverage run: its curve, first reach of each mark,
// and how long it took.
type reach struct {
	sum   fuzz.Summary
	first [marks.Count]int
	// runs counts, per mark, the runs that reached it within the first
	// -foci-runs runs.
	runs [marks.Count]int
	wall time.Duration
}

func main() {
	var o options
	out := flag.String("o", "", "write the markdown report to `FILE` (default stdout)")
	svg := flag.String("svg", "", "write the coverage plot to `FILE`")
	flag.IntVar(&o.swarmLimit, "swarm-limit", 10000, "swarm seeds before a defect counts as missed")
	flag.IntVar(&o.fuzzBudget, "fuzz-budget", 2000, "runs per guided search before a defect counts as missed")
	flag.IntVar(&o.fuzzSeeds, "fuzz-seeds", 5, "guided searches per defect (search seeds 1..N); the median is reported")
	flag.IntVar(&o.coverageRuns, "coverage-runs", 20000, "runs of each side for the coverage comparison")
	flag.IntVar(&o.fociRuns, "foci-runs", 5000, "runs of each side with and without the focus slices")
	flag.IntVar(&o.jobs, "jobs", runtime.NumCPU(), "parallel workers")
	flag.StringVar(&o.only, "only", "", "measure only the defects whose name contains `TEXT`")
	flag.BoolVar(&o.mutants, "mutants", true, "measure the planted defects of tools/mutants too (builds each)")
	flag.BoolVar(&o.replicate, "replicate", true, "run a second set of -fuzz-seeds searches per defect (seeds N+1..2N) and report its median")
	flag.Parse()
	began := time.Now()
	ctx := context.Background()
	targets := switches(ctx, o)
	if o.mutants {
		ms, err := mutants(o)
		if err != nil {
			fmt.Fprintln(os.Stderr, "fuzzeval:", err)
			os.Exit(70)
		}
		targets = append(targets, ms...)
	}
	aimedRows, err := aimed(ctx, o, targets)
	if err != nil {
		fmt.Fprintln(os.Stderr, "fuzzeval:", err)
		os.Exit(70)
	}
	blind := cover(ctx, o, o.coverageRuns, true, false)
	guided := cover(ctx, o, o.coverageRuns, false, false)
	blindBare := cover(ctx, o, o.fociRuns, true, true)
	guidedBare := cover(ctx, o, o.fociRuns, false, true)
	report := render(o, targets, aimedRows, [4]reach{blind, guided, blindBare, guidedBare}, time.Since(began))
	if err := write(*out, report); err != nil {
		fmt.Fprintln(os.Stderr, "fuzzeval:", err)
		os.Exit(70)
	}
	if *svg != "" {
		if err := os.WriteFile(*svg, []byte(plot(blind, guided)), 0o644); err != nil {
			fmt.Fprintln(os.Stderr, "fuzzeval:", err)
			os.Exit(70)
		}
	}
}

func write(path, text string) error {
	if path == "" {
		_, err := fmt.Print(text)
		return err
	}
	return os.WriteFile(path, []byte(text), 0o644)
}

// firstCatch runs one side until its first failure: the runs it took, 0 if
// none within budget.
// A blind side sweeps swarm seeds from seed+1; a search uses seed as its
// own.
func firstCatch(ctx context.Context, o options, bugs replica.Bugs, blind, unfocused bool, seed uint64, budget int) int {
	opts := fuzz.Options{Budget: budget, Seed: seed, Jobs: o.jobs, Bugs: bugs, Blind: blind, Unfocused: unfocused,
		StopAtFailure: true, Confirm: true}
	if blind {
		opts.Seed, opts.BlindStart = 0, seed
	}
	sum := fuzz.Run(ctx, opts)
	if sum.FirstFailure == nil {
		return 0
	}
	return sum.FirstFailure.Index + 1
}

func switches(ctx context.Context, o options) []target {
	var out []target
	for _, b := range replica.BugCatalog {
		if !strings.Contains(b.Name, o.only) {
			continue
		}
		bugs, err := replica.ParseBugs([]string{b.Name})
		if err != nil {
			panic(err) // the catalog's own names
		}
		out = append(out, switchTarget(ctx, o, b.Name, bugs, false))
	}
	return out
}

// switchTarget measures one switch: the swarm from seed 1 and the searches,
// their seeds drawn with or without the focus slices.
func switchTarget(ctx context.Context, o options, name string, bugs replica.Bugs, unfocused bool) target {
	t := target{name: name, kind: "switch", expect: "-"}
	t.swarm = firstCatch(ctx, o, bugs, true, unfocused, 0, o.swarmLimit)
	for k := 1; k <= o.fuzzSeeds; k++ {
		t.fuzz = append(t.fuzz, firstCatch(ctx, o, bugs, false, unfocused, uint64(k), o.fuzzBudget))
	}
	for k := o.fuzzSeeds + 1; o.replicate && !unfocused && k <= 2*o.fuzzSeeds; k++ {
		t.replicate = append(t.replicate, firstCatch(ctx, o, bugs, false, unfocused, uint64(k), o.fuzzBudget))
	}
	for k := 0; k < o.fuzzSeeds; k++ {
		n := 0
		switch {
		case k == 0 && t.swarm <= o.fuzzBudget:
			n = t.swarm // the sweep from seed 1, cut at the budget
		case k > 0:
			n = firstCatch(ctx, o, bugs, true, unfocused, uint64(k)*startStride, o.fuzzBudget)
		}
		t.starts = append(t.starts, n)
	}
	fmt.Fprintf(os.Stderr, "%-34s unfocused=%v swarm=%d starts=%v fuzz=%v replicate=%v\n", t.name, unfocused, t.swarm, t.starts, t.fuzz, t.replicate)
	return t
}

// aimedFoci are the foci drawn for a defect rather than a mark
// (sim/swarm/focus_*.go name them), with the defects each aims at; retired
// names the measurement (at 7b6bc87) that retired a focus (D47).
var aimedFoci = []struct {
	focus   string
	defects []string
	retired string
}{
	{"transfer rewind", []string{"transfer-rewinds-sequencer"}, ""},
	{"transfer mutants", []string{"transfer-keeps-repair-floor"}, ""},
	{"restart before repair", []string{"restart-skips-adopted-head"},
		"the swarm with the focus first at 33 (without it 33), the search without foci at a median of 14 (24 139 9 14 1)"},
}

// aimedRow is one aimed focus's defect measured both ways: with the focus
// slices (the main table's row) and with every seed drawn without them.
type aimedRow struct {
	focus, retired string
	with, bare     target
}

// aimed measures the defects of the aimed foci again with every swarm seed,
// the sweep's and the searches' fresh ones, drawn without its focus slice.
func aimed(ctx context.Context, o options, ts []target) ([]aimedRow, error) {
	var out []aimedRow
	for _, f := range aimedFoci {
		for _, name := range f.defects {
			i := slices.IndexFunc(ts, func(t target) bool { return t.name == name })
			if i < 0 {
				continue // left out by -only or -mutants=false
			}
			row := aimedRow{focus: f.focus, retired: f.retired, with: ts[i]}
			if ts[i].kind == "switch" {
				bugs, err := replica.ParseBugs([]string{name})
				if err != nil {
					return nil, err
				}
				row.bare = switchTarget(ctx, o, name, bugs, true)
			} else {
				ms, err := mutantsRun(o, name, true)
				if err != nil {
					return nil, err
				}
				if len(ms) != 1 {
					return nil, fmt.Errorf("tools/mutants -only %s: %d rows", name, len(ms))
				}
				row.bare = ms[0]
			}
			out = append(out, row)
		}
	}
	return out, nil
}

// mutants runs tools/mutants with its guided searches and reads its rows.
func mutants(o options) ([]target, error) { return mutantsRun(o, o.only, false) }

// mutantsRun runs tools/mutants on the patches whose name contains only,
// their seeds drawn without the focus slices if noFoci.
func mutantsRun(o options, only string, noFoci bool) ([]target, error) {
	tmp, err := os.MkdirTemp("", "vsrsim-fuzzeval-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(tmp)
	rows := tmp + "/rows.jsonl"
	searches := o.fuzzSeeds
	if o.replicate && !noFoci {
		searches *= 2 // the second set is seeds N+1..2N
	}
	cmd := exec.Command("go", "run", "./tools/mutants", "-seeds", fmt.Sprint(o.swarmLimit), "-jobs", fmt.Sprint(o.jobs),
		"-only", only, "-fuzz-seeds", fmt.Sprint(searches), "-fuzz-budget", fmt.Sprint(o.fuzzBudget),
		"-json", rows, "-o", tmp+"/mutants.md", fmt.Sprintf("-no-foci=%v", noFoci), "-swarm-starts", fmt.Sprint(o.fuzzSeeds))
	cmd.Stderr = os.Stderr
	// A stale patch exits 1 after writing its rows: the rows say which.
	if err := cmd.Run(); err != nil {
		if _, statErr := os.Stat(rows); statErr != nil {
			return nil, fmt.Errorf("tools/mutants: %v", err)
		}
	}
	f, err := os.Open(rows)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var out []target
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		var r struct {
			Name, Expect, Stale string
			Seeds               uint64
			Found               bool
			Fuzz                []int
			Starts              []int `json:"swarm_starts"`
		}
		if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
			return nil, err
		}
		t := target{name: r.Name, kind: "mutant", expect: r.Expect, fuzz: r.Fuzz, starts: r.Starts, stale: r.Stale}
		if len(t.fuzz) > o.fuzzSeeds {
			t.fuzz, t.replicate = t.fuzz[:o.fuzzSeeds], t.fuzz[o.fuzzSeeds:]
		}
		if r.Found {
			t.swarm = int(r.Seeds)
		}
		out = append(out, t)
	}
	return out, sc.Err()
}

// cover runs one side for the coverage comparison, noting the run at which
// each mark was first reached.
func cover(ctx context.Context, o options, budget int, blind, unfocused bool) reach {
	var r reach
	began := time.Now()
	r.sum = fuzz.Run(ctx, fuzz.Options{Budget: budget, Seed: 1, Jobs: o.jobs, Blind: blind, Unfocused: unfocused,
		Deliver: func(out fuzz.Outcome) {
			for m := marks.Mark(0); m < marks.Count; m++ {
				if !out.Result.Marks.Reached(m) {
					continue
				}
				if r.first[m] == 0 {
					r.first[m] = out.Index + 1
				}
				if out.Index < o.fociRuns {
					r.runs[m]++
				}
			}
		}})
	r.wall = time.Since(began)
	fmt.Fprintf(os.Stderr, "coverage blind=%v unfocused=%v: %d runs, %d states, %d marks (%.0f s)\n", blind, unfocused,
		r.sum.Runs, r.sum.States, r.sum.MarksReached, r.wall.Seconds())
	return r
}

// median of a search's runs to first catch, a miss counted as worse than any
// catch; ok is false when the median is a miss.
func median(xs []int) (int, bool) {
	if len(xs) == 0 {
		return 0, false
	}
	s := slices.Clone(xs)
	slices.SortFunc(s, func(a, b int) int {
		switch {
		case a == b:
			return 0
		case a == 0:
			return 1
		case b == 0:
			return -1
		}
		return a - b
	})
	m := s[(len(s)-1)/2]
	return m, m != 0
}

// catchable reports whether a target counts in the comparison: a mutant
// proved equivalent cannot be caught, and a stale patch did not run.
func (t *target) catchable() bool { return t.stale == "" && t.expect != "equivalent" }

func runsText(n, limit int) string {
	if n == 0 {
		return fmt.Sprintf("not in %d", limit)
	}
	return fmt.Sprint(n)
}

func fuzzText(xs []int) string {
	parts := make([]string, len(xs))
	for i, x := range xs {
		parts[i] = "-"
		if x > 0 {
			parts[i] = fmt.Sprint(x)
		}
	}
	return strings.Join(parts, " ")
}

// The sides sideMedian measures.
const (
	sideSwarm     = iota // the sweep from seed 1, up to -swarm-limit
	sideStarts           // the median of the swarm's starts, each up to -fuzz-budget
	sideSearch           // the median of the searches
	sideReplicate        // the median of the second set of searches
)

// sideMedian is the median over targets of one side's runs to first catch,
// a miss counted as its limit (a lower bound on the truth).
func sideMedian(ts []target, o options, side int) float64 {
	var xs []float64
	for i := range ts {
		t := &ts[i]
		if !t.catchable() {
			continue
		}
		if side == sideSwarm {
			xs = append(xs, float64(orLimit(t.swarm, o.swarmLimit)))
			continue
		}
		runs := t.fuzz
		switch side {
		case sideStarts:
			runs = t.starts
		case sideReplicate:
			runs = t.replicate
		}
		xs = append(xs, float64(orBudget(runs, o)))
	}
	if len(xs) == 0 {
		return 0
	}
	slices.Sort(xs)
	n := len(xs)
	if n%2 == 1 {
		return xs[n/2]
	}
	return (xs[n/2-1] + xs[n/2]) / 2
}

func orLimit(n, limit int) int {
	if n == 0 {
		return limit
	}
	return n
}

// at is the coverage after the first point at or past runs.
func at(r *reach, runs int) fuzz.Point {
	for _, p := range r.sum.Curve {
		if p.Runs >= runs {
			return p
		}
	}
	if len(r.sum.Curve) == 0 {
		return fuzz.Point{}
	}
	return r.sum.Curve[len(r.sum.Curve)-1]
}
