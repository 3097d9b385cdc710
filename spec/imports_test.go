package spec

import (
	"go/parser"
	"go/token"
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestSpecImportsNothingOfOurs: the model imports the standard library only,
// nothing of this module (like the oracle, TestOracleImportsNothingOfOurs),
// so a slip in the replica or the harness cannot also slip into the rules
// that judge them.
func TestSpecImportsNothingOfOurs(t *testing.T) {
	entries, err := os.ReadDir(".")
	require.NoError(t, err)
	fset := token.NewFileSet()
	sources := 0
	for _, e := range entries {
		name := e.Name()
		if e.IsDir() || !strings.HasSuffix(name, ".go") || strings.HasSuffix(name, "_test.go") {
			continue
		}
		sources++
		f, err := parser.ParseFile(fset, name, nil, parser.ImportsOnly)
		require.NoError(t, err)
		for _, imp := range f.Imports {
			path, err := strconv.Unquote(imp.Path.Value)
			require.NoError(t, err)
			first, _, _ := strings.Cut(path, "/")
			assert.NotContains(t, first, ".", "%s imports %s: the model takes the standard library only", name, path)
			assert.NotEqual(t, "vsrsim", first, "%s imports %s: the model must not lean on the code it judges", name, path)
		}
	}
	assert.Positive(t, sources, "no source file read")
}
