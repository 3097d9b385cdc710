package main

import (
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestMakeTestFuzzFailsOnLiveness: CI's short search (make test-fuzz) fails
// on a liveness finding as on any other (issue 35 point 8): with a bug switch
// that stalls the cluster, the target exits non-zero and keeps the finding.
// An open finding is a file of fuzz/testdata with its own test, never a pass
// of this target.
func TestMakeTestFuzzFailsOnLiveness(t *testing.T) {
	if testing.Short() {
		t.Skip("runs make and a search")
	}
	if _, err := exec.LookPath("make"); err != nil {
		t.Skip("no make")
	}
	dir := t.TempDir()
	cmd := exec.Command("make", "-s", "-C", filepath.Join("..", ".."), "test-fuzz",
		"BIN="+filepath.Join(dir, "vsrsim"), "FUZZ_DIR="+dir, "FUZZ_BUDGET=64", "FUZZ_SEED=1",
		"FUZZ_FLAGS=--bug narrow-repair-under-commit-lag --jobs 2")
	out, err := cmd.CombinedOutput()
	var exit *exec.ExitError
	require.ErrorAs(t, err, &exit, "make test-fuzz passed a search with a liveness finding:\n%s", out)
	assert.Contains(t, string(out), "FAIL run ")
	assert.Contains(t, string(out), " liveness ")
	assert.FileExists(t, filepath.Join(dir, "failures.jsonl"))
	assert.False(t, strings.Contains(string(out), "not failing"), "the old pass for liveness findings is gone")
}
