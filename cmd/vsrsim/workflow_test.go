package main

import (
	"os"
	"path"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.yaml.in/yaml/v3"

	"vsrsim/prng"
)

// The parts of a GitHub Actions workflow the workflow test reads.
type ghWorkflow struct {
	Env  map[string]string `yaml:"env"`
	Jobs map[string]ghJob  `yaml:"jobs"`
}

type ghJob struct {
	Needs    string `yaml:"needs"`
	Strategy struct {
		Matrix struct {
			Shard []int `yaml:"shard"`
		} `yaml:"matrix"`
	} `yaml:"strategy"`
	Steps []ghStep `yaml:"steps"`
}

type ghStep struct {
	Uses string            `yaml:"uses"`
	Run  string            `yaml:"run"`
	With map[string]string `yaml:"with"`
}

// step is the job's one step that uses the action or runs the command.
func (j ghJob) step(t *testing.T, match func(ghStep) bool) ghStep {
	t.Helper()
	var found []ghStep
	for _, s := range j.Steps {
		if match(s) {
			found = append(found, s)
		}
	}
	require.Len(t, found, 1)
	return found[0]
}

func uses(action string) func(ghStep) bool {
	return func(s ghStep) bool { return strings.HasPrefix(s.Uses, action+"@") }
}

func runs(command string) func(ghStep) bool {
	return func(s ghStep) bool { return strings.Contains(s.Run, command) }
}

var (
	ghExpr   = regexp.MustCompile(`\$\{\{[^}]*\}\}`)
	shellVar = regexp.MustCompile(`\$\{?([A-Z_]+)\}?`)
)

// expandGH fills in the workflow's expressions from exprs and then its shell
// variables from env; an expression or variable the test does not know fails
// it, so a new one gets a value here before it reaches a command line.
func expandGH(t *testing.T, s string, exprs, env map[string]string) string {
	t.Helper()
	s = ghExpr.ReplaceAllStringFunc(s, func(e string) string {
		v, ok := exprs[strings.TrimSpace(e[3:len(e)-2])]
		assert.True(t, ok, "unknown expression %s", e)
		return v
	})
	return shellVar.ReplaceAllStringFunc(s, func(ref string) string {
		v, ok := env[shellVar.FindStringSubmatch(ref)[1]]
		assert.True(t, ok, "unknown variable %s", ref)
		return v
	})
}

// scriptWords splits an expanded run script into words with the replay
// command's splitter: continuations joined, and double quotes, which the
// scripts put only around text with no quote or $ left in it, read as single.
func scriptWords(t *testing.T, s string) []string {
	t.Helper()
	s = strings.ReplaceAll(s, "\\\n", " ")
	return shellWords(t, strings.NewReplacer("\n", " ", "\t", " ", `"`, "'").Replace(s))
}

// TestWorkflowShardsMerge follows .github/workflows/sweep.yml: each matrix
// shard's sweep command is one vsrsim accepts for shard I/SHARDS and writes
// the files its artifact uploads; the merge job's download pattern finds every
// shard's artifact, and its merge command, run on them as the download lays
// them out, writes the findings it uploads and the step summary.
func TestWorkflowShardsMerge(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("..", "..", ".github", "workflows", "sweep.yml"))
	require.NoError(t, err)
	var wf ghWorkflow
	require.NoError(t, yaml.Unmarshal(data, &wf))
	sweepJob, mergeJob := wf.Jobs["sweep"], wf.Jobs["merge"]
	shards := sweepJob.Strategy.Matrix.Shard
	require.NotEmpty(t, shards)
	assert.Equal(t, strconv.Itoa(len(shards)), wf.Env["SHARDS"], "SHARDS is the matrix size")
	assert.Equal(t, "sweep", mergeJob.Needs)

	sweepStep := sweepJob.step(t, runs("vsrsim sweep"))
	upload := sweepJob.step(t, uses("actions/upload-artifact"))
	download := mergeJob.step(t, uses("actions/download-artifact"))
	mergeStep := mergeJob.step(t, runs("vsrsim merge"))
	start, err := prng.ParseSeed(testCommit)
	require.NoError(t, err)
	t.Chdir(t.TempDir())

	for _, shard := range shards {
		exprs := map[string]string{
			"matrix.shard": strconv.Itoa(shard), "github.sha": testCommit, "env.SHARDS": wf.Env["SHARDS"],
			"github.event.inputs.count || '40000'": "40000",
		}
		words := scriptWords(t, expandGH(t, sweepStep.Run, exprs, wf.Env))
		require.Equal(t, "bin/vsrsim", words[0])
		out := runCancelled(append(words[1:], "-o", "json"))
		require.Equal(t, exitInterrupted, out.code, "%s: %s", strings.Join(words, " "), out.stderr)
		_, summary := failureLines(t, out.stdout)
		rng, ok := summary["range"].(map[string]any)
		require.True(t, ok)
		assert.Equal(t, []any{float64(start), float64(shard), float64(len(shards))},
			[]any{rng["first"], rng["shard"], rng["shards"]}, "shard I/SHARDS of a range from the commit")

		// download-artifact puts each artifact's files in PATH/NAME/.
		name := expandGH(t, upload.With["name"], exprs, wf.Env)
		matched, err := path.Match(download.With["pattern"], name)
		require.NoError(t, err)
		assert.True(t, matched, "the merge job downloads artifact %s", name)
		into := filepath.Join(download.With["path"], name)
		require.NoError(t, os.MkdirAll(into, 0o755))
		for _, file := range strings.Fields(expandGH(t, upload.With["path"], exprs, wf.Env)) {
			require.FileExists(t, file, "the sweep writes what its artifact uploads")
			require.NoError(t, os.Rename(file, filepath.Join(into, file)))
		}
	}

	words := scriptWords(t, expandGH(t, mergeStep.Run, nil, map[string]string{"GITHUB_STEP_SUMMARY": "step-summary.md"}))
	require.Equal(t, "bin/vsrsim", words[0])
	out := runCancelled(words[1:])
	require.Equal(t, 0, out.code, out.stderr)
	summary, err := os.ReadFile("step-summary.md")
	require.NoError(t, err)
	assert.Contains(t, string(summary), "No findings in "+strconv.Itoa(len(shards))+" files.")
	uploadMerged := mergeJob.step(t, uses("actions/upload-artifact"))
	assert.FileExists(t, uploadMerged.With["path"])
}
