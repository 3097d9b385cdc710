package sim_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The deterministic core reads no clock, draws no ambient randomness, does no
// I/O and starts no goroutine: everything that reaches a trace comes from the
// seed. This test parses the non-test sources of those packages and fails on
// any import or construct that could break that.

// forbiddenImports are the packages the deterministic core may not import.
var forbiddenImports = map[string]string{
	"time":      "wall clock",
	"math/rand": "ambient randomness (v1)",
	"os":        "I/O and environment",
	"net":       "network I/O",
	"sync":      "concurrency",
	"os/exec":   "processes",
}

// randV2Seeded are the names of math/rand/v2 that build or name an explicitly
// seeded source; every other top-level function draws from the global,
// randomly seeded source.
var randV2Seeded = map[string]bool{
	"New": true, "NewPCG": true, "NewChaCha8": true, "NewZipf": true,
	"PCG": true, "ChaCha8": true, "Rand": true, "Source": true, "Zipf": true,
}

// deterministicDirs are the package directories checked, relative to the
// module root. "sim" means the top-level directory only.
var deterministicDirs = []string{"sim", "sim/swarm", "sim/settings", "sim/ndjson", "prng", "queue", "sim/check", "replica", "packetsim", "disksim", "scenarios", "scenarios/vsrfile", "outcome", "marks", "spec"}

func moduleRoot(t *testing.T) string {
	t.Helper()
	_, file, _, ok := runtime.Caller(0)
	require.True(t, ok)
	root := filepath.Join(filepath.Dir(file), "..")
	_, err := os.Stat(filepath.Join(root, "go.mod"))
	require.NoError(t, err, "module root not found from %s", file)
	return root
}

// violations lists the nondeterminism in one parsed file, one line each.
func violations(fset *token.FileSet, f *ast.File) []string {
	var out []string
	timeName, randName := "", ""
	for _, imp := range f.Imports {
		path, err := strconv.Unquote(imp.Path.Value)
		if err != nil {
			continue
		}
		if why, bad := forbiddenImports[path]; bad {
			out = append(out, fset.Position(imp.Pos()).String()+": imports "+strconv.Quote(path)+" ("+why+")")
		}
		local := filepath.Base(path)
		if path == "math/rand/v2" {
			local = "rand"
		}
		if imp.Name != nil {
			local = imp.Name.Name
		}
		switch path {
		case "time":
			timeName = local
		case "math/rand/v2":
			randName = local
			if local == "." {
				out = append(out, fset.Position(imp.Pos()).String()+": dot-imports math/rand/v2")
			}
		}
	}
	ast.Inspect(f, func(n ast.Node) bool {
		switch x := n.(type) {
		case *ast.GoStmt:
			out = append(out, fset.Position(x.Pos()).String()+": go statement")
		case *ast.SelectorExpr:
			id, ok := x.X.(*ast.Ident)
			if !ok {
				break
			}
			if timeName != "" && id.Name == timeName && x.Sel.Name == "Now" {
				out = append(out, fset.Position(x.Pos()).String()+": calls time.Now")
			}
			if randName != "" && id.Name == randName && !randV2Seeded[x.Sel.Name] {
				out = append(out, fset.Position(x.Pos()).String()+": math/rand/v2."+x.Sel.Name+" draws from the global source")
			}
		case *ast.Ident:
			if timeName == "." && x.Name == "Now" {
				out = append(out, fset.Position(x.Pos()).String()+": calls time.Now (dot import)")
			}
		}
		return true
	})
	return out
}

func TestDeterministicPackagesImportNoAmbientState(t *testing.T) {
	root := moduleRoot(t)
	fset := token.NewFileSet()
	for _, dir := range deterministicDirs {
		t.Run(dir, func(t *testing.T) {
			entries, err := os.ReadDir(filepath.Join(root, dir))
			require.NoError(t, err)
			var files []string
			for _, e := range entries {
				name := e.Name()
				if e.IsDir() || !strings.HasSuffix(name, ".go") || strings.HasSuffix(name, "_test.go") {
					continue
				}
				files = append(files, name)
			}
			sort.Strings(files)
			require.NotEmpty(t, files, "no sources in %s", dir)
			for _, name := range files {
				path := filepath.Join(root, dir, name)
				f, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution)
				require.NoError(t, err)
				for _, v := range violations(fset, f) {
					t.Error(v)
				}
			}
		})
	}
}

// TestImportCheckerFires makes sure the checker above is not vacuous: a source
// with each forbidden construct is caught.
func TestImportCheckerFires(t *testing.T) {
	src := `package bad

import (
	clock "time"
	"math/rand"
	"os"
	"sync"
	"vsrsim/replica"
)

var mu sync.Mutex

func f() {
	go func() {}()
	_ = clock.Now()
	_ = rand.Int()
	_ = os.Args
	_ = replica.PipelineMax
}
`
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, "bad.go", src, parser.SkipObjectResolution)
	require.NoError(t, err)
	got := strings.Join(violations(fset, f), "\n")
	for _, want := range []string{`imports "time"`, `imports "math/rand"`, `imports "os"`, `imports "sync"`,
		"go statement", "calls time.Now"} {
		assert.Contains(t, got, want)
	}
	assert.NotContains(t, got, "vsrsim/replica")

	clean := "package good\n\nimport \"math/rand/v2\"\n\nfunc g() int { return rand.New(rand.NewPCG(1, 2)).IntN(3) }\n"
	f, err = parser.ParseFile(fset, "good.go", clean, parser.SkipObjectResolution)
	require.NoError(t, err)
	assert.Empty(t, violations(fset, f), "an explicitly seeded math/rand/v2 source is allowed")

	global := "package bad\n\nimport \"math/rand/v2\"\n\nfunc g() int { return rand.IntN(3) }\n"
	f, err = parser.ParseFile(fset, "global.go", global, parser.SkipObjectResolution)
	require.NoError(t, err)
	assert.Contains(t, strings.Join(violations(fset, f), "\n"), "math/rand/v2.IntN draws from the global source")
}
