package main

import (
	"fmt"
	"io"
	"os"
	"strings"

	"vsrsim/findings"
)

// signatureJSON is one line of `merge --signatures FILE`: a class of
// findings, how many runs fell in it, and the smallest seed to replay. Its
// field names are a contract.
type signatureJSON struct {
	ID        string `json:"id"`
	Signature string `json:"signature"`
	Verdict   string `json:"verdict"`
	Invariant string `json:"invariant"`
	Rule      string `json:"rule,omitempty"`
	Runs      int    `json:"runs"`
	Seed      uint64 `json:"seed"`
	SeedHex   string `json:"seed_hex"`
	Replay    string `json:"replay"`
}

func newSignatureJSON(g findings.SignatureGroup) signatureJSON {
	r := g.Smallest
	return signatureJSON{
		ID: g.ID, Signature: g.Signature, Verdict: string(r.Verdict), Invariant: r.Invariant, Rule: r.Rule,
		Runs: g.Count, Seed: r.Seed, SeedHex: seedHex(r.Seed), Replay: r.Replay,
	}
}

// writeSignatureTable lists the signatures on stderr: one row a class of
// findings, with its runs and the smallest seed, most runs first.
func writeSignatureTable(w io.Writer, groups []findings.SignatureGroup) error {
	if len(groups) == 0 {
		return nil
	}
	rows := make([][]string, 0, len(groups))
	for _, g := range groups {
		rows = append(rows, []string{g.ID, fmt.Sprint(g.Count), fmt.Sprint(g.Smallest.Seed), g.Signature})
	}
	t := newTable(w, "signature", "runs", "smallest seed", "verdict, invariant or rule: evidence shape")
	if err := t.Bulk(rows); err != nil {
		return err
	}
	return t.Render()
}

// writeSignatures writes --signatures FILE: one JSON line per signature.
func writeSignatures(path string, groups []findings.SignatureGroup) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	for _, g := range groups {
		if err == nil {
			err = writeJSON(f, newSignatureJSON(g))
		}
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

// writeSignatureMarkdown is the Markdown summary's table of signatures.
func writeSignatureMarkdown(b *strings.Builder, groups []findings.SignatureGroup) {
	if len(groups) == 0 {
		return
	}
	fmt.Fprintf(b, "**%d signatures** (findings of one shape: verdict, invariant or rule, evidence without numbers)\n\n", len(groups))
	b.WriteString("| signature | runs | smallest seed | replay |\n|---|---:|---:|---|\n")
	for _, g := range groups[:min(len(groups), markdownRowsMax)] {
		fmt.Fprintf(b, "| `%s` %s | %d | %d | `%s` |\n", g.ID, mdCell(g.Signature), g.Count, g.Smallest.Seed,
			mdCell(strings.ReplaceAll(g.Smallest.Replay, "`", "'")))
	}
	b.WriteString("\n")
}
