package main

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"vsrsim/marks"
)

// `run -o json` lists the marks a run reached; `sweep --marks` lists every
// mark with the runs that reached it, in JSON and as a table.
func TestMarksOutput(t *testing.T) {
	_, run := runJSONOf(t, exitPass, "run", "--seed", "3")
	assert.NotZero(t, run.Marks[marks.RepairRequested.String()], "seed 3 repairs")

	out := vsrsim(t, "sweep", "--seeds", "1-3", "--jobs", "1", "--marks", "-o", "json")
	require.Equal(t, exitPass, out.code, out.stderr)
	_, summary := failureLines(t, out.stdout)
	got, ok := summary["marks"].(map[string]any)
	require.True(t, ok, "summary has no marks object: %v", summary)
	assert.Len(t, got, int(marks.Count))
	assert.EqualValues(t, 3, got[marks.RepairRequested.String()], "seeds 1..3 all repair")

	plain := vsrsim(t, "sweep", "--seeds", "1-3", "--jobs", "1", "-o", "json")
	_, summary = failureLines(t, plain.stdout)
	assert.NotContains(t, summary, "marks", "marks only with --marks")

	table := vsrsim(t, "sweep", "--seeds", "1-3", "--jobs", "1", "--marks")
	require.Equal(t, exitPass, table.code, table.stderr)
	assert.Contains(t, table.stdout, "restart-amnesiac-unsure-held")
	assert.Contains(t, table.stdout, "3 (100%)")
}
