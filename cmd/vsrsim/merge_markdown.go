package main

import (
	"fmt"
	"io"
	"strings"

	"vsrsim/findings"
)

// markdownRowsMax bounds the findings listed one by one: a CI summary page
// has a size limit, and the merged file holds them all anyway.
const markdownRowsMax = 100

// evidenceCellMax cuts evidence in a Markdown cell; the record keeps it whole.
const evidenceCellMax = 160

// writeMergeMarkdown writes the merge summary as GitHub-flavoured Markdown:
// counts, the signatures, then the findings, each with the command that
// replays it.
func writeMergeMarkdown(w io.Writer, m findings.Merged, tally findings.Tally, groups []findings.SignatureGroup, sums sweepSums, files int) error {
	var b strings.Builder
	b.WriteString("## vsrsim sweep findings\n\n")
	if sums.Summaries > 0 {
		fmt.Fprintf(&b, "Linearizability unknown (step budget spent) in %d runs, by %d sweep summaries.\n\n",
			sums.LinearizabilityUnknown, sums.Summaries)
	}
	if len(m.Records) == 0 {
		fmt.Fprintf(&b, "No findings in %d files.\n", files)
		_, err := io.WriteString(w, b.String())
		return err
	}
	fmt.Fprintf(&b, "**%d findings** (%d records in %d files, %d duplicates dropped", len(m.Records), m.Read, files, m.Duplicates)
	if len(m.Conflicts) > 0 {
		fmt.Fprintf(&b, ", **%d conflicts**: the same run gave another verdict or trace hash", len(m.Conflicts))
	}
	b.WriteString(").\n\n")
	writeSignatureMarkdown(&b, groups)
	for _, group := range tally.Groups() {
		fmt.Fprintf(&b, "| %s | findings |\n|---|---:|\n", group.Label)
		for _, c := range group.Counts {
			fmt.Fprintf(&b, "| %s | %d |\n", mdCell(c.Name), c.N)
		}
		b.WriteString("\n")
	}
	shown := min(len(m.Records), markdownRowsMax)
	fmt.Fprintf(&b, "<details><summary>Findings (%d of %d, by seed)</summary>\n\n", shown, len(m.Records))
	b.WriteString("| seed | verdict | invariant | evidence | replay |\n|---:|---|---|---|---|\n")
	for _, r := range m.Records[:shown] {
		evidence := oneLine(r.Evidence)
		if r := []rune(evidence); len(r) > evidenceCellMax {
			evidence = string(r[:evidenceCellMax]) + "…"
		}
		fmt.Fprintf(&b, "| %d | %s | %s | %s | `%s` |\n", r.Seed, r.Verdict, mdCell(orNone(r.Invariant)),
			mdCell(orNone(evidence)), mdCell(strings.ReplaceAll(r.Replay, "`", "'")))
	}
	b.WriteString("\n</details>\n")
	_, err := io.WriteString(w, b.String())
	return err
}

// mdCell keeps text inside one table cell: one line, pipes escaped.
func mdCell(s string) string {
	return strings.ReplaceAll(oneLine(s), "|", `\|`)
}
