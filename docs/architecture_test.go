package docs

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// goCommand is the go command: the one on PATH, else the one of the
// toolchain that built this test.
func goCommand() string {
	if p, err := exec.LookPath("go"); err == nil {
		return p
	}
	return filepath.Join(runtime.GOROOT(), "bin", "go")
}

// modulePackages lists the module's packages as `go list ./...` names them,
// relative to the module path (vsrsim/sim/check is sim/check).
func modulePackages(t *testing.T) []string {
	t.Helper()
	root := moduleRoot(t)
	readTree(t, root)
	cmd := exec.Command(goCommand(), "list", "-f", "{{.ImportPath}} {{.Module.Path}}", "./...")
	cmd.Dir = root
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list ./... in %s: %v\n%s", root, err, stderr.String())
	}
	var pkgs []string
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		path, module, ok := strings.Cut(line, " ")
		if !ok {
			t.Fatalf("go list: unexpected line %q", line)
		}
		if path == module {
			pkgs = append(pkgs, ".")
			continue
		}
		pkgs = append(pkgs, strings.TrimPrefix(path, module+"/"))
	}
	return pkgs
}

// readTree reads every directory go list may look in. go test caches a
// passing result and keys it on what the test itself opened, not on what a
// command it ran read; reading the directories makes a new or removed
// package directory a changed input, so the cached pass is not reused.
func readTree(t *testing.T, root string) {
	t.Helper()
	err := filepath.WalkDir(root, func(path string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && path != root {
			name := d.Name()
			if name == "testdata" || strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_") {
				return filepath.SkipDir
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// tableRow is one row of a Markdown table: its cells and its line number.
type tableRow struct {
	cells []string
	line  int
}

// packageRows returns the rows of the table under docs/architecture.md's
// "## Packages", header and rule left out.
func packageRows(t *testing.T) []tableRow {
	t.Helper()
	var rows []tableRow
	in := false
	for i, line := range readDoc(t, "docs/architecture.md") {
		if strings.HasPrefix(line, "## ") {
			if in {
				break
			}
			in = line == "## Packages"
			continue
		}
		cells := tableCells(line)
		if !in || cells == nil || isRule(cells) || cells[0] == "package" {
			continue
		}
		rows = append(rows, tableRow{cells: cells, line: i + 1})
	}
	if len(rows) == 0 {
		t.Fatal(`docs/architecture.md: no package table under "## Packages"`)
	}
	return rows
}

// packageTable returns the first cell of each row of the package table,
// without its backticks.
func packageTable(t *testing.T) []string {
	t.Helper()
	var pkgs []string
	for _, r := range packageRows(t) {
		pkgs = append(pkgs, strings.Trim(r.cells[0], "`"))
	}
	return pkgs
}

// TestArchitecturePackages checks that the package table of
// docs/architecture.md names exactly the packages of `go list ./...`: a new
// package needs its row (what it holds, what of ours it imports), a removed
// one loses it.
func TestArchitecturePackages(t *testing.T) {
	compareSets(t, `docs/architecture.md, "## Packages" table`, modulePackages(t), packageTable(t),
		"go list ./... has packages the table lacks (add a row each)",
		"the table lists packages go list ./... does not have (remove their rows)")
}

// TestModuleRootFromHere pins moduleRoot: run from docs/, it finds the
// go.mod of the module above, not some other file.
func TestModuleRootFromHere(t *testing.T) {
	root := moduleRoot(t)
	data, err := os.ReadFile(filepath.Join(root, "go.mod"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(string(data), "module vsrsim\n") {
		t.Fatalf("%s/go.mod is not the vsrsim module's", root)
	}
	if _, err := os.Stat(filepath.Join(root, "docs", "architecture.md")); err != nil {
		t.Fatal(err)
	}
}
