package main

import (
	"strings"
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

// The never-marks stand apart: out of the coverage table, listed in
// marks_never with the first seed that reached one. Seed 2 under the
// stale-guard defect refuses an offer as stale, which the default install
// never does.
func TestNeverMarksOutput(t *testing.T) {
	stale := marks.TransferOfferRefusedStale.String()
	tests := []struct {
		name  string
		args  []string
		runs  float64
		first any
	}{
		{"correct runs", []string{"--seeds", "1-3"}, 0, nil},
		{"planted defect", []string{"--seeds", "1-2", "--bug", "stale-guard-uses-commit-max"}, 1, float64(2)},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			out := vsrsim(t, append([]string{"sweep", "--jobs", "1", "--marks", "-o", "json"}, tc.args...)...)
			require.Equal(t, exitPass, out.code, out.stderr)
			_, summary := failureLines(t, out.stdout)
			never, ok := summary["marks_never"].([]any)
			require.True(t, ok, "summary has no marks_never list: %v", summary)
			byName := map[string]map[string]any{}
			for _, e := range never {
				j := e.(map[string]any)
				byName[j["mark"].(string)] = j
				assert.NotEmpty(t, j["reason"])
			}
			require.Len(t, byName, 4)
			require.Contains(t, byName, stale)
			assert.Equal(t, tc.runs, byName[stale]["runs"])
			assert.Equal(t, tc.first, byName[stale]["first_seed"])

			table := vsrsim(t, append([]string{"sweep", "--jobs", "1", "--marks"}, tc.args...)...)
			require.Equal(t, exitPass, table.code, table.stderr)
			assert.Contains(t, table.stdout, "NEVER-MARK")
			assert.Equal(t, tc.runs > 0, strings.Contains(table.stdout, "FINDING never-mark "+stale), table.stdout)
		})
	}
}
