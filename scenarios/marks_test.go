package scenarios_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"vsrsim/marks"
	"vsrsim/marks/markstest"
	"vsrsim/scenarios"
)

// A scenario exists for a mechanism; these assert its runs take the branch
// (docs/marks.md), so a change that routes around it shows here first.
func TestScenarioReachesItsMarks(t *testing.T) {
	tests := []struct {
		scenario string
		want     []marks.Mark
	}{
		{"transfer-rewind", []marks.Mark{marks.TransferInstall, marks.Checkpoint}},
		{"restart-before-repair", []marks.Mark{marks.RestartWAL}},
	}
	for _, tc := range tests {
		t.Run(tc.scenario, func(t *testing.T) {
			s, err := scenarios.Lookup(tc.scenario)
			require.NoError(t, err)
			res := runScenario(t, s, 1, nil)
			markstest.AssertReached(t, &res.Marks, tc.want...)
		})
	}
}
