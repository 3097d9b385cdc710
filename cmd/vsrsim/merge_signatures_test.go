package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestMergeGroupsBySignature: the findings of the shards of one bug
// switch's sweep, a retried shard among them, are a few signatures whose
// runs add up to the findings kept, each naming the smallest seed of its
// runs and the command that replays it, on stderr, in --signatures FILE and
// in the Markdown summary.
func TestMergeGroupsBySignature(t *testing.T) {
	dir := t.TempDir()
	files := shardFiles(t, dir)
	sigPath := filepath.Join(dir, "signatures.jsonl")
	mdPath := filepath.Join(dir, "summary.md")
	out := vsrsim(t, append([]string{"merge", "--out", filepath.Join(dir, "findings.jsonl"), "--signatures", sigPath, "--summary-md", mdPath}, files...)...)
	require.Equal(t, 0, out.code, out.stderr)

	var groups []signatureJSON
	for _, line := range strings.Split(strings.TrimSuffix(readText(t, sigPath), "\n"), "\n") {
		var g signatureJSON
		require.NoError(t, json.Unmarshal([]byte(line), &g))
		groups = append(groups, g)
	}
	require.NotEmpty(t, groups)
	assert.LessOrEqual(t, len(groups), 2, "six seeds of one defect are one or two signatures")
	runs, smallest := 0, uint64(0)
	for i, g := range groups {
		runs += g.Runs
		assert.Equal(t, "safety", g.Verdict)
		assert.Len(t, g.ID, 12)
		assert.Contains(t, g.Signature, "safety "+g.Invariant+": ")
		assert.NotRegexp(t, `[0-9]`, g.Signature, "no number left in the shape")
		assert.Contains(t, g.Replay, "vsrsim run --seed ")
		assert.Regexp(t, `│ `+g.ID+` +│ `+jsonNumber(float64(g.Runs))+` +│ `+jsonNumber(float64(g.Seed))+` +│`, out.stderr)
		if i == 0 || g.Seed < smallest {
			smallest = g.Seed
		}
	}
	assert.Equal(t, 6, runs, "every finding kept, in exactly one group")
	assert.Equal(t, uint64(1), smallest)
	assert.Regexp(t, `│ signatures +│ `+jsonNumber(float64(len(groups)))+` +│`, out.stderr)

	md, err := os.ReadFile(mdPath)
	require.NoError(t, err)
	assert.Contains(t, string(md), "signatures** (findings of one shape")
	assert.Contains(t, string(md), "`"+groups[0].ID+"`")
}
