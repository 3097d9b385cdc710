package replica

import (
	"go/ast"
	"go/parser"
	"go/token"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestProtocolReadInOnePlace: no source but protocol.go reads a protocol
// option (a field of Protocol); the rooms carry what the options turned off.
func TestProtocolReadInOnePlace(t *testing.T) {
	fset := token.NewFileSet()
	files := map[string]*ast.File{}
	options := map[string]bool{}
	for _, p := range sourcePaths(t) {
		if strings.HasSuffix(p, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, p, nil, 0)
		require.NoError(t, err)
		files[p] = f
		ast.Inspect(f, func(n ast.Node) bool {
			if ts, ok := n.(*ast.TypeSpec); ok && ts.Name.Name == "Protocol" {
				for _, fl := range ts.Type.(*ast.StructType).Fields.List {
					for _, name := range fl.Names {
						options[name.Name] = true
					}
				}
			}
			return true
		})
	}
	require.Greater(t, len(options), 5, "the Protocol type's options are found")
	readers := map[string]bool{}
	for p, f := range files {
		ast.Inspect(f, func(n ast.Node) bool {
			if s, ok := n.(*ast.SelectorExpr); ok && options[s.Sel.Name] {
				readers[p] = true
			}
			return true
		})
	}
	assert.Equal(t, map[string]bool{"protocol.go": true}, readers)
}

// TestProtocolSetsTheRooms: each option turns off its mechanism in its room,
// and the zero Protocol runs every one.
func TestProtocolSetsTheRooms(t *testing.T) {
	robust, err := New(DefaultOptions(0, 3), zeroJitter{})
	require.NoError(t, err)
	assert.True(t, robust.abd.On() && robust.abd.WatchesForwarded() && robust.abd.PushesStartView() && !robust.abd.ByHearing())
	assert.True(t, robust.peers.Relays() && robust.peers.ResetsBackoff())
	assert.True(t, robust.vc.quorumWindow && robust.fwd.BackupReplies && !robust.log.sourceInstall && !robust.log.gapCheckOnly)
	assert.True(t, robust.timers.Repair.Backoff)

	o := DefaultOptions(0, 3)
	o.Protocol = Protocol{AbdicationOff: true, AbdicateByHearing: true, PushStartViewOff: true, RelayStartViewOff: true,
		BackoffResetOff: true, SVCQuorumOff: true, BackupRepliesOff: true, SourceTransfer: true, BackoffOff: true, PrepareRepairOff: true}
	src, err := New(o, zeroJitter{})
	require.NoError(t, err)
	assert.False(t, src.abd.On() || src.abd.WatchesForwarded() || src.abd.PushesStartView())
	assert.True(t, src.abd.ByHearing())
	assert.False(t, src.peers.Relays() || src.peers.ResetsBackoff())
	assert.False(t, src.vc.quorumWindow || src.fwd.BackupReplies)
	assert.True(t, src.log.sourceInstall && src.log.gapCheckOnly)
	assert.False(t, src.timers.Repair.Backoff)
}
