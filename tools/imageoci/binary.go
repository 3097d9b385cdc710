package main

import (
	"fmt"
	"os"
	"os/exec"
	"strings"
)

// buildBinary builds cmd/vsrsim of the module at root into out, static and
// with nothing in it that varies between builds of one commit: no cgo (so no
// libc to link and nothing of the host's), -trimpath (no local paths),
// -buildvcs=false (no VCS stamp, which a dirty tree would change), and an
// empty build id. The profile cmd/vsrsim/default.pgo is used as `make build`
// uses it.
func buildBinary(root, out, arch string) error {
	cmd := exec.Command("go", "build", "-trimpath", "-buildvcs=false", "-ldflags=-s -w -buildid=", "-o", out, "./cmd/vsrsim")
	cmd.Dir = root
	// GOFLAGS is cleared: a -race or -cover there would change the binary.
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0", "GOOS=linux", "GOARCH="+arch, "GOFLAGS=")
	if msg, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("go build: %v: %s", err, strings.TrimSpace(string(msg)))
	}
	return nil
}

// goVersion is the version of the go command that builds the binary, which
// the image's digest depends on: a label names it.
func goVersion(root string) (string, error) {
	return output(root, "go", "env", "GOVERSION")
}

// output runs a command in dir and returns its stdout, trimmed.
func output(dir, name string, args ...string) (string, error) {
	cmd := exec.Command(name, args...)
	cmd.Dir = dir
	out, err := cmd.Output()
	if err != nil {
		return "", fmt.Errorf("%s %s: %v", name, strings.Join(args, " "), err)
	}
	return strings.TrimSpace(string(out)), nil
}

// gitCommit is the commit checked out at root, with "-dirty" after it when
// tracked files differ from it: the binary is built from the work tree, and
// the label must not name a commit the image does not hold.
func gitCommit(root string) (string, error) {
	commit, err := output(root, "git", "rev-parse", "HEAD")
	if err != nil {
		return "", fmt.Errorf("%v (give -commit)", err)
	}
	diff := exec.Command("git", "diff", "--quiet", "HEAD", "--")
	diff.Dir = root
	if diff.Run() != nil {
		commit += "-dirty"
	}
	return commit, nil
}
