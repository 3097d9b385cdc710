package scenarios_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"vsrsim/replica"
	"vsrsim/scenarios"
	"vsrsim/sim"
	"vsrsim/verify"
)

// seedsPerScenario is the range the issue pins: every verdict below holds for
// each seed 1..20.
const seedsPerScenario = 20

// mechanism is the evidence a failing run must show for each scenario: the
// stall or violation named by its cause, not just "timed out".
var mechanism = map[string]string{
	"hollow-op":             "by the gap check",
	"transfer-rewind":       "unreadable",
	"transfer-rewind-wide":  "dropped for a gap",
	"stale-offer":           "refused",
	"vc-straggler":          "view climbed",
	"stale-dvc-cache":       "merge dropped",
	"restart-before-repair": "truncation dropped committed op",
	// The storage shapes end in the oracle's own words: a committed op
	// replaced or dropped, or a view promised and lost.
	"corrupt-committed-entry":  "committed op",
	"corrupt-uncommitted-vote": "committed op",
	"misdirected-write":        "committed op",
	"torn-superblock":          "view regressed",
	"unlanded-commit":          "on acks from none",
	// A restored state that does not hash to its record's digest ends the
	// run at the replica's own assertion.
	"damaged-checkpoint": "recover_checkpoint_state",
	// The stale copy served as the committed op is applied by the replica
	// that asked: agreement.
	"stale-repair-read": "r2 committed op",
}

// scenarioConfig is the configuration `vsrsim run --scenario S --seed N
// --bug B...` runs, and the scenario's script attached.

func scenarioConfig(t *testing.T, s scenarios.Scenario, seed uint64, bugs []string) (sim.Config, sim.Attach) {
	t.Helper()
	cfg := sim.DefaultConfig(seed)
	at := sim.Attach{Script: s.Apply(&cfg)}
	b, err := replica.ParseBugs(bugs)
	require.NoError(t, err)
	cfg.Bugs = b
	return cfg, at
}

// applyErr is the error of a scenario file's Apply, for a test that runs no
// script.
func applyErr(_ sim.Script, err error) error { return err }

func runScenario(t *testing.T, s scenarios.Scenario, seed uint64, bugs []string) sim.Result {
	t.Helper()
	res, err := verify.Run(scenarioConfig(t, s, seed, bugs))
	require.NoError(t, err)
	return res
}

// shapeConfig is scenarioConfig for a test of a failure shape as the outcome
// checks see it. With its bug on, the protocol model (spec/, docs/spec.md)
// may stop the run at the first step that breaks a rule of the protocol,
// before the stall or loss the shape exists to show; such a run is judged
// with the model off (Config.SpecOff), and TestSpecCatchesShapes holds the
// model's side of the same runs. A run without a bug keeps the model on.
func shapeConfig(t *testing.T, s scenarios.Scenario, seed uint64, bugs []string) (sim.Config, sim.Attach) {
	t.Helper()
	cfg, at := scenarioConfig(t, s, seed, bugs)
	cfg.SpecOff = len(bugs) > 0
	return cfg, at
}

// runShape runs shapeConfig.
func runShape(t *testing.T, s scenarios.Scenario, seed uint64, bugs []string) sim.Result {
	t.Helper()
	res, err := verify.Run(shapeConfig(t, s, seed, bugs))
	require.NoError(t, err)
	return res
}

// TestScenarioVerdicts: with its bug switch on each scenario fails with its
// verdict and names the mechanism; with the fix it passes. Seeds 1..20.
func TestScenarioVerdicts(t *testing.T) {
	var shapes []scenarios.Scenario
	for _, s := range scenarios.All() {
		if s.Bug != "" {
			shapes = append(shapes, s)
		}
	}
	require.Len(t, shapes, len(mechanism), "every failure shape has its evidence pinned here")
	for _, s := range shapes {
		t.Run(s.Name, func(t *testing.T) {
			t.Parallel()
			want, ok := mechanism[s.Name]
			require.True(t, ok, "no evidence pinned for %s", s.Name)
			for seed := uint64(1); seed <= seedsPerScenario; seed++ {
				bug := runShape(t, s, seed, []string{s.Bug})
				assert.Equal(t, s.Expect, bug.Verdict, "seed %d with %s: %s %s", seed, s.Bug, bug.Invariant, bug.Evidence)
				assert.Contains(t, bug.Evidence, want, "seed %d with %s", seed, s.Bug)
				fix := runScenario(t, s, seed, nil)
				assert.Equal(t, sim.VerdictPass, fix.Verdict, "seed %d fixed: %s %s", seed, fix.Invariant, fix.Evidence)
			}
		})
	}
}

// TestScenarioNamesAreContract pins the table of names scripts rely on.
func TestScenarioNamesAreContract(t *testing.T) {
	want := map[string][2]string{
		"hollow-op":                {"narrow-repair-under-commit-lag", "liveness"},
		"transfer-rewind":          {"transfer-rewinds-sequencer", "liveness"},
		"transfer-rewind-wide":     {"transfer-rewinds-sequencer", "liveness"},
		"stale-offer":              {"stale-guard-uses-commit-max", "liveness"},
		"vc-straggler":             {"escalate-without-hold", "liveness"},
		"stale-dvc-cache":          {"dvc-cache-ignores-journal", "safety"},
		"restart-before-repair":    {"restart-skips-adopted-head", "safety"},
		"corrupt-committed-entry":  {"truncate-on-corrupt", "safety"},
		"corrupt-uncommitted-vote": {"corrupt-slot-nacks", "safety"},
		"torn-superblock":          {"superblock-trusts-torn", "safety"},
		"misdirected-write":        {"checksum-ignores-slot", "safety"},
		"unlanded-commit":          {"own-ack-before-write-lands", "safety"},
		"damaged-checkpoint":       {"checkpoint-trusts-unverified", "crash"},
		"stale-repair-read":        {"repair-serves-unread", "safety"},
	}
	for name, w := range want {
		s, err := scenarios.Lookup(name)
		if assert.NoError(t, err, name) {
			assert.Equal(t, w[0], s.Bug, name)
			assert.Equal(t, w[1], string(s.Expect), name)
		}
	}
	_, err := scenarios.Lookup("no-such-scenario")
	assert.ErrorContains(t, err, "unknown scenario")
}
