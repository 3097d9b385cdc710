// Command ablate says, for each open finding of a source protocol
// (fuzz/testdata/source-*.vsr), which rule of the source makes it fail, and
// shows that the robust protocol passes the same schedule. Each file's
// `protocol` line turns on options that bring back a defect of the source
// system (docs/protocol.md); the command runs the file as is, the file with
// each option alone removed (everything else kept, the last option removed
// leaving `protocol robust`), and the robust variant: `protocol robust`
// without the `liveness cut|heal|isolate` lines, the harness's help to a
// source run that a robust run never gets. An option whose removal alone
// makes the run pass is necessary to the finding. Where no single removal
// passes a file of two or more options, it also runs `protocol robust` with
// the help kept, which tells a file that needs options together from one
// whose recorded help stalls the robust protocol too. It writes the table to
// docs/source-findings.md (and with -json each file's verdicts as a JSON
// line): `make ablate`.
//
// It builds ./cmd/vsrsim once into a scratch directory (or takes -bin) and
// runs each variant from a scratch file named as the original, so the run's
// scenario name is the same. Runs go -jobs at a time; the report keeps file
// order and holds nothing that varies between machines, so the same tree
// writes the same report. It exits 1 when a file's robust variant fails (a
// finding of the robust protocol) or a file as is no longer fails as
// recorded (its finding moved), naming each.
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"syscall"
)

func main() { os.Exit(ablate()) }

// ablateFlags are the command's flags, parsed.
type ablateFlags struct {
	bin, out, jsonOut string
	jobs              int
	files             []string
}

func parseFlags() ablateFlags {
	var f ablateFlags
	flag.StringVar(&f.bin, "bin", "", "run this vsrsim `binary` instead of building ./cmd/vsrsim")
	flag.StringVar(&f.out, "o", "docs/source-findings.md", "write the markdown report to `FILE` (- for stdout)")
	flag.StringVar(&f.jsonOut, "json", "", "also write each file's outcomes as JSON lines to `FILE`")
	flag.IntVar(&f.jobs, "jobs", 2, "parallel runs of the simulator")
	flag.Usage = func() {
		fmt.Fprintln(flag.CommandLine.Output(), "usage: go run ./tools/ablate [flags] [FILE.vsr ...]  (default fuzz/testdata/source-*.vsr)")
		flag.PrintDefaults()
	}
	flag.Parse()
	f.files = flag.Args()
	return f
}

// ablate runs the command and returns its exit code, so the scratch
// directory is removed on every path, an interrupt included.
func ablate() int {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	f := parseFlags()
	if f.jobs < 1 {
		fmt.Fprintln(os.Stderr, "ablate: -jobs must be positive")
		return 64
	}
	if len(f.files) == 0 {
		f.files, _ = filepath.Glob(filepath.Join("fuzz", "testdata", "source-*.vsr"))
		if len(f.files) == 0 {
			fmt.Fprintln(os.Stderr, "ablate: no fuzz/testdata/source-*.vsr here; run it from the module root or name the files")
			return 64
		}
	}
	sort.Strings(f.files)
	findings := make([]finding, len(f.files))
	for i, file := range f.files {
		var err error
		if findings[i], err = readFinding(file); err != nil {
			fmt.Fprintln(os.Stderr, "ablate:", err)
			return 65
		}
	}
	scratch, err := os.MkdirTemp("", "vsrsim-ablate-")
	if err != nil {
		fmt.Fprintln(os.Stderr, "ablate:", err)
		return 70
	}
	defer os.RemoveAll(scratch)
	bin := f.bin
	if bin == "" {
		bin = filepath.Join(scratch, "vsrsim")
		build := exec.CommandContext(ctx, "go", "build", "-o", bin, "./cmd/vsrsim")
		if msg, err := build.CombinedOutput(); err != nil {
			fmt.Fprintf(os.Stderr, "ablate: building ./cmd/vsrsim: %v\n%s", err, msg)
			return 70
		}
	}
	r := runner{ctx: ctx, bin: bin, scratch: scratch}
	results := runAll(r, findings, f.jobs)
	if ctx.Err() != nil {
		fmt.Fprintln(os.Stderr, "ablate: interrupted; no report written")
		return 130
	}
	if err := writeReport(f.out, render(results)); err != nil {
		fmt.Fprintln(os.Stderr, "ablate:", err)
		return 70
	}
	if err := writeJSON(f.jsonOut, results); err != nil {
		fmt.Fprintln(os.Stderr, "ablate:", err)
		return 70
	}
	return verdictCode(results)
}

// verdictCode prints what fails the command: a robust variant that does not
// pass, a finding that moved, a variant that did not run.
func verdictCode(results []result) int {
	code := 0
	for _, r := range results {
		if r.robustFails() {
			fmt.Fprintf(os.Stderr, "ablate: %s: the robust variant fails (%s): a finding of the robust protocol\n", r.name, r.robust.label())
			code = 1
		}
		if m := r.moved(); m != "" {
			fmt.Fprintf(os.Stderr, "ablate: %s: its finding moved: %s\n", r.name, m)
			code = 1
		}
		for _, e := range r.variantErrors() {
			fmt.Fprintf(os.Stderr, "ablate: %s: %s\n", r.name, e)
			code = 1
		}
	}
	return code
}

// runAll ablates every finding, jobs at a time, each file's runs in turn;
// results stay in the findings' order whatever order the runs end in.
func runAll(r runner, findings []finding, jobs int) []result {
	results := make([]result, len(findings))
	next := make(chan int)
	var wg sync.WaitGroup
	var mu sync.Mutex // one progress line at a time
	for range jobs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				results[i] = r.ablateOne(findings[i])
				mu.Lock()
				fmt.Fprintln(os.Stderr, progressLine(results[i]))
				mu.Unlock()
			}
		}()
	}
	for i := range findings {
		if r.ctx.Err() != nil {
			break
		}
		next <- i
	}
	close(next)
	wg.Wait()
	return results
}

func progressLine(r result) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%-56s as-is=%s", r.name, r.asIs.label())
	for _, o := range r.opts {
		fmt.Fprintf(&b, " -%s=%s", o, r.without[o].label())
	}
	fmt.Fprintf(&b, " robust=%s", r.robust.label())
	if r.helpKept != nil {
		fmt.Fprintf(&b, " robust+help=%s", r.helpKept.label())
	}
	return b.String()
}

// runner runs variants of a scenario with one binary.
type runner struct {
	ctx     context.Context
	bin     string
	scratch string
}

// ablateOne runs every variant of f.
func (r runner) ablateOne(f finding) result {
	res := result{finding: f, without: map[string]outcome{}}
	res.asIs = r.run(f.name, f.text)
	for _, o := range f.opts {
		res.without[o] = r.run(f.name, withProtocol(f.text, without(f.opts, o)))
	}
	res.robust = r.run(f.name, robustText(f.text))
	// With one option its removal is this run already.
	if len(f.opts) > 1 && len(res.necessary()) == 0 {
		o := r.run(f.name, withProtocol(f.text, nil))
		res.helpKept = &o
	}
	return res
}

// run runs one variant. The binary reads a scenario only from a file
// (--scenario-file /dev/stdin is refused), so each goes through a scratch
// file of the original's name: the run's scenario name is the file's.
func (r runner) run(name, text string) outcome {
	if r.ctx.Err() != nil {
		return outcome{Err: "interrupted"}
	}
	dir, err := os.MkdirTemp(r.scratch, "run-")
	if err != nil {
		return outcome{Err: err.Error()}
	}
	defer os.RemoveAll(dir)
	file := filepath.Join(dir, name)
	if err := os.WriteFile(file, []byte(text), 0o644); err != nil {
		return outcome{Err: err.Error()}
	}
	cmd := exec.CommandContext(r.ctx, r.bin, "run", "--scenario-file", file, "-o", "json")
	var stderr strings.Builder
	cmd.Stderr = &stderr
	stdout, runErr := cmd.Output() // a failing verdict exits non-zero by design
	var o struct {
		Verdict  string `json:"verdict"`
		Evidence string `json:"evidence"`
	}
	if err := json.Unmarshal(stdout, &o); err != nil || o.Verdict == "" {
		msg := oneLine(stderr.String())
		if msg == "" && runErr != nil {
			msg = runErr.Error()
		}
		if msg == "" {
			msg = "no verdict in the output"
		}
		return outcome{Err: msg}
	}
	return outcome{Verdict: o.Verdict, Evidence: o.Evidence}
}

func oneLine(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	if len(s) > 200 {
		s = s[:200] + "..."
	}
	return s
}

// writeReport writes the report to out, or to stdout for "-".
func writeReport(out, report string) error {
	if out == "-" {
		_, err := fmt.Print(report)
		return err
	}
	return os.WriteFile(out, []byte(report), 0o644)
}

// fileJSON is a result as -json writes it, one line per file.
type fileJSON struct {
	File      string             `json:"file"`
	Options   []string           `json:"options"`
	Recorded  string             `json:"recorded,omitempty"`
	AsIs      outcome            `json:"as_is"`
	Without   map[string]outcome `json:"without"`
	Robust    outcome            `json:"robust"`
	HelpKept  *outcome           `json:"robust_help_kept,omitempty"`
	Necessary []string           `json:"necessary"`
}

func writeJSON(path string, results []result) error {
	if path == "" {
		return nil
	}
	var b strings.Builder
	for _, r := range results {
		line, err := json.Marshal(fileJSON{File: r.name, Options: r.opts, Recorded: r.recorded, AsIs: r.asIs,
			Without: r.without, Robust: r.robust, HelpKept: r.helpKept, Necessary: r.necessary()})
		if err != nil {
			return fmt.Errorf("%s: %w", r.name, err)
		}
		b.Write(append(line, '\n'))
	}
	return os.WriteFile(path, []byte(b.String()), 0o644)
}
