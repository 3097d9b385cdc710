// Command focus sweeps only the swarm seeds of chosen focus slices
// (sim/swarm/focus.go): how often a focus's seeds reach the marks it exists
// for, whether any fails with every fix on, and how soon a bug switch fails
// in them. A development tool: a focus is tuned with it, then measured over
// the whole swarm by `vsrsim sweep --marks` and `make detect`.
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"runtime"
	"slices"
	"strconv"
	"strings"

	"vsrsim/marks"
	"vsrsim/replica"
	"vsrsim/sim"
	"vsrsim/sim/swarm"
	"vsrsim/sweep"
	"vsrsim/verify"
)

func main() {
	name := flag.String("focus", "", "sweep the seeds of focus `NAME` ("+strings.Join(swarm.FocusNames(), ", ")+")")
	slots := flag.String("slices", "", "comma-separated focus slices `K,K` (empty, and no -focus: every seed)")
	limit := flag.Uint64("seeds", 2000, "consider swarm seeds 1..`N`")
	jobs := flag.Int("jobs", runtime.NumCPU(), "parallel workers")
	bug := flag.String("bug", "", "turn on bug switch `NAME`")
	want := flag.String("marks", "", "comma-separated marks to report (empty: every mark; none: no mark)")
	flag.Parse()

	in := parseSlices(*slots)
	if *name != "" && !slices.Contains(swarm.FocusNames(), *name) {
		fail("unknown focus %q (want one of %s)", *name, strings.Join(swarm.FocusNames(), ", "))
	}
	seeds := focusSeeds(*name, in, *limit)
	bugs := parseBug(*bug)

	// The sweep runs indexes into seeds, which need not be contiguous.
	run := func(i uint64) (sim.Result, error) {
		cfg := swarm.Config(seeds[i])
		cfg.Bugs = bugs
		return verify.Run(cfg, sim.Attach{})
	}
	var failures []string
	sum := sweep.Run(context.Background(), sweep.Options{
		Range: sweep.Range{First: 0, Count: uint64(len(seeds))}, Jobs: *jobs,
	}, run, func(o sweep.Outcome) {
		if o.Err != nil || o.Failed() {
			failures = append(failures, fmt.Sprintf("seed %d: %s %s %v", seeds[o.Index], o.Result.Verdict, o.Result.Evidence, o.Err))
		}
	})
	fmt.Printf("%d seeds of 1..%d, %d failed, %d events a run\n", len(seeds), *limit, len(failures), sum.Events/max(sum.Runs, 1))
	for _, f := range failures {
		fmt.Println("  " + f)
	}
	printMarks(&sum, seeds, *want)
}

// parseSlices reads -slices as a set of focus slices, empty if -slices is.
func parseSlices(slots string) map[uint64]bool {
	in := map[uint64]bool{}
	for _, f := range strings.Split(slots, ",") {
		if f == "" {
			continue
		}
		k, err := strconv.ParseUint(f, 10, 64)
		if err != nil {
			fail("bad slice %q", f)
		}
		in[k] = true
	}
	return in
}

// focusSeeds lists the swarm seeds 1..limit to sweep: those of focus name if
// it is given, else those in the slices in, else every one.
func focusSeeds(name string, in map[uint64]bool, limit uint64) []uint64 {
	var seeds []uint64
	for seed := uint64(1); seed <= limit; seed++ {
		f, _ := swarm.SeedFocus(seed)
		switch {
		case name != "" && f == name, name == "" && (len(in) == 0 || in[swarm.FocusSlice(seed)]):
			seeds = append(seeds, seed)
		}
	}
	return seeds
}

// parseBug reads -bug: no switch, or the one it names.
func parseBug(bug string) replica.Bugs {
	if bug == "" {
		return replica.Bugs{}
	}
	bugs, err := replica.ParseBugs([]string{bug})
	if err != nil {
		fail("%v", err)
	}
	return bugs
}

// printMarks prints, for each mark -marks asks for, how many runs reached
// it and the first seed that did (0 for none).
func printMarks(sum *sweep.Summary, seeds []uint64, want string) {
	for m := marks.Mark(0); m < marks.Count; m++ {
		if want != "" && !slices.Contains(strings.Split(want, ","), m.String()) {
			continue
		}
		first, _ := sum.MarksFirst.First(m)
		seed := uint64(0)
		if sum.Marks[m] > 0 {
			seed = seeds[first]
		}
		fmt.Printf("%-36s %5d runs  first seed %d\n", m, sum.Marks[m], seed)
	}
}

func fail(format string, a ...any) {
	fmt.Fprintf(os.Stderr, "focus: "+format+"\n", a...)
	os.Exit(64)
}
