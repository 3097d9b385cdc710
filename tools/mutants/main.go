// Command mutants measures how fast a plain swarm sweep catches realistic
// planted defects: for each patch under tools/mutants/ it copies the module to
// a scratch directory, applies the patch there (never to the real tree),
// builds vsrsim, sweeps swarm seeds from 1 until the first failure or the seed
// limit, and writes the table to docs/mutants.md. It is a benchmark, not a
// test: `make mutants`.
//
// A patch starts with "key: value" lines (name, area, expect, defect, and
// optionally note: why a sweep misses it or catches it as another class),
// then a
// blank line, then a git diff against the module root. A patch that no longer
// applies (the replica moved under it) is reported as such, and the command
// exits 1 so the suite is repaired rather than silently shrunk.
package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"syscall"
	"time"
)

type mutant struct {
	file   string
	name   string
	area   string
	expect string
	defect string
	// note explains a miss (a finding about the simulator, or an equivalent
	// mutant) or a catch of another class than expected.
	note string
}

type row struct {
	mutant
	stale    string // why the patch no longer applies or builds; empty if it ran
	seeds    uint64
	found    bool
	seed     uint64
	verdict  string
	inv      string
	evidence string
	wall     time.Duration
	// fuzz holds, per search seed of -fuzz-seeds, the runs `vsrsim fuzz`
	// took to its first failure, 0 when it found none within -fuzz-budget.
	fuzz []int
	// starts holds, per start of -swarm-starts, the swarm seeds a sweep
	// from that start took to its first failure, 0 when none within
	// -fuzz-budget: the swarm counted as the searches are.
	starts []int
}

// fuzzOptions are the guided searches run against each mutant besides the
// sweep (tools/fuzzeval reads them through -json).
type fuzzOptions struct {
	seeds, budget int
	clean         string // the unpatched binary, to confirm a catch against
	// draw are flags of both the sweep and the searches: --no-foci, to
	// measure what the focus slices add (tools/fuzzeval).
	draw []string
	// starts is how many sweeps of budget seeds each, from seed 1 and
	// from startStride+1, 2*startStride+1, ..., measure the swarm as the
	// searches are measured (a median of several, on their budget).
	starts int
}

// startStride spaces the swarm's starts far apart, so no two sweeps share
// a seed.
const startStride = 1_000_000

func main() { os.Exit(mutants()) }

// writeReport writes the report to out, or to stdout if out is empty.
func writeReport(out, report string) error {
	if out == "" {
		_, err := fmt.Print(report)
		return err
	}
	return os.WriteFile(out, []byte(report), 0o644)
}

// suiteFlags are the command's flags, parsed.
type suiteFlags struct {
	dir, out, jsonOut, only string
	limit                   uint64 // seeds a sweep may take per defect
	jobs                    int
	fo                      fuzzOptions
}

// parseFlags reads the command line into suiteFlags.
func parseFlags() suiteFlags {
	var f suiteFlags
	flag.StringVar(&f.dir, "dir", "tools/mutants", "directory of the `.patch` files")
	flag.StringVar(&f.out, "o", "", "write the markdown report to `FILE` (default stdout)")
	flag.Uint64Var(&f.limit, "seeds", 2000, "give up on a defect after this many seeds")
	flag.IntVar(&f.jobs, "jobs", 2, "parallel sweep workers")
	flag.StringVar(&f.only, "only", "", "run only the mutants whose name contains `TEXT`")
	flag.IntVar(&f.fo.seeds, "fuzz-seeds", 0, "also run `vsrsim fuzz` with search seeds 1..`N` against each mutant")
	flag.IntVar(&f.fo.budget, "fuzz-budget", 2000, "runs each guided search may take")
	flag.StringVar(&f.jsonOut, "json", "", "also write every row as JSON lines to `FILE`")
	flag.IntVar(&f.fo.starts, "swarm-starts", 0, "also sweep -fuzz-budget seeds from `N` starts (seed 1, 1000001, ...)")
	noFoci := flag.Bool("no-foci", false, "draw the swarm seeds of the sweep and the searches without their focus slices")
	specOff := flag.Bool("spec-off", false, "judge the runs by the outcome checks alone, the protocol model off (D52), to compare")
	flag.Parse()
	if *noFoci {
		f.fo.draw = append(f.fo.draw, "--no-foci")
	}
	if *specOff {
		f.fo.draw = append(f.fo.draw, "--spec", "off")
	}
	return f
}

// mutants runs the suite and returns the exit code, so the scratch directory
// is removed on every path, an interrupt included.
func mutants() int {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	f := parseFlags()
	if f.limit == 0 || f.jobs < 1 {
		fmt.Fprintln(os.Stderr, "mutants: -seeds and -jobs must be positive")
		return 64
	}
	ms, err := load(f.dir)
	if err != nil {
		fmt.Fprintln(os.Stderr, "mutants:", err)
		return 65
	}
	scratch, err := os.MkdirTemp("", "vsrsim-mutants-")
	if err != nil {
		fmt.Fprintln(os.Stderr, "mutants:", err)
		return 70
	}
	defer os.RemoveAll(scratch)
	base, code := prepareBase(ctx, scratch, &f.fo)
	if code != 0 {
		return code
	}
	rows, stale, interrupted := sweepAll(ctx, ms, base, scratch, f)
	if interrupted {
		fmt.Fprintln(os.Stderr, "mutants: interrupted; no report written")
		return 130
	}
	if err := writeReport(f.out, render(rows, f.limit, f.jobs)); err != nil {
		fmt.Fprintln(os.Stderr, "mutants:", err)
		return 70
	}
	if err := writeRows(f.jsonOut, rows); err != nil {
		fmt.Fprintln(os.Stderr, "mutants:", err)
		return 70
	}
	if stale > 0 {
		fmt.Fprintf(os.Stderr, "mutants: %d patch(es) no longer apply to replica/; rewrite them against the current code\n", stale)
		return 1
	}
	return 0
}

// prepareBase copies the module into scratch, once, for every patch to be
// applied to a copy of; with guided searches on it also builds the
// unpatched binary each catch is confirmed against (fo.clean). A non-zero
// code is the command's exit code, its cause already printed.
func prepareBase(ctx context.Context, scratch string, fo *fuzzOptions) (string, int) {
	base := filepath.Join(scratch, "base")
	if err := copyModule(base); err != nil {
		fmt.Fprintln(os.Stderr, "mutants: copying the module:", err)
		return "", 70
	}
	if fo.seeds > 0 {
		fo.clean = filepath.Join(scratch, "vsrsim-clean")
		if msg, err := run(ctx, base, "go", "build", "-o", fo.clean, "./cmd/vsrsim"); err != nil {
			fmt.Fprintln(os.Stderr, "mutants: building the unpatched binary:", oneLine(msg))
			return "", 70
		}
	}
	return base, 0
}

// sweepAll sweeps every mutant -only picks, printing a line for each as it
// ends: the rows, how many patches no longer apply, and whether an
// interrupt cut the suite short (then the rows are incomplete).
func sweepAll(ctx context.Context, ms []mutant, base, scratch string, f suiteFlags) ([]row, int, bool) {
	var rows []row
	stale := 0
	for _, m := range ms {
		if !strings.Contains(m.name, f.only) {
			continue
		}
		r := sweepMutant(ctx, m, base, filepath.Join(scratch, m.name), f.limit, f.jobs, f.fo)
		if ctx.Err() != nil {
			return rows, stale, true
		}
		if r.stale != "" {
			stale++
			fmt.Fprintf(os.Stderr, "%-34s NO LONGER APPLIES: %s\n", m.name, r.stale)
		} else {
			fmt.Fprintf(os.Stderr, "%-34s seeds=%d found=%v %s %s (%.1f s)\n", m.name, r.seeds, r.found, r.verdict, r.inv, r.wall.Seconds())
		}
		rows = append(rows, r)
	}
	return rows, stale, false
}

// load reads every patch's header, in file-name order.
func load(dir string) ([]mutant, error) {
	files, err := filepath.Glob(filepath.Join(dir, "*.patch"))
	if err != nil {
		return nil, err
	}
	if len(files) == 0 {
		return nil, fmt.Errorf("no .patch files in %s", dir)
	}
	sort.Strings(files)
	var ms []mutant
	for _, f := range files {
		m, err := readHeader(f)
		if err != nil {
			return nil, err
		}
		ms = append(ms, m)
	}
	return ms, nil
}

func readHeader(file string) (mutant, error) {
	f, err := os.Open(file)
	if err != nil {
		return mutant{}, err
	}
	defer f.Close()
	abs, err := filepath.Abs(file)
	if err != nil {
		return mutant{}, err
	}
	m := mutant{file: abs}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		if line == "" {
			break
		}
		key, value, ok := strings.Cut(line, ": ")
		if !ok {
			return mutant{}, fmt.Errorf("%s: header line %q is not \"key: value\"", file, line)
		}
		switch key {
		case "name":
			m.name = value
		case "area":
			m.area = value
		case "expect":
			m.expect = value
		case "defect":
			m.defect = value
		case "note":
			m.note = value
		default:
			return mutant{}, fmt.Errorf("%s: unknown header key %q", file, key)
		}
	}
	if m.name == "" || m.expect == "" {
		return mutant{}, fmt.Errorf("%s: the header needs name and expect", file)
	}
	return m, sc.Err()
}

// copyModule copies the module's files as git sees them (tracked and new,
// not ignored) into dst.
func copyModule(dst string) error {
	list, err := exec.Command("git", "ls-files", "-z", "--cached", "--others", "--exclude-standard").Output()
	if err != nil {
		return fmt.Errorf("git ls-files: %w", err)
	}
	for _, name := range strings.Split(strings.TrimSuffix(string(list), "\x00"), "\x00") {
		if err := copyFile(name, filepath.Join(dst, name)); err != nil {
			if errors.Is(err, os.ErrNotExist) {
				continue // deleted in the work tree, not yet in the index
			}
			return err
		}
	}
	return nil
}

func copyFile(src, dst string) error {
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
		return err
	}
	out, err := os.Create(dst)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}

// rowJSON is a row as -json writes it.
type rowJSON struct {
	Name    string `json:"name"`
	Expect  string `json:"expect"`
	Stale   string `json:"stale,omitempty"`
	Seeds   uint64 `json:"seeds"`
	Found   bool   `json:"found"`
	Verdict string `json:"verdict"`
	Fuzz    []int  `json:"fuzz"`
	Starts  []int  `json:"swarm_starts,omitempty"`
}

func writeRows(path string, rows []row) error {
	if path == "" {
		return nil
	}
	var b bytes.Buffer
	for _, r := range rows {
		line, err := json.Marshal(rowJSON{Name: r.name, Expect: r.expect, Stale: r.stale, Seeds: r.seeds, Found: r.found,
			Verdict: r.verdict, Fuzz: r.fuzz, Starts: r.starts})
		if err != nil {
			return err
		}
		b.Write(append(line, '\n'))
	}
	return os.WriteFile(path, b.Bytes(), 0o644)
}

// fuzzFirst runs a guided search of the mutant's binary and returns the runs
// to its first failure that the unpatched binary (clean) does not share (0:
// none in budget). A search can fail with every fix on (docs/fuzz.md,
// Findings), so each failure's replay command is run with clean first; one
// that fails there too is not the mutant's. The search prints each failure
// as it finds it, so the process is stopped at the first of the mutant's.
func fuzzFirst(ctx context.Context, bin, clean, dir string, seed, budget, jobs int, draw []string) (int, error) {
	work, err := os.MkdirTemp(dir, "fuzz-")
	if err != nil {
		return 0, err
	}
	cmd := exec.CommandContext(ctx, bin, append([]string{"fuzz", "--budget", fmt.Sprint(budget), "--seed", fmt.Sprint(seed),
		"--jobs", fmt.Sprint(jobs), "--failures", filepath.Join(work, "f.jsonl")}, draw...)...)
	cmd.Dir = dir
	out, err := cmd.StdoutPipe()
	if err != nil {
		return 0, err
	}
	if err := cmd.Start(); err != nil {
		return 0, err
	}
	first, pending := 0, 0
	sc := bufio.NewScanner(out)
	sc.Buffer(make([]byte, 1<<16), 16<<20)
	for sc.Scan() {
		line := sc.Text()
		var n int
		if _, err := fmt.Sscanf(line, "FAIL run %d", &n); err == nil {
			pending = n + 1
			continue
		}
		replay, ok := strings.CutPrefix(line, "  replay: vsrsim ")
		if !ok || pending == 0 {
			continue
		}
		// Paths are the search's own, without spaces or quotes.
		check := exec.CommandContext(ctx, clean, strings.Fields(replay)...)
		check.Dir = dir
		if check.Run() == nil {
			first = pending
			_ = cmd.Process.Kill()
			break
		}
		pending = 0
	}
	_, _ = io.Copy(io.Discard, out)
	_ = cmd.Wait() // a finding exits non-zero, a kill too
	return first, nil
}

// sweepMutant applies one patch to a fresh copy of base and sweeps it.
func sweepMutant(ctx context.Context, m mutant, base, dir string, limit uint64, jobs int, fo fuzzOptions) row {
	r := row{mutant: m}
	if err := exec.Command("cp", "-r", base, dir).Run(); err != nil {
		r.stale = "copy: " + err.Error()
		return r
	}
	defer os.RemoveAll(dir)
	if msg, err := run(ctx, dir, "git", "apply", m.file); err != nil {
		r.stale = "git apply: " + oneLine(msg)
		return r
	}
	bin := filepath.Join(dir, "vsrsim-mutant")
	if msg, err := run(ctx, dir, "go", "build", "-o", bin, "./cmd/vsrsim"); err != nil {
		r.stale = "does not build: " + oneLine(msg)
		return r
	}
	began := time.Now()
	sum, lines, err := sweepFrom(ctx, bin, dir, 1, limit, jobs, fo.draw)
	r.wall = time.Since(began)
	if err != nil {
		r.stale = err.Error()
		return r
	}
	r.seeds = sum.Runs
	for k := 1; k <= fo.seeds; k++ {
		n, err := fuzzFirst(ctx, bin, fo.clean, dir, k, fo.budget, jobs, fo.draw)
		if err != nil {
			r.stale = "fuzz: " + err.Error()
			return r
		}
		r.fuzz = append(r.fuzz, n)
	}
	if r.starts, err = swarmStarts(ctx, bin, dir, sum, fo, jobs); err != nil {
		r.stale = err.Error()
		return r
	}
	if sum.First == nil || len(lines) < 2 {
		return r
	}
	readFailure(&r, lines[0])
	return r
}

// swarmStarts measures the swarm as the searches are measured: per start of
// fo.starts, the seeds a sweep of fo.budget seeds from that start took to
// its first failure, 0 when none. The first start is seed 1, whose sweep
// (sum) has run already.
func swarmStarts(ctx context.Context, bin, dir string, sum sweepSummary, fo fuzzOptions, jobs int) ([]int, error) {
	var starts []int
	for k := 0; k < fo.starts; k++ {
		if k == 0 {
			// From seed 1: the sweep already run, cut at the budget.
			n := 0
			if sum.First != nil && *sum.First <= uint64(fo.budget) {
				n = int(*sum.First)
			}
			starts = append(starts, n)
			continue
		}
		from := uint64(k)*startStride + 1
		st, _, err := sweepFrom(ctx, bin, dir, from, uint64(fo.budget), jobs, fo.draw)
		if err != nil {
			return starts, err
		}
		n := 0
		if st.First != nil {
			n = int(*st.First - from + 1)
		}
		starts = append(starts, n)
	}
	return starts, nil
}

// readFailure fills r's finding from line, the sweep's failure record; a
// record it cannot read leaves r as not found, as before.
func readFailure(r *row, line string) {
	var fail struct {
		Seed      uint64 `json:"seed"`
		Verdict   string `json:"verdict"`
		Invariant string `json:"invariant"`
		Evidence  string `json:"evidence"`
	}
	if err := json.Unmarshal([]byte(line), &fail); err == nil {
		r.found, r.seed, r.verdict, r.inv, r.evidence = true, fail.Seed, fail.Verdict, fail.Invariant, fail.Evidence
	}
}

// sweepSummary is the last line of `vsrsim sweep -o json`.
type sweepSummary struct {
	Runs  uint64  `json:"runs"`
	First *uint64 `json:"first_failure_seed"`
}

// sweepFrom sweeps count seeds from first until the first failure: the
// summary, and every output line (the failure's record first).
func sweepFrom(ctx context.Context, bin, dir string, first, count uint64, jobs int, draw []string) (sweepSummary, []string, error) {
	cmd := exec.CommandContext(ctx, bin, append([]string{"sweep", "--seeds", fmt.Sprintf("%d-%d", first, first+count-1),
		"--jobs", fmt.Sprint(jobs), "--max-failures", "1", "-o", "json"}, draw...)...)
	cmd.Dir = dir
	stdout, _ := cmd.Output() // a finding exits non-zero by design
	lines := strings.Split(strings.TrimSpace(string(stdout)), "\n")
	var sum sweepSummary
	if err := json.Unmarshal([]byte(lines[len(lines)-1]), &sum); err != nil {
		return sum, nil, fmt.Errorf("unreadable sweep output: %s", oneLine(string(stdout)))
	}
	return sum, lines, nil
}

func run(ctx context.Context, dir, name string, args ...string) (string, error) {
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.Dir = dir
	var b bytes.Buffer
	cmd.Stdout, cmd.Stderr = &b, &b
	err := cmd.Run()
	return b.String(), err
}

func oneLine(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	if len(s) > 200 {
		s = s[:200] + "..."
	}
	return s
}

// judge says whether the sweep caught the defect as the class it is.
func judge(r row) string {
	switch {
	case r.stale != "":
		return "**patch no longer applies**"
	case r.expect == "equivalent" && r.found:
		// The note proves no run can tell the mutant from the replica: a
		// failing run refutes the proof.
		return "**failed, but its note proves it equivalent**"
	case r.expect == "equivalent":
		return "equivalent (proof in the note)"
	case !r.found:
		return "**missed**"
	case r.verdict == r.expect:
		return "caught"
	case r.expect == "safety" && r.verdict == "crash":
		// A replica assertion stopped the run before the oracle saw a
		// broken invariant: the same class of defect, caught earlier.
		return "caught (a replica assertion)"
	default:
		return "caught as " + r.verdict + ", expected " + r.expect
	}
}

func render(rows []row, limit uint64, jobs int) string {
	var b strings.Builder
	b.WriteString(`# Mutation suite

How many swarm seeds a plain sweep (no scenario, no script, every fix on)
needs to catch each of a set of realistic planted defects: the slips a careful
engineer makes (an off-by-one in a quorum or window, a comparison against the
wrong counter, a missing reset or bump). Each defect is a patch under
` + "`tools/mutants/`" + `, applied to a scratch copy of the module, never to the tree;
its copy is swept from seed 1 until the first failing run or ` + fmt.Sprint(limit) + ` seeds.
"expected" is the class of failure the defect should cause: a defect that can
lose or fork a committed op is a safety defect and should be caught as one;
"equivalent" marks a defect whose note proves that no run can tell it from the
replica (a sweep that fails it refutes the proof).

Reproduce with ` + "`make mutants`" + ` (this file is its output; ` + "`MUTANT_SEEDS`" + ` and
` + "`MUTANT_ONLY`" + ` narrow it). Seed numbers are exact on every machine; wall
seconds are not. A patch that no longer applies is listed as such and fails
the target.

`)
	fmt.Fprintf(&b, "Machine: %s/%s, %d CPUs, %d jobs, %s.\n\n", runtime.GOOS, runtime.GOARCH, runtime.NumCPU(), jobs, runtime.Version())
	b.WriteString("| defect | area | expected | seeds to first catch | seed | verdict | invariant | judgement | wall s |\n")
	b.WriteString("|---|---|---|---|---|---|---|---|---|\n")
	caught, target, equivalent := 0, 0, 0
	for _, r := range rows {
		if j := judge(r); r.found && r.seeds <= 1000 && strings.HasPrefix(j, "caught") && !strings.HasPrefix(j, "caught as") {
			target++
		}
		if r.expect == "equivalent" && !r.found {
			equivalent++
		}
		switch {
		case r.stale != "":
			fmt.Fprintf(&b, "| `%s` | %s | %s | - | - | - | - | %s | - |\n", r.name, r.area, r.expect, judge(r))
		case !r.found:
			fmt.Fprintf(&b, "| `%s` | %s | %s | not caught in %d | - | - | - | %s | %.1f |\n", r.name, r.area, r.expect, r.seeds, judge(r), r.wall.Seconds())
		default:
			caught++
			fmt.Fprintf(&b, "| `%s` | %s | %s | %d | %d | %s | %s | %s | %.1f |\n", r.name, r.area, r.expect, r.seeds, r.seed, r.verdict, r.inv, judge(r), r.wall.Seconds())
		}
	}
	fmt.Fprintf(&b, "\n%d of %d defects caught within %d seeds; %d within 1,000 seeds as the class expected (the target); %d shown equivalent (expected \"equivalent\": no run can differ, proof in the note).\n\n## The defects\n\n",
		caught, len(rows), limit, target, equivalent)
	for _, r := range rows {
		fmt.Fprintf(&b, "- `%s` (%s): %s.", r.name, r.area, r.defect)
		if r.found {
			ev := r.evidence
			if len(ev) > 160 {
				ev = ev[:160] + "..."
			}
			fmt.Fprintf(&b, " First catch: `%s`.", strings.ReplaceAll(ev, "`", "'"))
		}
		if r.stale != "" {
			fmt.Fprintf(&b, " Not run: %s.", r.stale)
		}
		if r.note != "" {
			fmt.Fprintf(&b, " *Note:* %s", r.note)
		}
		b.WriteString("\n")
	}
	return b.String()
}
