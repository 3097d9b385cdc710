package main

import (
	"cmp"
	"fmt"
	"slices"
	"strings"
)

// setRow is a line of the summary: the files whose necessary options are
// exactly set.
type setRow struct {
	set   []string
	files int
}

// summarize counts the files by their set of necessary options, the
// largest group first, ties by the set's name so the order is the same on
// every run. Files that run no option (a robust file named by hand) have
// nothing to ablate and are left out.
func summarize(results []result) []setRow {
	count := map[string]*setRow{}
	for _, r := range results {
		if len(r.opts) == 0 {
			continue
		}
		set := r.necessary()
		key := strings.Join(set, ",")
		if count[key] == nil {
			count[key] = &setRow{set: set}
		}
		count[key].files++
	}
	var rows []setRow
	for _, row := range count {
		rows = append(rows, *row)
	}
	slices.SortFunc(rows, func(a, b setRow) int {
		return cmp.Or(b.files-a.files, strings.Compare(setName(a.set), setName(b.set)))
	})
	return rows
}

func setName(set []string) string {
	if len(set) == 0 {
		return "none alone"
	}
	names := make([]string, len(set))
	for i, o := range set {
		names[i] = "`" + o + "`"
	}
	return strings.Join(names, " + ")
}

// columns are the options any file sets, in canonical order.
func columns(results []result) []string {
	var cols []string
	for _, r := range results {
		for _, o := range r.opts {
			if !slices.Contains(cols, o) {
				cols = append(cols, o)
			}
		}
	}
	return canonical(cols)
}

// cell is what removing o did to r: "needed" when the run then passes,
// "not needed" when it fails as the file does, and the verdict when it
// fails otherwise, since a stall that turns into another failure is worth
// seeing.
func cell(r result, o string) string {
	if !slices.Contains(r.opts, o) {
		return ""
	}
	w := r.without[o]
	switch {
	case w.passed():
		return "needed"
	case w.Err != "":
		return "**error**"
	case w.Verdict == r.asIs.Verdict:
		return "not needed"
	}
	return "not needed (" + w.Verdict + ")"
}

// helpKeptOutcome is the robust protocol with the help lines kept: the extra
// run, or with one option the run without it, which is that already.
func helpKeptOutcome(r result) (outcome, bool) {
	if r.helpKept != nil {
		return *r.helpKept, true
	}
	if len(r.opts) == 1 {
		return r.without[r.opts[0]], true
	}
	return outcome{}, false
}

func render(results []result) string {
	var b strings.Builder
	b.WriteString(intro)
	renderProblems(&b, results)
	ablated := 0
	for _, r := range results {
		if len(r.opts) > 0 {
			ablated++
		}
	}
	fmt.Fprintf(&b, "## Summary\n\n%s, counted by the set of options each of which is necessary (removed alone, the file passes):\n\n", plural(ablated, "file", "files"))
	b.WriteString("| necessary options | files |\n|---|---|\n")
	for _, row := range summarize(results) {
		fmt.Fprintf(&b, "| %s | %d |\n", setName(row.set), row.files)
	}
	b.WriteString("\n")
	renderNoneAlone(&b, results)
	renderOptions(&b, results)
	renderTable(&b, results)
	return b.String()
}

const intro = "# Source-protocol findings, option by option\n\n" +
	"Each file of `fuzz/testdata/source-*.vsr` is an open finding of a *source protocol*: its `protocol`\n" +
	"line turns on options that bring back rules of the system the failure shapes come from, rules the\n" +
	"robust protocol replaced (docs/protocol.md, \"Protocol options\"). Each was triaged as the source\n" +
	"protocol's own. This page says, for each, which rule of the source makes it fail, and shows that\n" +
	"the robust protocol passes the same schedule. For every file `tools/ablate` runs:\n\n" +
	"- the file as is, which must still fail as its header records;\n" +
	"- for each option of its `protocol` line, the file with that option alone removed, everything else\n" +
	"  kept (removing the only one leaves `protocol robust`). An option whose removal makes the run pass\n" +
	"  is *necessary*: the finding needs that rule of the source;\n" +
	"- the robust variant: `protocol robust` without the `liveness cut`, `liveness heal` and\n" +
	"  `liveness isolate` lines, the harness's help to a source run that a robust run does not get\n" +
	"  ([D38](decisions/0038-harness-help-is-an-assist-late-links-only-after-a-grace.md),\n" +
	"  [D43](decisions/0043-backups-reply-relay-the-view-and-recover-promptly.md)). It must pass.\n\n" +
	"An option changes the run from its first tick, not only at the stall: *necessary* says the\n" +
	"finding needs that rule of the source to form, and the option's paragraph below says how the rule\n" +
	"stalls a core and what the robust mechanism does instead; the shapes counted under it are those\n" +
	"the files' own evidence shows.\n\n" +
	"Reproduce with `make ablate` (this file is its output; `go run ./tools/ablate -o - FILE...` ablates\n" +
	"some files). Verdicts are exact on every machine. The command fails if a robust variant fails or a\n" +
	"file no longer fails as recorded.\n\n"

// renderProblems puts first what the issue must hear of: robust variants
// that fail, findings that moved, variants that did not run.
func renderProblems(b *strings.Builder, results []result) {
	b.WriteString("## Findings of the robust protocol\n\n")
	var robust, moved, errs, excused []string
	for _, r := range results {
		if r.robust.Err == "" && r.robust.Verdict == "unrecoverable" {
			excused = append(excused, fmt.Sprintf("- `%s` (`%s`): %s", r.name, strings.Join(r.opts, ","), evidence(r.robust)))
		}
		if r.robustFails() {
			robust = append(robust, fmt.Sprintf("- **`%s`** (`%s`): the robust variant fails, **%s**: %s", r.name,
				strings.Join(r.opts, ","), r.robust.label(), evidence(r.robust)))
		}
		if m := r.moved(); m != "" {
			moved = append(moved, fmt.Sprintf("- **`%s`**: %s", r.name, m))
		}
		for _, e := range r.variantErrors() {
			errs = append(errs, fmt.Sprintf("- **`%s`**: %s", r.name, e))
		}
	}
	switch {
	case len(robust) == 0 && len(excused) == 0:
		b.WriteString("None: the robust variant of every file passes.\n\n")
	case len(robust) == 0:
		fmt.Fprintf(b, "None: the robust variant of every file passes, or ends `unrecoverable` (%s: the oracle proved from its record that the same schedule took more than the protocol survives, where the source's run stalled first):\n\n%s\n\n",
			plural(len(excused), "file", "files"), strings.Join(excused, "\n"))
	default:
		fmt.Fprintf(b, "**%s whose robust variant does not pass.** Each is a finding of the robust protocol, not the source's:\n\n%s\n\n",
			plural(len(robust), "file", "files"), strings.Join(robust, "\n"))
	}
	if len(moved) > 0 {
		fmt.Fprintf(b, "**Findings that moved** (the file as is no longer fails as recorded):\n\n%s\n\n", strings.Join(moved, "\n"))
	}
	if len(errs) > 0 {
		fmt.Fprintf(b, "**Variants that did not run:**\n\n%s\n\n", strings.Join(errs, "\n"))
	}
}

func evidence(o outcome) string {
	if o.Err != "" {
		return o.Err
	}
	ev := o.Evidence
	if len(ev) > 240 {
		ev = ev[:240] + "..."
	}
	return strings.ReplaceAll(ev, "`", "'")
}

// renderNoneAlone explains the files no single removal passes, with the run
// that tells why: every option removed but the help lines kept.
func renderNoneAlone(b *strings.Builder, results []result) {
	var lines []string
	for _, r := range results {
		if len(r.opts) == 0 || len(r.necessary()) > 0 {
			continue
		}
		line := fmt.Sprintf("- `%s` (`%s`): no single removal passes", r.name, strings.Join(r.opts, ","))
		hk, ok := helpKeptOutcome(r)
		switch {
		case !ok:
		case hk.passed():
			line += "; with every option removed (help lines kept) it passes: it needs two or more of its options together."
		default:
			line += fmt.Sprintf("; with every option removed but the help lines kept it still fails (%s): the help recorded for the source run (a cut-off, a cut) stalls the robust protocol too", hk.label())
			if r.robust.passed() {
				line += ", and without it the robust variant passes."
			} else {
				line += "."
			}
		}
		lines = append(lines, line)
	}
	if len(lines) == 0 {
		return
	}
	fmt.Fprintf(b, "%s with no single option removed: they need two or more options together, or the help lines are what the robust protocol cannot meet:\n\n%s\n\n",
		plural(len(lines), "file passes", "files pass"), strings.Join(lines, "\n"))
}

// shapes are the forms a failure as is takes, read from its evidence in
// this order: the paragraphs' mechanisms, counted.
var shapes = []struct{ name, mark string }{
	{"views climb with no view change completing", "view climbed"},
	{"a backup drops the primary's prepares by the gap check", "by the gap check"},
	{"too few replicas can vote", "no-voters"},
}

// shape is the form r's failure as is takes.
func shape(r result) string {
	if r.asIs.Verdict == "safety" {
		return "a safety failure"
	}
	for _, s := range shapes {
		if strings.Contains(r.asIs.Evidence, s.mark) {
			return s.name
		}
	}
	return "a core that stays Normal but does not catch up or agree on a view"
}

// optionCount is what the report says of one option.
type optionCount struct {
	set, needed, alone int
	shapes             map[string]int // of the files that need it
}

func countOption(results []result, o string) optionCount {
	c := optionCount{shapes: map[string]int{}}
	for _, r := range results {
		if !slices.Contains(r.opts, o) {
			continue
		}
		c.set++
		n := r.necessary()
		if !slices.Contains(n, o) {
			continue
		}
		c.needed++
		if len(n) == 1 {
			c.alone++
		}
		c.shapes[shape(r)]++
	}
	return c
}

// shapeList is the shapes by count, the most first, ties by name.
func shapeList(m map[string]int) string {
	var names []string
	for name := range m {
		names = append(names, name)
	}
	slices.SortFunc(names, func(a, b string) int { return cmp.Or(m[b]-m[a], strings.Compare(a, b)) })
	parts := make([]string, len(names))
	for i, name := range names {
		parts[i] = fmt.Sprintf("%s (%d)", name, m[name])
	}
	return strings.Join(parts, ", ")
}

func plural(n int, one, many string) string {
	if n == 1 {
		return fmt.Sprintf("%d %s", n, one)
	}
	return fmt.Sprintf("%d %s", n, many)
}

func renderOptions(b *strings.Builder, results []result) {
	b.WriteString("## The options\n\n")
	for _, o := range columns(results) {
		c := countOption(results, o)
		fmt.Fprintf(b, "### `%s`\n\n", o)
		rule := ruleOf(o)
		if rule == "" {
			rule = "No paragraph yet: add one to the option table of `tools/ablate`."
		}
		fmt.Fprintf(b, "%s\n\nNecessary in %d of the %s (the only necessary option in %d).",
			rule, c.needed, plural(c.set, "file that sets it", "files that set it"), c.alone)
		if c.needed > 0 {
			fmt.Fprintf(b, " As is, those fail as: %s.", shapeList(c.shapes))
		}
		b.WriteString("\n\n")
	}
}

func renderTable(b *strings.Builder, results []result) {
	cols := columns(results)
	b.WriteString("## Every file\n\nEach option column is the file run without that option alone: *needed* (it then passes), *not needed* (it fails as the file does), or not needed with the other verdict it ends in (`unrecoverable`: the oracle proved the run went past what the protocol promises to survive, docs/checkers.md). An empty cell: the file does not set that option. *robust* is the robust variant.\n\n")
	b.WriteString("| file | options | as is |")
	for _, o := range cols {
		fmt.Fprintf(b, " `%s` |", o)
	}
	b.WriteString(" robust |\n|---|---|---|")
	b.WriteString(strings.Repeat("---|", len(cols)))
	b.WriteString("---|\n")
	for _, r := range results {
		robust := r.robust.label()
		if r.robustFails() {
			robust = "**" + robust + "**"
		}
		asIs := r.asIs.label()
		if r.moved() != "" {
			asIs = "**" + asIs + "**"
		}
		fmt.Fprintf(b, "| `%s` | %s | %s |", r.name, strings.Join(r.opts, ", "), asIs)
		for _, o := range cols {
			fmt.Fprintf(b, " %s |", cell(r, o))
		}
		fmt.Fprintf(b, " %s |\n", robust)
	}
}
