package replica

import (
	"go/ast"
	"go/importer"
	"go/parser"
	"go/token"
	"go/types"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// edgesMax bounds the package's intra-package import picture (issue 36): the
// pairs of its non-test files where the first refers to a package-level name
// or a method declared in the second. The rooms, the journal, the timers, the
// outbox and the vocabulary live in packages of their own, so a file of the
// protocol meets them through their exported surface, not through each other.
const edgesMax = 150

// fileEdges type-checks the package's non-test sources and returns its
// intra-package edges (file pairs), without and with struct fields counted.
func fileEdges(t *testing.T) (edges, withFields map[[2]string]bool) {
	t.Helper()
	paths, err := filepath.Glob("*.go")
	require.NoError(t, err)
	fset := token.NewFileSet()
	var files []*ast.File
	for _, p := range paths {
		if strings.HasSuffix(p, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, p, nil, 0)
		require.NoError(t, err)
		files = append(files, f)
	}
	info := &types.Info{Uses: map[*ast.Ident]types.Object{}}
	conf := types.Config{Importer: importer.ForCompiler(fset, "source", nil)}
	pkg, err := conf.Check("vsrsim/replica", fset, files, info)
	require.NoError(t, err)
	edges, withFields = map[[2]string]bool{}, map[[2]string]bool{}
	for id, o := range info.Uses {
		if o.Pkg() != pkg || !o.Pos().IsValid() {
			continue
		}
		from, to := fset.Position(id.Pos()).Filename, fset.Position(o.Pos()).Filename
		if from == to {
			continue
		}
		pair := [2]string{filepath.Base(from), filepath.Base(to)}
		switch o := o.(type) {
		case *types.Var:
			if o.IsField() {
				withFields[pair] = true
			} else if o.Parent() == pkg.Scope() {
				edges[pair], withFields[pair] = true, true
			}
		case *types.Func:
			edges[pair], withFields[pair] = true, true // a function or a method
		default:
			if o.Parent() == pkg.Scope() {
				edges[pair], withFields[pair] = true, true
			}
		}
	}
	return edges, withFields
}

// TestIntraPackageEdges holds the picture to edgesMax.
func TestIntraPackageEdges(t *testing.T) {
	if testing.Short() {
		t.Skip("type-checks the package and its imports from source")
	}
	edges, withFields := fileEdges(t)
	t.Logf("intra-package edges: %d (with struct fields: %d)", len(edges), len(withFields))
	assert.NotEmpty(t, edges, "the measure sees the package")
	assert.LessOrEqual(t, len(edges), edgesMax)
	assert.True(t, edges[[2]string{"gate.go", "replica.go"}], "a handler file's use of Replica is an edge")
}

// fieldsMax bounds the fields Replica holds of its own (issue 36): the rest
// live in its rooms.
const fieldsMax = 25

// TestReplicaFields holds Replica to fieldsMax fields.
func TestReplicaFields(t *testing.T) {
	n := reflect.TypeOf(Replica{}).NumField()
	assert.Positive(t, n)
	assert.LessOrEqual(t, n, fieldsMax, "Replica holds %d fields; put new state in a room", n)
}
