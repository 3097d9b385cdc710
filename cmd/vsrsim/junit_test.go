package main

import (
	"encoding/json"
	"encoding/xml"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func readJUnit(t *testing.T, path string) junitSuites {
	t.Helper()
	data, err := os.ReadFile(path)
	require.NoError(t, err)
	require.True(t, strings.HasPrefix(string(data), xml.Header), "an XML declaration first")
	var doc junitSuites
	require.NoError(t, xml.Unmarshal(data, &doc))
	require.Len(t, doc.Suites, 1)
	return doc
}

// TestJUnitFindings: a real sweep shard with findings writes one failing case
// per finding, named by seed and verdict, whose message holds the evidence and
// replay command of its failures record, and one passing case for the shard.
func TestJUnitFindings(t *testing.T) {
	dir := t.TempDir()
	junit, failures := filepath.Join(dir, "junit.xml"), filepath.Join(dir, "failures.jsonl")
	out := vsrsim(t, append(dvcSweep, "--shard", "1/3", "--junit", junit, "--failures", failures)...)
	require.Equal(t, exitSafety, out.code, out.stderr)

	data, err := os.ReadFile(failures)
	require.NoError(t, err)
	var recs []runJSON
	for _, line := range strings.Split(strings.TrimSpace(string(data)), "\n") {
		var rec runJSON
		require.NoError(t, json.Unmarshal([]byte(line), &rec))
		recs = append(recs, rec)
	}
	require.Len(t, recs, 2, "seeds 2 and 5")

	doc := readJUnit(t, junit)
	suite := doc.Suites[0]
	assert.Equal(t, "vsrsim sweep shard 1/3", suite.Name)
	assert.Equal(t, []int{3, 2, 0}, []int{suite.Tests, suite.Failures, suite.Errors})
	assert.Equal(t, []int{3, 2, 0}, []int{doc.Tests, doc.Failures, doc.Errors})
	assert.Contains(t, suite.Properties, junitProperty{"shard", "1"})
	assert.Contains(t, suite.Properties, junitProperty{"shards", "3"})
	require.Len(t, suite.Cases, 3)
	for i, rec := range recs {
		c := suite.Cases[i]
		assert.Equal(t, fmt.Sprintf("seed %d safety (%s)", rec.Seed, rec.Invariant), c.Name)
		assert.Equal(t, suite.Name, c.Classname)
		assert.Nil(t, c.Error)
		require.NotNil(t, c.Failure)
		assert.Equal(t, "safety", c.Failure.Type)
		assert.Equal(t, rec.Evidence+"; replay: "+rec.Replay, c.Failure.Message)
		assert.Contains(t, c.Failure.Text, "replay: "+rec.Replay+"\n")
		assert.Contains(t, c.Failure.Text, rec.Tail[len(rec.Tail)-1], "the trace tail")
	}
	whole := suite.Cases[2]
	assert.Equal(t, "sweep summary", whole.Name)
	assert.Nil(t, whole.Failure)
	assert.Nil(t, whole.Error)
	require.NotNil(t, whole.SystemOut)
	assert.Regexp(t, `│ status +│ complete +│`, whole.SystemOut.Text)
}

// TestJUnitNothingFound: a clean sweep is one passing case.
func TestJUnitNothingFound(t *testing.T) {
	junit := filepath.Join(t.TempDir(), "junit.xml")
	out := vsrsim(t, "sweep", "--count", "3", "--jobs", "1", "--junit", junit)
	require.Equal(t, 0, out.code, out.stderr)
	suite := readJUnit(t, junit).Suites[0]
	assert.Equal(t, "vsrsim sweep", suite.Name)
	assert.Equal(t, []int{1, 0, 0}, []int{suite.Tests, suite.Failures, suite.Errors})
	require.Len(t, suite.Cases, 1)
	assert.Nil(t, suite.Cases[0].Failure)
	assert.Nil(t, suite.Cases[0].Error)
}

// TestJUnitInterrupted: a sweep stopped before its range was done says so as
// an error, so a CI view does not show a partial sweep as a clean one.
func TestJUnitInterrupted(t *testing.T) {
	junit := filepath.Join(t.TempDir(), "junit.xml")
	out := runCancelled([]string{"sweep", "--count", "50", "--junit", junit})
	require.Equal(t, exitInterrupted, out.code, out.stderr)
	suite := readJUnit(t, junit).Suites[0]
	assert.Equal(t, []int{1, 0, 1}, []int{suite.Tests, suite.Failures, suite.Errors})
	require.NotNil(t, suite.Cases[0].Error)
	assert.Equal(t, "interrupted after 0 of 50 runs", suite.Cases[0].Error.Message)
}

// TestJUnitUnwritable: a path that cannot be written fails before the first
// seed runs.
func TestJUnitUnwritable(t *testing.T) {
	out := vsrsim(t, "sweep", "--count", "1000000", "--junit", filepath.Join(t.TempDir(), "no", "such", "dir.xml"))
	assert.Equal(t, exitSoftware, out.code, out.stderr)
	assert.Empty(t, out.stdout, "no sweep ran")
	assert.Equal(t, 1, strings.Count(out.stderr, "\n"), out.stderr)
	assert.Contains(t, out.stderr, "--junit")
}

func TestXMLSafe(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"plain\ttext\r\n", "plain\ttext\r\n"},
		{"nul\x00 bell\x07", "nul\uFFFD bell\uFFFD"},
		{"é ✓ 𝄞", "é ✓ 𝄞"},
		{"\uFFFE", "\uFFFD"},
	} {
		assert.Equal(t, tc.want, xmlSafe(tc.in), "%q", tc.in)
	}
}
