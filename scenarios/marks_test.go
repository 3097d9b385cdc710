package scenarios_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"vsrsim/marks"
	"vsrsim/marks/markstest"
	"vsrsim/scenarios"
	"vsrsim/sim"
	"vsrsim/verify"
)

// A scenario exists for a mechanism; these assert its runs take the branch
// (docs/marks.md), so a change that routes around it shows here first. A
// failure shape's defect is on where the branch is the defect's own (its
// fixed twin never reaches it), off where the branch is the fix's.
func TestScenarioReachesItsMarks(t *testing.T) {
	tests := []struct {
		scenario string
		bug      bool
		want     []marks.Mark
	}{
		// Since a backup acks nothing above a header-only op (swarm seed
		// 3303), the fixed backup repairs the hollow op and catches up its
		// commits without holding a body unverified; the swarm still takes
		// that branch (drop-unverified, repair-held-pending) in about a
		// quarter of its seeds.
		{"hollow-op", false, []marks.Mark{marks.DropGap, marks.RestartAmnesiac, marks.RepairServed, marks.CommitCatchUp}},
		{"transfer-rewind", false, []marks.Mark{marks.TransferInstall, marks.TransferInstallBelowCommit, marks.Checkpoint}},
		{"transfer-rewind", true, []marks.Mark{marks.DropDVCUnreadable}},
		{"stale-offer", true, []marks.Mark{marks.TransferStarted, marks.TransferOfferRefusedStale}},
		{"stale-offer", false, []marks.Mark{marks.RepairRangeEvicted, marks.TransferInstall}},
		{"vc-straggler", false, []marks.Mark{marks.EscalateHeldByPrimary}},
		{"vc-straggler", true, []marks.Mark{marks.EscalateOnStatusTimeout}},
		{"stale-dvc-cache", true, []marks.Mark{marks.DVCCacheHit, marks.MergeTruncate}},
		{"stale-dvc-cache", false, []marks.Mark{marks.DVCCacheHit, marks.DVCCacheRebuilt}},
		{"restart-before-repair", false, []marks.Mark{marks.RestartWAL, marks.RestartWALVote}},
		{"backup-send-only", false, []marks.Mark{marks.SVCHeldByWindow}},
		{"primary-send-only", false, []marks.Mark{marks.Abdicate, marks.SVCQuorumReached, marks.DVCQuorum, marks.StartViewInstalled}},
		{"straggler-primary-crash", false, []marks.Mark{marks.LeaveResent, marks.EscalateOnStatusTimeout}},
		{"slow-pair-primary-crash", false, []marks.Mark{marks.BackoffCapped}},
		{"wal-cluster-restart", false, []marks.Mark{marks.RestartWAL, marks.RestartWALVote, marks.MergeKeep}},
	}
	for _, tc := range tests {
		name := tc.scenario
		if tc.bug {
			name += "/bug"
		}
		t.Run(name, func(t *testing.T) {
			s, err := scenarios.Lookup(tc.scenario)
			require.NoError(t, err)
			var bugs []string
			if tc.bug {
				require.NotEmpty(t, s.Bug, "the scenario has a defect to switch on")
				bugs = []string{s.Bug}
			}
			res := runShape(t, s, 1, bugs)
			markstest.AssertReached(t, &res.Marks, tc.want...)
		})
	}
}

// A behaviour file proves its mechanism carried the run: the verdict alone
// would also pass if the faults never reached it.
func TestBehaviourReachesItsMarks(t *testing.T) {
	tests := []struct {
		file string
		want []marks.Mark
	}{
		{"send-only-backup.vsr", []marks.Mark{marks.SVCHeldByWindow}},
		{"send-only-primary.vsr", []marks.Mark{marks.Abdicate, marks.SVCQuorumReached}},
		{"stalled-acks-abdicate.vsr", []marks.Mark{marks.AbdicateStalled, marks.SVCQuorumReached}},
		{"stalled-prepares-abdicate.vsr", []marks.Mark{marks.ForwardUnanswered, marks.SVCQuorumReached}},
		{"primary-replies-lost.vsr", []marks.Mark{marks.ReplyFromBackup, marks.ReplyFromBackupTable}},
		{"backup-deaf-to-primary-relayed.vsr", []marks.Mark{marks.StartViewRelayed, marks.CommitRelayed}},
		{"repair-backoff-reset-after-heal.vsr", []marks.Mark{marks.BackoffReset}},
		{"primary-links-flapping.vsr", []marks.Mark{marks.BackoffReset}},
		{"rolling-restarts-memory.vsr", []marks.Mark{marks.RestartAmnesiac, marks.DropRecovering}},
		{"whole-cluster-crash-wal.vsr", []marks.Mark{marks.RestartWAL, marks.RestartWALVote}},
		{"state-transfer-after-partition.vsr", []marks.Mark{marks.TransferStarted, marks.TransferInstall}},
	}
	for _, tc := range tests {
		t.Run(strings.TrimSuffix(tc.file, ".vsr"), func(t *testing.T) {
			res := runBehaviour(t, tc.file, 1)
			require.Equal(t, sim.VerdictPass, res.Verdict, res.Evidence)
			markstest.AssertReached(t, &res.Marks, tc.want...)
		})
	}
}

func runBehaviour(t *testing.T, file string, seed uint64) sim.Result {
	t.Helper()
	return runBehaviourWith(t, file, seed, nil)
}

// runBehaviourWith is runBehaviour with the file's configuration changed by
// change (nil: none) before the run.
func runBehaviourWith(t *testing.T, file string, seed uint64, change func(*sim.Config)) sim.Result {
	t.Helper()
	path := filepath.Join("testdata", "behaviour", file)
	data, err := os.ReadFile(path)
	require.NoError(t, err)
	f, err := scenarios.ParseFile(path, strings.NewReader(string(data)))
	require.NoError(t, err)
	cfg := sim.DefaultConfig(seed)
	script, err := f.Apply(&cfg)
	require.NoError(t, err)
	if change != nil {
		change(&cfg)
	}
	res, err := verify.Run(cfg, sim.Attach{Script: script})
	require.NoError(t, err)
	return res
}

// TestAvailabilityFilesNeedTheirMechanism: each behaviour file of D40 and
// D43 fails with its mechanism off (the protocol option that models a source
// without it) on some of seeds 1..10, and passes with it on (the behaviour
// suite runs them): abdication on stalled replication
// (`abdicate-by-hearing`), replies from backups (`backup-replies-off`), the
// relayed StartView (`relay-start-view-off`) and retries started afresh on
// hearing a quorum (`backoff-reset-off`).
func TestAvailabilityFilesNeedTheirMechanism(t *testing.T) {
	byHearing := func(c *sim.Config) { c.Protocol.AbdicateByHearing = true }
	for _, tc := range []struct {
		file      string
		off       func(*sim.Config)
		failsMost int // failures at least, of seeds 1..10
	}{
		{"stalled-acks-abdicate.vsr", byHearing, 10},
		{"stalled-prepares-abdicate.vsr", byHearing, 10},
		{"sparse-commitok-lost-holds-view.vsr", byHearing, 1},
		{"primary-replies-lost.vsr", func(c *sim.Config) { c.Protocol.BackupRepliesOff = true }, 10},
		{"backup-deaf-to-primary-relayed.vsr", func(c *sim.Config) { c.Protocol.RelayStartViewOff = true }, 10},
		{"repair-backoff-reset-after-heal.vsr", func(c *sim.Config) { c.Protocol.BackoffResetOff = true }, 3},
		{"primary-links-flapping.vsr", func(c *sim.Config) { c.Protocol.BackoffResetOff = true }, 10},
	} {
		t.Run(strings.TrimSuffix(tc.file, ".vsr"), func(t *testing.T) {
			failed := 0
			for seed := uint64(1); seed <= 10; seed++ {
				res := runBehaviourWith(t, tc.file, seed, tc.off)
				if res.Verdict != sim.VerdictPass {
					failed++
				}
			}
			assert.GreaterOrEqual(t, failed, tc.failsMost, "seeds of 1..10 that fail without the mechanism")
		})
	}
}
