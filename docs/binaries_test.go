package docs

import (
	"bytes"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// binaryAllowed names the tracked files that are binary on purpose. The
// profile is an input of the build (`go build` reads default.pgo beside the
// main package; `make pgo` regathers it), not an output, so it belongs in
// the tree.
var binaryAllowed = map[string]string{
	"cmd/vsrsim/default.pgo": "the PGO profile the binary is built with (make pgo)",
}

// binarySniffBytes is how much of a file is read to call it binary: git's
// own test for a binary diff looks at the first 8 KiB for a NUL byte.
const binarySniffBytes = 8 << 10

// looksBinary reports whether head, a file's first bytes, is an executable
// or holds a NUL byte (no text file of ours has one).
func looksBinary(head []byte) bool {
	return bytes.HasPrefix(head, []byte("\x7fELF")) || bytes.IndexByte(head, 0) >= 0
}

// trackedFiles lists the files git tracks below root, or skips the test
// where there is no git or no repository (a source tarball, the container
// build's copy): there is nothing tracked to judge.
func trackedFiles(t *testing.T, root string) []string {
	t.Helper()
	gitPath, err := exec.LookPath("git")
	if err != nil {
		t.Skip("no git on PATH")
	}
	cmd := exec.Command(gitPath, "ls-files", "-z")
	cmd.Dir = root
	out, err := cmd.Output()
	if err != nil {
		t.Skipf("git ls-files in %s: %v (not a checkout)", root, err)
	}
	return strings.Split(strings.TrimRight(string(out), "\x00"), "\x00")
}

// TestNoTrackedBinaries checks that git tracks no binary: a built tool
// committed by mistake (a 5.6 MB fuzzeval once was, and its seven versions
// made most of the pack) would grow every clone for good. Build outputs go
// to bin/ or the names .gitignore lists.
func TestNoTrackedBinaries(t *testing.T) {
	root := moduleRoot(t)
	// A new file is a changed input to go test's cache only if the test read
	// its directory (git's own reading does not count).
	readTree(t, root)
	var binaries []string
	for _, rel := range trackedFiles(t, root) {
		if _, ok := binaryAllowed[rel]; ok {
			continue
		}
		f, err := os.Open(filepath.Join(root, filepath.FromSlash(rel)))
		if errors.Is(err, os.ErrNotExist) {
			// Deleted in the work tree and not yet committed: nothing to read.
			continue
		}
		require.NoError(t, err)
		head := make([]byte, binarySniffBytes)
		n, err := io.ReadFull(f, head)
		require.NoError(t, f.Close())
		if !errors.Is(err, io.ErrUnexpectedEOF) && !errors.Is(err, io.EOF) {
			require.NoError(t, err, rel)
		}
		if looksBinary(head[:n]) {
			binaries = append(binaries, rel)
		}
	}
	require.Empty(t, binaries, "git tracks binary files: `git rm --cached` them and name them in .gitignore (or add a reason to binaryAllowed)")
}

// TestLooksBinary pins the sniff: an ELF header or a NUL is binary, text
// (UTF-8 included) is not.
func TestLooksBinary(t *testing.T) {
	require.True(t, looksBinary([]byte("\x7fELF\x02\x01\x01")))
	require.True(t, looksBinary([]byte("text\x00more")))
	require.False(t, looksBinary([]byte("package docs\n// naïve — fine\n")))
	require.False(t, looksBinary(nil))
}

// TestBinaryAllowedIsTracked keeps the allowlist honest: an entry for a file
// the tree no longer tracks is removed rather than left to excuse a new one
// at the same path.
func TestBinaryAllowedIsTracked(t *testing.T) {
	tracked := map[string]bool{}
	for _, rel := range trackedFiles(t, moduleRoot(t)) {
		tracked[rel] = true
	}
	for rel, why := range binaryAllowed {
		require.True(t, tracked[rel], "binaryAllowed names %s (%s), which git does not track", rel, why)
	}
}
