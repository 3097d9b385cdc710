package docs

import (
	"bytes"
	"fmt"
	"os/exec"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// backticked is one name in backticks.
var backticked = regexp.MustCompile("`([^`]+)`")

// testsOnly marks an imports cell that lists what a package's tests import:
// the package itself has no code (docs).
const testsOnly = "(tests only)"

// packageImports is what go list says each package of the module imports of
// the module, directly, relative to the module path: its own files' imports,
// and its tests' (internal and external, the package itself left out).
type packageImports struct {
	code, tests []string
}

// moduleImports runs go list over the module and keeps, for each package,
// the imports that are packages of the module.
func moduleImports(t *testing.T) map[string]packageImports {
	t.Helper()
	root := moduleRoot(t)
	readTree(t, root)
	cmd := exec.Command(goCommand(), "list", "-f",
		"{{.ImportPath}}\t{{.Module.Path}}\t{{join .Imports \" \"}}\t{{join .TestImports \" \"}} {{join .XTestImports \" \"}}", "./...")
	cmd.Dir = root
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	require.NoError(t, err, "go list ./... in %s:\n%s", root, stderr.String())
	ours := func(path, module string) (string, bool) {
		if path == module {
			return ".", true
		}
		rel, ok := strings.CutPrefix(path, module+"/")
		return rel, ok
	}
	keep := func(self, module, list string) []string {
		var pkgs []string
		for _, path := range strings.Fields(list) {
			if rel, ok := ours(path, module); ok && rel != self && !slices.Contains(pkgs, rel) {
				pkgs = append(pkgs, rel)
			}
		}
		slices.Sort(pkgs)
		return pkgs
	}
	imports := map[string]packageImports{}
	// Trim newlines only: the last line's fields may end empty (a package
	// with no test imports ends in a tab).
	for _, line := range strings.Split(strings.TrimRight(string(out), "\n"), "\n") {
		f := strings.Split(line, "\t")
		require.Len(t, f, 4, "go list: unexpected line %q", line)
		self, ok := ours(f[0], f[1])
		require.True(t, ok, "go list: %s is outside module %s", f[0], f[1])
		imports[self] = packageImports{code: keep(self, f[1], f[2]), tests: keep(self, f[1], f[3])}
	}
	return imports
}

// importsRow is one row of the package table: the package and the packages
// its imports cell names, in table order.
type importsRow struct {
	pkg       string
	imports   []string
	testsOnly bool
	line      int
}

// importsColumn reads the package table of docs/architecture.md, "## Packages":
// each row's first cell and its third, "imports (ours)": backticked names,
// or "none" (a note in parentheses may follow either).
func importsColumn(t *testing.T) []importsRow {
	t.Helper()
	var rows []importsRow
	for _, row := range packageRows(t) {
		cells := row.cells
		require.Len(t, cells, 3, "docs/architecture.md:%d: want package, holds, imports", row.line)
		cell := cells[2]
		r := importsRow{pkg: strings.Trim(cells[0], "`"), testsOnly: strings.Contains(cell, testsOnly), line: row.line}
		names, _, _ := strings.Cut(cell, "(")
		for _, m := range backticked.FindAllStringSubmatch(names, -1) {
			r.imports = append(r.imports, m[1])
		}
		if len(r.imports) == 0 {
			require.True(t, strings.HasPrefix(cell, "none"),
				"docs/architecture.md:%d: imports cell %q names no package and is not `none`", row.line, cell)
		}
		rows = append(rows, r)
	}
	return rows
}

// importsCell is the cell a row should hold for imports: what a reader
// fixing a row copies.
func importsCell(pkgs []string) string {
	if len(pkgs) == 0 {
		return "none"
	}
	cells := make([]string, len(pkgs))
	for i, p := range pkgs {
		cells[i] = "`" + p + "`"
	}
	return strings.Join(cells, ", ")
}

// TestArchitectureImports checks the "imports (ours)" column of
// docs/architecture.md against go list: each row names exactly the packages
// of the module its package imports directly (for a package with no code of
// its own, what its tests import), and every import points down the table,
// as the text above the table says. The column was kept by hand and had
// drifted (`verify` and `sweep` named packages they no longer import and
// missed ones they do).
func TestArchitectureImports(t *testing.T) {
	imports := moduleImports(t)
	rows := importsColumn(t)
	position := map[string]int{}
	for i, r := range rows {
		position[r.pkg] = i
	}
	for _, r := range rows {
		got, ok := imports[r.pkg]
		if !ok {
			continue // TestArchitecturePackages reports a row with no package
		}
		want := got.code
		if r.testsOnly {
			require.Empty(t, got.code, "docs/architecture.md:%d: %s has code that imports the module; its row says tests only", r.line, r.pkg)
			want = got.tests
		}
		listed := slices.Clone(r.imports)
		slices.Sort(listed)
		assert.Equal(t, want, listed, "docs/architecture.md:%d: the imports of %s; the cell should read %s",
			r.line, r.pkg, importsCell(want)+map[bool]string{true: " " + testsOnly}[r.testsOnly])
		for _, dep := range want {
			if p, ok := position[dep]; ok && p <= position[r.pkg] {
				assert.Fail(t, fmt.Sprintf("docs/architecture.md:%d: %s imports %s, which stands above it in the table", r.line, r.pkg, dep),
					"imports point one way, down the table")
			}
		}
	}
}
