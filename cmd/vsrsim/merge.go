package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"vsrsim/findings"
)

type mergeOptions struct {
	out        string
	summaryMD  string
	signatures string
}

func newMergeCmd() *cobra.Command {
	o := &mergeOptions{}
	cmd := &cobra.Command{
		Use:   "merge FILE|DIR...",
		Short: "Merge the failures files of sweep shards into one",
		Long: `Merge failures files (as "vsrsim sweep --failures" writes them, one
"vsrsim run -o json" object per line) into one JSONL stream on stdout, or in
--out FILE: one record per run (the same seed with the same flags), the first
one read kept, in seed order. A DIR stands for every *.jsonl file under it, in
name order. Every line is checked; empty files are fine.

A line that is a sweep's summary (as "vsrsim sweep -o json" ends with) is
not a record: its linearizability_unknown is summed, so whole shard outputs
may be merged. A summary goes to stderr: records read and kept, summaries
read, runs whose linearizability check answered unknown, and the findings per
verdict, per invariant and per bug switch that was on (a run with several
switches on counts for each). --summary-md FILE appends it as Markdown
(for $GITHUB_STEP_SUMMARY). A run found twice with another verdict or trace
hash is reported as a conflict on stderr.

The findings are also grouped by signature: the verdict, the invariant (or
an unrecoverable run's rule) and the shape of the evidence, its numbers,
checksums and replica lists taken out, so the many seeds of one defect read
as one row with their count and the smallest seed. --signatures FILE writes
the groups as JSON lines.

Exit code: 0 merged, 65 a malformed line (named FILE:LINE) or an unreadable
FILE, 64 bad flags, 70 a failed write.`,
		Example: `  vsrsim merge failures-*.jsonl > findings.jsonl
  vsrsim merge --out findings.jsonl --summary-md "$GITHUB_STEP_SUMMARY" shards/`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return o.merge(args, cmd.OutOrStdout(), cmd.ErrOrStderr())
		},
	}
	f := cmd.Flags()
	f.StringVar(&o.out, "out", "", "write the merged records to `FILE` instead of stdout")
	f.StringVar(&o.summaryMD, "summary-md", "", "append the summary as Markdown to `FILE`")
	f.StringVar(&o.signatures, "signatures", "", "write the findings grouped by signature to `FILE`, one JSON line each")
	return cmd
}

func (o *mergeOptions) merge(args []string, stdout, stderr io.Writer) error {
	files, err := mergeInputs(args)
	if err != nil {
		return err
	}
	// Everything is read before anything is written, so --out may name one
	// of the inputs.
	all, sums, err := readMergeInputs(files)
	if err != nil {
		return err
	}
	m := findings.Merge(all)

	var buf bytes.Buffer
	for _, r := range m.Records {
		buf.WriteString(r.Text)
		buf.WriteByte('\n')
	}
	if o.out != "" {
		err = os.WriteFile(o.out, buf.Bytes(), 0o644)
	} else {
		_, err = stdout.Write(buf.Bytes())
	}
	if err != nil {
		return internalErrorf("writing merged records: %v", err)
	}
	for _, c := range m.Conflicts {
		fmt.Fprintf(stderr, "vsrsim: conflict: seed %d: %s gave %s %s, %s gave %s %s (same flags)\n", c.Kept.Seed,
			c.Kept.Where(), c.Kept.Verdict, c.Kept.TraceHash, c.Dropped.Where(), c.Dropped.Verdict, c.Dropped.TraceHash)
	}
	return o.report(stderr, m, sums, len(files))
}

// readMergeInputs reads every record of files, and sums the sweep summary
// lines among them.
func readMergeInputs(files []string) ([]findings.Record, sweepSums, error) {
	var all []findings.Record
	var sums sweepSums
	for _, name := range files {
		data, err := os.ReadFile(name)
		if err != nil {
			return nil, sums, dataErrorf("%s: %v", name, errUnwrapPath(err))
		}
		data = sums.take(data)
		recs, err := findings.Read(name, bytes.NewReader(data))
		if err != nil {
			return nil, sums, dataErrorf("%v", err)
		}
		all = append(all, recs...)
	}
	return all, sums, nil
}

// report writes the merge's summary: the tables on stderr, and the files
// --signatures and --summary-md ask for.
func (o *mergeOptions) report(stderr io.Writer, m findings.Merged, sums sweepSums, files int) error {
	tally := findings.Summarize(m.Records)
	groups := findings.GroupBySignature(m.Records)
	if err := writeMergeTable(stderr, m, tally, len(groups), sums, files); err != nil {
		return internalErrorf("writing summary: %v", err)
	}
	if err := writeSignatureTable(stderr, groups); err != nil {
		return internalErrorf("writing summary: %v", err)
	}
	if o.signatures != "" {
		if err := writeSignatures(o.signatures, groups); err != nil {
			return internalErrorf("--signatures: %v", err)
		}
	}
	if o.summaryMD == "" {
		return nil
	}
	f, err := os.OpenFile(o.summaryMD, os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o644)
	if err != nil {
		return internalErrorf("--summary-md: %v", err)
	}
	err = writeMergeMarkdown(f, m, tally, groups, sums, files)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return internalErrorf("--summary-md: %v", err)
	}
	return nil
}

// mergeInputs expands each DIR argument to the *.jsonl files under it, in
// lexical order; FILE arguments stay as given.
func mergeInputs(args []string) ([]string, error) {
	var files []string
	for _, arg := range args {
		st, err := os.Stat(arg)
		if err != nil {
			return nil, dataErrorf("%s: %v", arg, errUnwrapPath(err))
		}
		if !st.IsDir() {
			files = append(files, arg)
			continue
		}
		found := 0
		err = filepath.WalkDir(arg, func(path string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if !d.IsDir() && strings.HasSuffix(path, ".jsonl") {
				files = append(files, path)
				found++
			}
			return nil
		})
		if err != nil {
			return nil, dataErrorf("%s: %v", arg, errUnwrapPath(err))
		}
		if found == 0 {
			return nil, dataErrorf("%s: no .jsonl files in the directory", arg)
		}
	}
	return files, nil
}

func writeMergeTable(w io.Writer, m findings.Merged, tally findings.Tally, signatures int, sums sweepSums, files int) error {
	rows := [][]string{
		{"files", fmt.Sprint(files)},
		{"records read", fmt.Sprint(m.Read)},
		{"duplicates dropped", fmt.Sprint(m.Duplicates)},
		{"conflicts", fmt.Sprint(len(m.Conflicts))},
		{"runs kept", fmt.Sprint(len(m.Records))},
		{"signatures", fmt.Sprint(signatures)},
		{"sweep summaries", fmt.Sprint(sums.Summaries)},
		{"linearizability unknown", fmt.Sprint(sums.LinearizabilityUnknown)},
	}
	for _, group := range tally.Groups() {
		for _, c := range group.Counts {
			rows = append(rows, []string{group.Label + ": " + c.Name, fmt.Sprint(c.N)})
		}
	}
	t := newTable(w, "merge", "")
	if err := t.Bulk(rows); err != nil {
		return err
	}
	return t.Render()
}

// sweepSums sums the sweep summaries a merge reads: `sweep -o json` ends its
// output with one (a line with "summary": true), so a shard's whole output
// can be merged, and what the summaries count beside the findings is summed.
type sweepSums struct {
	Summaries              int
	LinearizabilityUnknown uint64
}

// take sums the summary lines of data and returns data with them blanked, so
// that the records keep their line numbers; a line that is not a summary is
// left for findings.Read to judge.
func (s *sweepSums) take(data []byte) []byte {
	if !bytes.Contains(data, []byte(`"summary"`)) {
		return data
	}
	lines := bytes.SplitAfter(data, []byte("\n"))
	for i, line := range lines {
		var sum struct {
			Summary                bool   `json:"summary"`
			LinearizabilityUnknown uint64 `json:"linearizability_unknown"`
		}
		if !bytes.Contains(line, []byte(`"summary"`)) || json.Unmarshal(line, &sum) != nil || !sum.Summary {
			continue
		}
		s.Summaries++
		s.LinearizabilityUnknown += sum.LinearizabilityUnknown
		lines[i] = []byte("\n")
	}
	return bytes.Join(lines, nil)
}
