package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestReadHeader(t *testing.T) {
	tests := []struct {
		name    string
		text    string
		want    mutant
		wantErr bool
	}{
		{"full", "name: a\narea: repair\nexpect: safety\ndefect: d\nnote: n\n\ndiff --git a/x b/x\n",
			mutant{name: "a", area: "repair", expect: "safety", defect: "d", note: "n"}, false},
		{"no name", "expect: safety\n\ndiff\n", mutant{}, true},
		{"not key value", "name a\n\n", mutant{}, true},
		{"unknown key", "name: a\nexpect: safety\ncolour: red\n\n", mutant{}, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			f := filepath.Join(t.TempDir(), "m.patch")
			require.NoError(t, os.WriteFile(f, []byte(tc.text), 0o644))
			got, err := readHeader(f)
			if tc.wantErr {
				assert.Error(t, err)
				return
			}
			require.NoError(t, err)
			got.file = ""
			assert.Equal(t, tc.want, got)
		})
	}
}

func TestJudge(t *testing.T) {
	tests := []struct {
		r    row
		want string
	}{
		{row{stale: "git apply: failed"}, "**patch no longer applies**"},
		{row{mutant: mutant{expect: "safety"}}, "**missed**"},
		{row{mutant: mutant{expect: "safety"}, found: true, verdict: "safety"}, "caught"},
		{row{mutant: mutant{expect: "safety"}, found: true, verdict: "liveness"}, "caught as liveness, expected safety"},
		{row{mutant: mutant{expect: "safety"}, found: true, verdict: "crash"}, "caught (a replica assertion)"},
		{row{mutant: mutant{expect: "liveness"}, found: true, verdict: "crash"}, "caught as crash, expected liveness"},
		{row{mutant: mutant{expect: "equivalent"}}, "equivalent (proof in the note)"},
		{row{mutant: mutant{expect: "equivalent"}, found: true, verdict: "safety"}, "**failed, but its note proves it equivalent**"},
	}
	for _, tc := range tests {
		assert.Equal(t, tc.want, judge(tc.r))
	}
}

// The suite's own patches all parse and name what they expect.
func TestSuitePatchesParse(t *testing.T) {
	ms, err := load(".")
	require.NoError(t, err)
	assert.GreaterOrEqual(t, len(ms), 12)
	for _, m := range ms {
		assert.Contains(t, []string{"safety", "liveness", "crash", "equivalent"}, m.expect, m.name)
		assert.NotEmpty(t, m.defect, m.name)
		if m.expect == "equivalent" {
			assert.NotEmpty(t, m.note, "%s: an equivalent mutant's note holds the proof", m.name)
		}
	}
}

// Every patch still applies to the code as it is: a change to replica/ that
// moves a patch's context leaves the defect unplanted, and only a full
// `make mutants` would say so (D48 moved repairVerdict under
// repair-vouch-uses-own-commit).
func TestSuitePatchesApply(t *testing.T) {
	git, err := exec.LookPath("git")
	if err != nil {
		t.Skip("no git on PATH")
	}
	ms, err := load(".")
	require.NoError(t, err)
	root, err := filepath.Abs(filepath.Join("..", ".."))
	require.NoError(t, err)
	for _, m := range ms {
		file, err := filepath.Abs(m.file)
		require.NoError(t, err)
		cmd := exec.Command(git, "apply", "--check", file)
		cmd.Dir = root
		out, err := cmd.CombinedOutput()
		assert.NoError(t, err, "%s no longer applies: %s", m.name, out)
	}
}
