package replica

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// The replica's shape, checked on its non-test sources: dense assertions (one
// per assertionLinesMax lines of function bodies, TigerBeetle's habit: an
// assertion turns a bug into a crash the swarm reports) and small functions
// (cyclomatic complexity at most complexityMax, counted as gocyclo counts).
// Lines are those of function bodies that hold code, not blank or comment
// lines: declarations and tables execute nothing to assert.

const (
	assertionLinesMax = 20
	complexityMax     = 15
	// fileLinesMax bounds every non-test source: a file is read whole.
	fileLinesMax = 450
)

type sourceShape struct {
	functions  int
	bodyLines  int
	assertions int
	lines      int      // the file's lines (a package's: their sum)
	complex    []string // functions over complexityMax
}

// sourcePaths lists the package's sources and its sub-packages' (the rooms,
// the journal, the timers, the outbox), tests among them.
func sourcePaths(t *testing.T) []string {
	t.Helper()
	paths, err := filepath.Glob("*.go")
	require.NoError(t, err)
	sub, err := filepath.Glob("*/*.go")
	require.NoError(t, err)
	require.NotEmpty(t, sub, "the sub-packages are read too")
	return append(paths, sub...)
}

// measureSources measures every non-test source of the package and of its
// sub-packages (the rooms, the journal, the timers, the outbox): the whole,
// and each file by name.
func measureSources(t *testing.T) (sourceShape, map[string]sourceShape) {
	t.Helper()
	paths := sourcePaths(t)
	var s sourceShape
	files := map[string]sourceShape{}
	fset := token.NewFileSet()
	for _, p := range paths {
		if strings.HasSuffix(p, "_test.go") {
			continue
		}
		src, err := os.ReadFile(p)
		require.NoError(t, err)
		f, err := measureFile(fset, p, string(src))
		require.NoError(t, err)
		files[p] = f
		s.functions += f.functions
		s.bodyLines += f.bodyLines
		s.assertions += f.assertions
		s.lines += f.lines
		s.complex = append(s.complex, f.complex...)
	}
	return s, files
}

// measureFile measures one source: its functions, the code lines of their
// bodies, the assertions in them, its lines, and its functions over
// complexityMax.
func measureFile(fset *token.FileSet, name, src string) (sourceShape, error) {
	var s sourceShape
	f, err := parser.ParseFile(fset, name, src, parser.SkipObjectResolution)
	if err != nil {
		return s, err
	}
	s.lines = strings.Count(src, "\n")
	code := codeLines(src)
	for _, d := range f.Decls {
		fn, ok := d.(*ast.FuncDecl)
		if !ok || fn.Body == nil {
			continue
		}
		s.functions++
		from, to := fset.Position(fn.Body.Lbrace).Line, fset.Position(fn.Body.Rbrace).Line
		for l := from + 1; l < to; l++ {
			if code[l] {
				s.bodyLines++
			}
		}
		s.assertions += countAssertions(fn.Body)
		if c := complexity(fn); c > complexityMax {
			s.complex = append(s.complex, fset.Position(fn.Pos()).String()+" "+fn.Name.Name)
		}
	}
	return s, nil
}

// assertionsShort is how many more assertions s needs for one per
// assertionLinesMax body lines, counting the line each takes.
func (s sourceShape) assertionsShort() int {
	over := s.bodyLines - s.assertions*assertionLinesMax
	if over <= 0 {
		return 0
	}
	return (over + assertionLinesMax - 2) / (assertionLinesMax - 1)
}

// fileFindings names, in file order, each file under one assertion per
// assertionLinesMax body lines and each over fileLinesMax lines.
func fileFindings(files map[string]sourceShape) []string {
	names := make([]string, 0, len(files))
	for name := range files {
		names = append(names, name)
	}
	slices.Sort(names)
	var found []string
	for _, name := range names {
		f := files[name]
		if short := f.assertionsShort(); short > 0 {
			found = append(found, fmt.Sprintf("%s: %d body lines, %d assertions (%d more needed)",
				name, f.bodyLines, f.assertions, short))
		}
		if f.lines > fileLinesMax {
			found = append(found, fmt.Sprintf("%s: %d lines, over %d", name, f.lines, fileLinesMax))
		}
	}
	return found
}

// codeLines marks the 1-based lines that hold code.
func codeLines(src string) []bool {
	lines := strings.Split(src, "\n")
	code := make([]bool, len(lines)+2)
	for i, l := range lines {
		l = strings.TrimSpace(l)
		code[i+1] = l != "" && !strings.HasPrefix(l, "//")
	}
	return code
}

func countAssertions(body *ast.BlockStmt) int {
	n := 0
	ast.Inspect(body, func(x ast.Node) bool {
		if c, ok := x.(*ast.CallExpr); ok {
			if sel, ok := c.Fun.(*ast.SelectorExpr); ok && sel.Sel.Name == "Assert" {
				if id, ok := sel.X.(*ast.Ident); ok && id.Name == "vsr" {
					n++
				}
			}
		}
		return true
	})
	return n
}

// complexity is gocyclo's count: one, plus one per if, for, range, non-default
// case or comm clause, && and ||.
func complexity(fn *ast.FuncDecl) int {
	c := 1
	ast.Inspect(fn.Body, func(x ast.Node) bool {
		switch x := x.(type) {
		case *ast.IfStmt, *ast.ForStmt, *ast.RangeStmt:
			c++
		case *ast.CaseClause:
			if x.List != nil {
				c++
			}
		case *ast.CommClause:
			if x.Comm != nil {
				c++
			}
		case *ast.BinaryExpr:
			if x.Op == token.LAND || x.Op == token.LOR {
				c++
			}
		}
		return true
	})
	return c
}

func TestReplicaShape(t *testing.T) {
	s, _ := measureSources(t)
	t.Logf("%d functions, %d body lines, %d assertions: one per %.1f lines",
		s.functions, s.bodyLines, s.assertions, float64(s.bodyLines)/float64(s.assertions))
	require.GreaterOrEqual(t, s.assertions*assertionLinesMax, s.bodyLines,
		"fewer than one assertion per %d lines of function bodies", assertionLinesMax)
	require.Empty(t, s.complex, "functions over cyclomatic complexity %d", complexityMax)
}

// TestShapeCountsFire keeps the counters honest on a known source.
func TestShapeCountsFire(t *testing.T) {
	src := "package p\n\nfunc f(a, b bool) {\n\t// why\n\n\tif a && b {\n\t\tvsr.Assert(0, a, \"x\", \"\")\n\t}\n\tswitch {\n\tcase a:\n\tdefault:\n\t}\n}\n"
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, "p.go", src, 0)
	require.NoError(t, err)
	fn := f.Decls[0].(*ast.FuncDecl)
	require.Equal(t, 4, complexity(fn), "1 + if + && + one case")
	require.Equal(t, 1, countAssertions(fn.Body))
	code := codeLines(src)
	n := 0
	for l := fset.Position(fn.Body.Lbrace).Line + 1; l < fset.Position(fn.Body.Rbrace).Line; l++ {
		if code[l] {
			n++
		}
	}
	require.Equal(t, 7, n, "comment and blank lines do not count")
}

// TestReplicaShapePerFile holds every non-test source, not only the package,
// to one assertion per assertionLinesMax body lines, and to at most
// fileLinesMax lines.
func TestReplicaShapePerFile(t *testing.T) {
	_, files := measureSources(t)
	require.NotEmpty(t, files)
	if found := fileFindings(files); len(found) > 0 {
		t.Fatalf("files under one assertion per %d body lines or over %d lines:\n%s",
			assertionLinesMax, fileLinesMax, strings.Join(found, "\n"))
	}
}

// TestShapePerFileCountsFire keeps the per-file counters honest on a known
// source, and the findings on known shapes.
func TestShapePerFileCountsFire(t *testing.T) {
	src := "package p\n\n// f is known.\nfunc f(a bool) {\n\tvsr.Assert(0, a, \"x\", \"\")\n\n\t// why\n\tif a {\n\t\tvsr.Assert(0, !a, \"y\", \"\")\n\t}\n}\n\nvar t = []int{\n\t1,\n}\n\nfunc g() {}\n"
	s, err := measureFile(token.NewFileSet(), "p.go", src)
	require.NoError(t, err)
	require.Equal(t, 2, s.functions)
	require.Equal(t, 4, s.bodyLines, "comment and blank lines, tables and an empty body do not count")
	require.Equal(t, 2, s.assertions)
	require.Equal(t, 17, s.lines)
	require.Empty(t, s.complex)

	for _, c := range []struct{ body, assertions, short int }{
		{0, 0, 0}, {1, 0, 1}, {20, 1, 0}, {21, 1, 1}, {21, 0, 2}, {262, 1, 13}, {163, 5, 4}, {256, 9, 4},
	} {
		got := sourceShape{bodyLines: c.body, assertions: c.assertions}.assertionsShort()
		require.Equal(t, c.short, got, "%d body lines, %d assertions", c.body, c.assertions)
		// The assertions it asks for, each a body line, bring the file to density.
		require.GreaterOrEqual(t, (c.assertions+got)*assertionLinesMax, c.body+got)
		if got > 0 {
			require.Less(t, (c.assertions+got-1)*assertionLinesMax, c.body+got-1, "no fewer would do")
		}
	}
	found := fileFindings(map[string]sourceShape{
		"dense.go":  {bodyLines: 40, assertions: 2, lines: fileLinesMax},
		"sparse.go": {bodyLines: 41, assertions: 2, lines: 80},
		"long.go":   {bodyLines: 20, assertions: 1, lines: fileLinesMax + 1},
	})
	require.Equal(t, []string{
		"long.go: 451 lines, over 450",
		"sparse.go: 41 body lines, 2 assertions (1 more needed)",
	}, found)
}
