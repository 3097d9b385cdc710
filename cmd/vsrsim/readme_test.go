package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

var (
	readmeComment = regexp.MustCompile(`\s+#.*$`)
	readmePrints  = regexp.MustCompile(`#\s*prints (\d+)`)
)

// readmeCommands returns the command lines of the README's sh blocks, in
// order, without their comments; want[i] is the number the line says it
// prints ("echo $?   # prints 3"), or -1.
func readmeCommands(t *testing.T, text string) (cmds []string, want []int) {
	t.Helper()
	inBlock := false
	for _, line := range strings.Split(text, "\n") {
		switch {
		case strings.HasPrefix(line, "```sh"):
			inBlock = true
			continue
		case strings.HasPrefix(line, "```"):
			inBlock = false
			continue
		}
		cmd := strings.TrimSpace(readmeComment.ReplaceAllString(line, ""))
		if !inBlock || cmd == "" || strings.HasPrefix(cmd, "#") || strings.HasPrefix(cmd, "make ") {
			continue // make build is what the test's own binary stands for
		}
		w := -1
		if m := readmePrints.FindStringSubmatch(line); m != nil {
			w, _ = strconv.Atoi(m[1])
		}
		cmds, want = append(cmds, cmd), append(want, w)
	}
	require.NotEmpty(t, cmds, "the README has no sh blocks")
	return cmds, want
}

// TestReadmeTour runs every README command, in order, as a new user would on
// a fresh clone after make build: each must exit 0, except a command followed
// by "echo $?   # prints N", which must exit N (and the echo print N).
func TestReadmeTour(t *testing.T) {
	if testing.Short() {
		t.Skip("runs every README command")
	}
	root, err := filepath.Abs("../..")
	require.NoError(t, err)
	text, err := os.ReadFile(filepath.Join(root, "README.md"))
	require.NoError(t, err)
	cmds, want := readmeCommands(t, string(text))

	dir := t.TempDir()
	require.NoError(t, os.MkdirAll(filepath.Join(dir, "bin"), 0o755))
	require.NoError(t, os.Symlink(binary, filepath.Join(dir, "bin", "vsrsim")))
	for _, sub := range []string{"scenarios", "seeds"} {
		require.NoError(t, os.Symlink(filepath.Join(root, sub), filepath.Join(dir, sub)))
	}
	if _, err := exec.LookPath("jq"); err != nil {
		t.Log("no jq on PATH: the jq line runs without its filter")
	}
	// One shell runs the whole tour, so "echo $?" sees the command before it;
	// each line's status and output are kept apart for the checks.
	var script strings.Builder
	for i, c := range cmds {
		if _, err := exec.LookPath("jq"); err != nil && strings.Contains(c, "| jq") {
			c = c[:strings.Index(c, "| jq")]
		}
		fmt.Fprintf(&script, "{ %s\n} >out.%d 2>err.%d\nrc=$?; echo $rc >rc.%d; (exit $rc)\n", c, i, i, i)
	}
	sh := exec.Command("bash", "-c", script.String())
	sh.Dir = dir
	out, err := sh.CombinedOutput()
	require.NoError(t, err, "%s", out)

	read := func(name string, i int) string {
		b, err := os.ReadFile(filepath.Join(dir, fmt.Sprintf("%s.%d", name, i)))
		require.NoError(t, err)
		return strings.TrimSpace(string(b))
	}
	for i, c := range cmds {
		wantRC := 0
		if i+1 < len(cmds) && want[i+1] >= 0 {
			wantRC = want[i+1]
		}
		assert.Equal(t, strconv.Itoa(wantRC), read("rc", i), "%s\nstderr: %s", c, read("err", i))
		if want[i] >= 0 {
			assert.Equal(t, strconv.Itoa(want[i]), read("out", i), c)
		}
	}
	// The tour's replay must have found something to replay.
	assert.FileExists(t, filepath.Join(dir, "failures.jsonl"))
}
