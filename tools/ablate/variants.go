package main

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// finding is one scenario file as the ablation reads it.
type finding struct {
	name string // base name: the report names files by it
	text string
	// opts are the source options of its protocol lines, in file order,
	// once each; none for a file that already runs the robust protocol.
	opts []string
	// recorded is the verdict its header says the file fails with; ""
	// when the header says none, and then only a pass counts as moved.
	recorded string
}

// readFinding reads file and its protocol options.
func readFinding(file string) (finding, error) {
	data, err := os.ReadFile(file)
	if err != nil {
		return finding{}, err
	}
	f := finding{name: filepath.Base(file), text: string(data)}
	f.opts = protocolOptions(f.text)
	f.recorded = recordedVerdict(f.text)
	return f, nil
}

// splitLine parts a scenario line into its words and its comment (with its
// '#'), as the file format does: a comment runs from the first '#'.
func splitLine(line string) ([]string, string) {
	body, comment, ok := strings.Cut(line, "#")
	if ok {
		comment = "#" + comment
	}
	return strings.Fields(body), comment
}

// optionWords splits a protocol line's value as the simulator does: commas,
// spaces or tabs; "robust" names no option.
func optionWords(words []string) []string {
	var opts []string
	for _, w := range words {
		for _, o := range strings.FieldsFunc(w, func(r rune) bool { return r == ',' }) {
			if o != "robust" {
				opts = append(opts, o)
			}
		}
	}
	return opts
}

// protocolOptions are the options of every protocol line, in file order,
// once each: repeated lines add to one another in the simulator.
func protocolOptions(text string) []string {
	var opts []string
	for _, line := range strings.Split(text, "\n") {
		w, _ := splitLine(line)
		if len(w) == 0 || w[0] != "protocol" {
			continue
		}
		for _, o := range optionWords(w[1:]) {
			if !slices.Contains(opts, o) {
				opts = append(opts, o)
			}
		}
	}
	return opts
}

// recordedVerdict reads "# verdict: liveness (invariant liveness)" from the
// header; the file's own test pins the same verdict.
func recordedVerdict(text string) string {
	for _, line := range strings.Split(text, "\n") {
		if rest, ok := strings.CutPrefix(line, "# verdict: "); ok {
			if w := strings.Fields(rest); len(w) > 0 {
				return w[0]
			}
		}
	}
	return ""
}

// withProtocol rewrites text to run exactly opts ("robust" when none): the
// first protocol line says so and later ones go, so nothing else of the
// schedule moves. A file without a protocol line runs the robust protocol
// already and is left as it is.
func withProtocol(text string, opts []string) string {
	value := "robust"
	if len(opts) > 0 {
		value = strings.Join(opts, ",")
	}
	lines := strings.Split(text, "\n")
	out := lines[:0:0]
	done := false
	for _, line := range lines {
		w, comment := splitLine(line)
		if len(w) == 0 || w[0] != "protocol" {
			out = append(out, line)
			continue
		}
		if done {
			continue
		}
		done = true
		line = "protocol " + value
		if comment != "" {
			line += " " + comment
		}
		out = append(out, line)
	}
	return strings.Join(out, "\n")
}

// without is opts less drop, in their order.
func without(opts []string, drop string) []string {
	return slices.DeleteFunc(slices.Clone(opts), func(o string) bool { return o == drop })
}

// helpWords start the liveness line's parts that are the harness's help to a
// source run (a recorded cut-off, heal or cut); their arguments follow them.
var helpWords = []string{"cut", "heal", "isolate"}

// dropHelp removes the harness's help from the liveness lines: a robust run
// gets none (D43), so its variant must converge without it. keep-faults is
// part of the schedule, not help, and stays; a line left with nothing but
// "liveness" goes.
func dropHelp(text string) string {
	lines := strings.Split(text, "\n")
	out := lines[:0:0]
	for _, line := range lines {
		w, comment := splitLine(line)
		if len(w) < 2 || w[0] != "liveness" || !slices.ContainsFunc(w[1:], func(s string) bool { return slices.Contains(helpWords, s) }) {
			out = append(out, line)
			continue
		}
		kept := []string{"liveness"}
		skipping := false
		for _, word := range w[1:] {
			switch {
			case slices.Contains(helpWords, word):
				skipping = true
			case word == "keep-faults":
				skipping = false
				kept = append(kept, word)
			case !skipping:
				kept = append(kept, word)
			}
		}
		if len(kept) == 1 {
			continue
		}
		line = strings.Join(kept, " ")
		if comment != "" {
			line += " " + comment
		}
		out = append(out, line)
	}
	return strings.Join(out, "\n")
}

// robustText is the robust variant: no source option, no help.
func robustText(text string) string { return dropHelp(withProtocol(text, nil)) }

// outcome is one run's verdict; a run the tool could not judge (the binary
// refused the file, or printed no JSON) has err set instead.
type outcome struct {
	Verdict  string `json:"verdict"`
	Evidence string `json:"evidence,omitempty"`
	Err      string `json:"error,omitempty"`
}

// label is the outcome as a table cell shows it.
func (o outcome) label() string {
	if o.Err != "" {
		return "error"
	}
	return o.Verdict
}

func (o outcome) passed() bool { return o.Err == "" && o.Verdict == "pass" }

// result is a finding with every variant's outcome.
type result struct {
	finding
	asIs    outcome
	without map[string]outcome // by the option removed
	robust  outcome
	// helpKept is the robust protocol with the help lines kept, run only
	// when no single removal passes a file of two or more options: it
	// tells a file that needs options together from one the help itself
	// stalls once the source's rules are gone.
	helpKept *outcome
}

// necessary are the options each of which, removed alone, makes the file
// pass, in canonical order.
func (r result) necessary() []string {
	var n []string
	for _, o := range r.opts {
		if r.without[o].passed() {
			n = append(n, o)
		}
	}
	return canonical(n)
}

// robustFails is a finding of the robust protocol: the claim is that
// every source finding passes once the source's rules and help are gone. A
// robust run that did not run at all is a variant error, not a finding, and
// one that ends unrecoverable is no failure either: the oracle proved from
// its record that the schedule took more than the protocol survives (exit
// 0), which the robust run of the same schedule may meet where the source's
// stalled first (the report shows the verdict).
func (r result) robustFails() bool {
	return r.robust.Err == "" && !r.robust.passed() && r.robust.Verdict != "unrecoverable"
}

// moved says why the file as is no longer shows its recorded finding, or "".
func (r result) moved() string {
	switch {
	case r.asIs.Err != "":
		return "does not run: " + r.asIs.Err
	case r.asIs.Verdict == "pass":
		return "passes as is"
	case r.recorded != "" && r.asIs.Verdict != r.recorded:
		return fmt.Sprintf("fails as %s, recorded as %s", r.asIs.Verdict, r.recorded)
	}
	return ""
}

// variantErrors names the variants the binary could not run.
func (r result) variantErrors() []string {
	var errs []string
	for _, o := range r.opts {
		if e := r.without[o].Err; e != "" {
			errs = append(errs, "without "+o+": "+e)
		}
	}
	if r.robust.Err != "" {
		errs = append(errs, "robust: "+r.robust.Err)
	}
	return errs
}
