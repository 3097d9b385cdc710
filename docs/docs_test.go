// Package docs holds no code: its tests check that the documentation stays
// true to the tree (the decision index against its records, the
// architecture's package table and its imports column against `go list`,
// the glossary against the code's own lists, the decision records' links
// both ways, and no binary tracked by git).
package docs

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// moduleRoot is the directory of go.mod above the working directory (a
// test runs in its package's directory, docs/).
func moduleRoot(t *testing.T) string {
	t.Helper()
	dir, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			t.Fatal("no go.mod above the working directory")
		}
		dir = parent
	}
}

// readDoc returns the lines of a file below the module root.
func readDoc(t *testing.T, rel string) []string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(moduleRoot(t), filepath.FromSlash(rel)))
	if err != nil {
		t.Fatal(err)
	}
	return strings.Split(strings.TrimRight(string(data), "\n"), "\n")
}

// tableCells splits a Markdown table row into its trimmed cells, or returns
// nil for a line that is not a row.
func tableCells(line string) []string {
	line = strings.TrimSpace(line)
	if !strings.HasPrefix(line, "|") || !strings.HasSuffix(line, "|") || len(line) < 2 {
		return nil
	}
	cells := strings.Split(line[1:len(line)-1], "|")
	for i := range cells {
		cells[i] = strings.TrimSpace(cells[i])
	}
	return cells
}

// isRule reports whether cells are a table's header rule (|---|---|).
func isRule(cells []string) bool {
	for _, c := range cells {
		if strings.Trim(c, "-: ") != "" {
			return false
		}
	}
	return len(cells) > 0
}

// compareSets reports, as one error naming each, the names want has and got
// lacks (missing) and the names got has and want lacks (stale or extra).
func compareSets(t *testing.T, what string, want, got []string, missing, extra string) {
	t.Helper()
	in := func(list []string) map[string]bool {
		m := make(map[string]bool, len(list))
		for _, s := range list {
			m[s] = true
		}
		return m
	}
	w, g := in(want), in(got)
	var lacks, stale []string
	for _, s := range want {
		if !g[s] {
			lacks = append(lacks, s)
		}
	}
	for _, s := range got {
		if !w[s] {
			stale = append(stale, s)
		}
	}
	if len(lacks) > 0 {
		t.Errorf("%s: %s: %s", what, missing, strings.Join(lacks, ", "))
	}
	if len(stale) > 0 {
		t.Errorf("%s: %s: %s", what, extra, strings.Join(stale, ", "))
	}
	seen := map[string]bool{}
	for _, s := range got {
		if seen[s] {
			t.Errorf("%s: %s listed twice", what, s)
		}
		seen[s] = true
	}
}
