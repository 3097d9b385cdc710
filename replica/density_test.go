package replica

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
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
)

type sourceShape struct {
	functions  int
	bodyLines  int
	assertions int
	complex    []string // functions over complexityMax
}

func measureSources(t *testing.T) sourceShape {
	t.Helper()
	paths, err := filepath.Glob("*.go")
	require.NoError(t, err)
	var s sourceShape
	fset := token.NewFileSet()
	for _, p := range paths {
		if strings.HasSuffix(p, "_test.go") {
			continue
		}
		src, err := os.ReadFile(p)
		require.NoError(t, err)
		f, err := parser.ParseFile(fset, p, src, parser.SkipObjectResolution)
		require.NoError(t, err)
		code := codeLines(string(src))
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
	}
	return s
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
			if id, ok := c.Fun.(*ast.Ident); ok && id.Name == "invariant" {
				n++
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
	s := measureSources(t)
	t.Logf("%d functions, %d body lines, %d assertions: one per %.1f lines",
		s.functions, s.bodyLines, s.assertions, float64(s.bodyLines)/float64(s.assertions))
	require.GreaterOrEqual(t, s.assertions*assertionLinesMax, s.bodyLines,
		"fewer than one assertion per %d lines of function bodies", assertionLinesMax)
	require.Empty(t, s.complex, "functions over cyclomatic complexity %d", complexityMax)
}

// TestShapeCountsFire keeps the counters honest on a known source.
func TestShapeCountsFire(t *testing.T) {
	src := "package p\n\nfunc f(a, b bool) {\n\t// why\n\n\tif a && b {\n\t\tinvariant(0, a, \"x\", \"\")\n\t}\n\tswitch {\n\tcase a:\n\tdefault:\n\t}\n}\n"
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
