package seeds_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"vsrsim/seeds"
	"vsrsim/sim"
)

const hash = "b10699e946c978ec"

func TestParseText(t *testing.T) {
	cases, err := seeds.Parse("c.txt", strings.NewReader(`# comment

hollow-op 7 narrow-repair-under-commit-lag liveness b10699e946c978ec
- 0x10 a,b pass b10699e946c978ec journal-slots=64 extra-delay=2:*=600 # why
`))
	require.NoError(t, err)
	require.Len(t, cases, 2)
	assert.Equal(t, "c.txt:3", cases[0].Where())
	assert.Equal(t, []string{"--seed", "7", "--scenario", "hollow-op", "--bug", "narrow-repair-under-commit-lag"}, cases[0].Args)
	assert.Equal(t, sim.VerdictLiveness, cases[0].Verdict)
	assert.Equal(t, uint64(7), cases[0].Seed)
	assert.Equal(t, []string{"--seed", "16", "--bug", "a", "--bug", "b", "--journal-slots", "64", "--extra-delay", "2:*=600"}, cases[1].Args)
	assert.Equal(t, 4, cases[1].Line)
	assert.True(t, cases[0].PinsHash())
}

// TestNoHash: "-" pins the verdict alone; a pinned hash drifts on any other.
func TestNoHash(t *testing.T) {
	cases, err := seeds.Parse("c.txt", strings.NewReader("hollow-op 7 - pass -\nhollow-op 8 - pass b10699e946c978ec\n"))
	require.NoError(t, err)
	require.Len(t, cases, 2)
	free, pinned := cases[0], cases[1]
	assert.False(t, free.PinsHash())
	assert.False(t, free.Drifts(sim.VerdictPass, "0123456789abcdef"), "any hash: no hash pinned")
	assert.True(t, free.Drifts(sim.VerdictLiveness, "0123456789abcdef"), "the verdict is still pinned")
	assert.True(t, pinned.PinsHash())
	assert.True(t, pinned.Drifts(sim.VerdictPass, "0123456789abcdef"))
	assert.False(t, pinned.Drifts(sim.VerdictPass, "b10699e946c978ec"))
}

func TestParseJSON(t *testing.T) {
	rec := `{"seed":42,"scenario":"","verdict":"safety","trace_hash":"` + hash +
		`","replay":"vsrsim run --seed 42 --extra-delay '*:0=40' --journal-slots 64"}`
	cases, err := seeds.Parse("f.jsonl", strings.NewReader(rec+"\n"))
	require.NoError(t, err)
	require.Len(t, cases, 1)
	assert.True(t, cases[0].JSON)
	assert.Equal(t, uint64(42), cases[0].Seed)
	assert.Equal(t, []string{"--seed", "42", "--extra-delay", "*:0=40", "--journal-slots", "64"}, cases[0].Args)
	assert.Equal(t, sim.VerdictSafety, cases[0].Verdict)
}

// TestParseErrors: every malformed line is one error naming file and line.
func TestParseErrors(t *testing.T) {
	for _, tc := range []struct {
		name, text, want string
	}{
		{"empty", "", "f: no cases"},
		{"only comments", "# a\n\n# b\n", "f: no cases"},
		{"too few fields", "hollow-op 1 - pass\n", "f:1: want SCENARIO"},
		{"bad seed", "# x\n- zz - pass " + hash + "\n", "f:2: seed"},
		{"bad verdict", "- 1 - maybe " + hash + "\n", "f:1: unknown verdict"},
		{"bad hash", "- 1 - pass 12ab\n", "f:1: trace hash"},
		{"non-hex hash", "- 1 - pass zzzzzzzzzzzzzzzz\n", "f:1: trace hash"},
		{"bad override", "- 1 - pass " + hash + " colour=red\n", "f:1: override"},
		{"empty bug", "- 1 a,,b pass " + hash + "\n", "f:1: empty bug"},
		{"truncated json", `{"seed":1,"verdict":"pass"` + "\n", "f:1: not a run record"},
		{"json without replay", `{"seed":1,"verdict":"pass","trace_hash":"` + hash + `"}` + "\n", "f:1: not a run record"},
		{"json not a run", `{"seed":1,"verdict":"pass","trace_hash":"` + hash + `","replay":"ls -l"}` + "\n", "f:1: replay"},
		{"json bad quote", `{"seed":1,"verdict":"pass","trace_hash":"` + hash + `","replay":"vsrsim run --seed '1"}` + "\n", "unterminated quote"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := seeds.Parse("f", strings.NewReader(tc.text))
			require.Error(t, err)
			assert.Contains(t, err.Error(), tc.want)
			assert.NotContains(t, err.Error(), "\n")
		})
	}
}

func TestSplitShell(t *testing.T) {
	words, err := seeds.SplitShell(`vsrsim run --seed 1 --extra-delay '*:0=40' 'it'\''s' a\ b`)
	require.NoError(t, err)
	assert.Equal(t, []string{"vsrsim", "run", "--seed", "1", "--extra-delay", "*:0=40", "it's", "a b"}, words)
}

func TestFormatRoundTrips(t *testing.T) {
	line := seeds.Format("", 212, nil, sim.VerdictPass, hash, "journal-slots=64")
	assert.Equal(t, "- 212 - pass "+hash+" journal-slots=64", line)
	cases, err := seeds.Parse("f", strings.NewReader(line))
	require.NoError(t, err)
	assert.Equal(t, []string{"--seed", "212", "--journal-slots", "64"}, cases[0].Args)
}

// TestParseArgs: a replay command's flags give the run shape without the CLI,
// through the same override the run flags fill.
func TestParseArgs(t *testing.T) {
	seed, sh, err := seeds.ParseArgs([]string{"--seed", "0x10", "--scenario-file=f.vsr", "--bug", "a",
		"--replicas", "5", "--extra-delay", "*:0=40", "--topology", "star"})
	require.NoError(t, err)
	assert.Equal(t, uint64(16), seed)
	assert.Equal(t, "f.vsr", sh.ScenarioFile)
	assert.Equal(t, []string{"a"}, sh.Bugs)
	assert.Equal(t, []string{"--replicas", "5", "--topology", "star", "--extra-delay", "*:0=40"}, sh.Override.Args())
	assert.False(t, sh.NoFoci)

	// --no-foci takes no value, or true and false inline; it does not eat
	// the flag after it.
	for _, args := range [][]string{{"--no-foci", "--seed", "1"}, {"--seed", "1", "--no-foci=true"}} {
		_, sh, err := seeds.ParseArgs(args)
		require.NoError(t, err)
		assert.True(t, sh.NoFoci, args)
	}
	_, sh, err = seeds.ParseArgs([]string{"--seed", "1", "--no-foci=false"})
	require.NoError(t, err)
	assert.False(t, sh.NoFoci)

	for args, want := range map[string][]string{
		"no --seed":              {"--replicas", "3"},
		"unknown flag --trace":   {"--seed", "1", "--trace", "t"},
		`--journal: journal "x"`: {"--seed", "1", "--journal", "x"},
		"needs a value":          {"--seed", "1", "--replicas"},
		"unexpected argument":    {"--seed", "1", "extra"},
		"want true or false":     {"--seed", "1", "--no-foci=x"},
	} {
		_, _, err := seeds.ParseArgs(want)
		assert.ErrorContains(t, err, args)
	}
	_, err = seeds.Parse("f", strings.NewReader("- 1 - pass "+hash+" replicas=x\n"))
	assert.ErrorContains(t, err, `f:1: --replicas: replicas "x" is not a number`)
}

// TestScenarioFileBesideCorpus: a text case's scenario file is found beside
// its corpus file from any working directory (the corpus test runs from
// cmd/vsrsim, `make seeds-update` from the root), while its written line,
// which --update and --pin write back, keeps the path as written.
func TestScenarioFileBesideCorpus(t *testing.T) {
	text := "- 3303 - pass - scenario-file=recorded/3303.vsr\n" +
		`{"seed":7,"scenario":"file:rec.vsr","verdict":"pass","trace_hash":"0123456789abcdef","replay":"vsrsim run --seed 7 --scenario-file rec.vsr"}` + "\n" +
		"- 5 - pass - scenario-file=/abs/x.vsr\n"
	cases, err := seeds.Parse("../../seeds/swarm.txt", strings.NewReader(text))
	require.NoError(t, err)
	require.Len(t, cases, 3)
	assert.Equal(t, "../../seeds/recorded/3303.vsr", cases[0].Shape.ScenarioFile)
	assert.Equal(t, []string{"--seed", "3303", "--scenario-file", "recorded/3303.vsr"}, cases[0].Args)
	assert.Equal(t, "rec.vsr", cases[1].Shape.ScenarioFile, "a JSON record's path is its run's")
	assert.Equal(t, "/abs/x.vsr", cases[2].Shape.ScenarioFile)
}

// TestCasesWithABugSwitchPinAFailure: a corpus case that turns a bug switch
// on is there to catch that defect, so it pins a failing verdict; the corpus
// replay (make test) then holds the run to it. A case that passes with its
// switch detects nothing: re-pin it to a seed that fails, or remove it and
// say why (issue 35: 14 cases of swarm.txt pinned pass with their switch).
func TestCasesWithABugSwitchPinAFailure(t *testing.T) {
	withBugs := 0
	for _, c := range corpusCases(t) {
		if len(c.Shape.Bugs) == 0 {
			continue
		}
		withBugs++
		assert.True(t, c.Verdict.Failed(), "%s: %v pins %s with its bug switch on: it detects nothing", c.Where(), c.Shape.Bugs, c.Verdict)
	}
	assert.Greater(t, withBugs, 20, "the corpus has its first-detection and scenario cases")
}

// TestEveryRecordedFileIsReplayed: every file of recorded/ is the scenario
// file of a corpus case, so the corpus replay (make test) runs it; a file no
// case names is kept and never checked (fuzz's TestOpenFindingsRegistered
// holds the same for the open findings).
func TestEveryRecordedFileIsReplayed(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("recorded", "*.vsr"))
	require.NoError(t, err)
	require.NotEmpty(t, files)
	named := map[string]bool{}
	for _, c := range corpusCases(t) {
		if c.Shape.ScenarioFile != "" {
			named[filepath.Base(c.Shape.ScenarioFile)] = true
		}
	}
	for _, f := range files {
		assert.True(t, named[filepath.Base(f)], "%s is named by no case of seeds/*.txt: pin it, or remove it", f)
	}
}

// corpusCases parses every corpus file of this directory (seeds/*.txt).
func corpusCases(t *testing.T) []seeds.Case {
	t.Helper()
	paths, err := filepath.Glob("*.txt")
	require.NoError(t, err)
	require.NotEmpty(t, paths)
	var all []seeds.Case
	for _, path := range paths {
		f, err := os.Open(path)
		require.NoError(t, err)
		cases, err := seeds.Parse(path, f)
		f.Close()
		require.NoError(t, err, path)
		all = append(all, cases...)
	}
	return all
}
