package scenarios_test

import (
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"vsrsim/replica"
	"vsrsim/scenarios"
	"vsrsim/sim"
	"vsrsim/sim/check"
	"vsrsim/sim/swarm"
	"vsrsim/verify"
)

// End-to-end tests of the excuses' scope (issue 35, docs/checkers.md): each
// plants in a real run a finding beside damage that does not cover it and
// sees the finding stand, and runs a genuinely beyond-f run of the same shape
// and sees it excused, naming what it excuses.

// runText runs a scenario file's text on seed with the given bug switches.
func runText(t *testing.T, text string, seed uint64, bugs ...string) sim.Result {
	t.Helper()
	f, err := scenarios.ParseFile("t.vsr", strings.NewReader(text))
	require.NoError(t, err)
	cfg := sim.DefaultConfig(seed)
	script, err := f.Apply(&cfg)
	require.NoError(t, err)
	cfg.Bugs, err = replica.ParseBugs(bugs)
	require.NoError(t, err)
	res, err := verify.Run(cfg, sim.Attach{Script: script})
	require.NoError(t, err)
	return res
}

func readText(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	require.NoError(t, err)
	return string(b)
}

// A damaged header on a slot the finding is not about excuses nothing: the
// single-replica unlanded commit (own-ack-before-write-lands) stays a safety
// finding beside it. It was unrecoverable while storage-beyond-f was a
// run-wide flag.
func TestExcuseCoversOnlyItsOp(t *testing.T) {
	text := readText(t, "../seeds/recorded/fuzz-single-replica-unlanded-commit.vsr") + "at 5 corrupt 0 op 64 header\n"
	for seed := uint64(1); seed <= 5; seed++ {
		res := runText(t, text, seed, "own-ack-before-write-lands")
		assert.Equal(t, sim.VerdictSafety, res.Verdict, "seed %d: %s %s", seed, res.Invariant, res.Evidence)
		assert.Nil(t, res.Excuse)
		assert.Equal(t, sim.VerdictPass, runText(t, text, seed).Verdict, "seed %d: the shipped replica passes", seed)
	}
}

// beyondF damages both records of op 5 on the disks of the given replicas
// (past the atlas: scripted, forbidden where it forbids) and crashes and
// restarts every replica, so that no memory holds op 5 either.
func beyondF(targets ...string) string {
	s := "replicas 3\nclients 2\njournal wal\njournal-slots 1024\ncheckpoint-interval 900\nticks 3000\nstorage latency min=1 mean=2\n"
	for _, r := range targets {
		s += "at 1500 corrupt " + r + " op 5 both\n"
	}
	return s + "at 1500 crash *\nat 1600 restart *\n"
}

// The same shape genuinely beyond f: op 5's copies gone from a replication
// quorum of disks. The run is excused, naming op 5 and the replicas whose
// disks lost it, with the disks' fault records as proof; the loss check
// names the storage rule, not a durability failure.
func TestExcuseGenuinelyBeyondF(t *testing.T) {
	for seed := uint64(1); seed <= 3; seed++ {
		{
			res := runText(t, beyondF("*"), seed)
			require.Equal(t, sim.VerdictUnrecoverable, res.Verdict, "seed %d: %s %s", seed, res.Invariant, res.Evidence)
			require.NotNil(t, res.Excuse)
			assert.Equal(t, check.RuleStorageBeyondF, res.Excuse.Rule)
			assert.Equal(t, []uint64{5}, res.Excuse.Ops)
			assert.GreaterOrEqual(t, len(res.Excuse.Replicas), 2)
			assert.Contains(t, res.Excuse.Proof, "corrupted prepares/5 scripted")
		}
	}
	// A copy left on r2 (two disks lost it, past the atlas but not every
	// copy) and one disk alone: the shipped replica recovers op 5 from the
	// copy that is left.
	for seed := uint64(1); seed <= 3; seed++ {
		for _, targets := range [][]string{{"0", "1"}, {"1"}} {
			res := runText(t, beyondF(targets...), seed)
			assert.Equal(t, sim.VerdictPass, res.Verdict, "%v seed %d: %s %s", targets, seed, res.Invariant, res.Evidence)
		}
	}
}

// A stall that began while the cluster was within f is a liveness finding
// even when the harness later leaves the core without voters: here the
// liveness phase's straggler cut-offs of a source-protocol run, made only
// once the core's view had climbed for a while. no-voters holds at the end
// and is named, but does not excuse it. (TestBreakNoVoters holds the
// excused shape: the voters gone before the stall.)
func TestStallBeforeItsExcuseIsAFinding(t *testing.T) {
	res := runText(t, readText(t, "../seeds/recorded/fuzz-cut-off-voters.vsr"), 7200913237179398765)
	assert.Equal(t, sim.VerdictLiveness, res.Verdict)
	assert.Contains(t, res.Evidence, "no-voters does not excuse it")
}

// log_view has a floor across a restart from disk: superblock-trusts-torn
// acts in a log_view before the superblock naming it lands, and a crash that
// tears that write brings the replica back below it (swarm seed 273; it was
// 252 until the swarm drew lost writes and a high band of storage faults,
// issue 38; its second events aimed at storage faults, issue 38 item 8, moved
// the log_views it comes back between, and so did the scrubber's reads and
// latent errors drawn once per write, issue 38 item 5). The shipped replica
// passes the same seed.
func TestLogViewFloorInARealRun(t *testing.T) {
	cfg := swarm.Config(273)
	var err error
	cfg.Bugs, err = replica.ParseBugs([]string{"superblock-trusts-torn"})
	require.NoError(t, err)
	// The protocol model catches the defect first (its vote stops below
	// an op it acked, once the restart drops what lies above its durable
	// head): off, the oracle's own floor must still see it.
	cfg.SpecOff = true
	res, err := verify.Run(cfg, sim.Attach{})
	require.NoError(t, err)
	assert.Equal(t, sim.VerdictSafety, res.Verdict)
	assert.Contains(t, res.Evidence, "came back from its disk with log_view 0, below log_view 1 it acted in")

	res, err = verify.Run(swarm.Config(273), sim.Attach{})
	require.NoError(t, err)
	assert.Equal(t, sim.VerdictPass, res.Verdict, "%s %s", res.Invariant, res.Evidence)
}
