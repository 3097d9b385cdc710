package scenarios_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"vsrsim/sim"
)

// Scripted crashes obey the f bound (issue 35 point 6): a crash that would
// leave more replicas amnesiac than the protocol survives is skipped with a
// note, unless the file says `crashes beyond-f`.

// twoAmnesiacs crashes two of three memory-journal replicas 50 ticks apart,
// the first still down when the second crash comes.
const twoAmnesiacs = quiet + "journal memory\nat 1000 crash 0\nat 1050 crash 1\nat 2000 restart 0 1\n"

func TestScriptedCrashBeyondFIsSkipped(t *testing.T) {
	for _, extra := range []string{"", "crashes within-f\n"} {
		res, lines := runFile(t, twoAmnesiacs+extra, nil)
		assert.Equal(t, uint64(1), res.Stats.Crashes, "only the first crash happens")
		assert.Equal(t, uint64(1), res.Stats.CrashesSkipped)
		assert.False(t, res.CrashesBeyondF)
		assert.Equal(t, 1, count(lines, 1050, 1050, "note t.vsr:5: crash of r1 skipped"), "the skip is traced, naming the line")
		assert.Zero(t, count(lines, 1050, 1050, "crash r1"))
		assert.Equal(t, sim.VerdictPass, res.Verdict, res.Evidence)
	}
}

func TestCrashesBeyondFLiftsTheBound(t *testing.T) {
	res, lines := runFile(t, twoAmnesiacs+"crashes beyond-f\n", nil)
	assert.Equal(t, uint64(2), res.Stats.Crashes)
	assert.Zero(t, res.Stats.CrashesSkipped)
	assert.True(t, res.CrashesBeyondF, "the run reports the lifted bound")
	assert.Equal(t, 1, count(lines, 1050, 1050, "crash r1"))
}

// TestScriptedCrashBoundCountsAmnesia: a write-ahead journal survives its
// replica's crash, so a whole cluster may crash on one; on memory journals
// an amnesiac replica counts until it caught up, and five replicas survive
// two.
func TestScriptedCrashBoundCountsAmnesia(t *testing.T) {
	res, _ := runFile(t, quiet+"journal wal\nat 1000 crash *\nat 2000 restart *\n", nil)
	assert.Equal(t, uint64(3), res.Stats.Crashes, "write-ahead journals: every crash happens")
	assert.Zero(t, res.Stats.CrashesSkipped)
	assert.Equal(t, sim.VerdictPass, res.Verdict, res.Evidence)

	res, _ = runFile(t, quiet+"replicas 5\njournal memory\nat 1000 crash 0\nat 1001 crash 1\nat 1002 crash 2\nat 2000 restart *\n", nil)
	assert.Equal(t, uint64(2), res.Stats.Crashes, "f = 2 of five")
	assert.Equal(t, uint64(1), res.Stats.CrashesSkipped)

	// r0 restarts at 1100 and catches up long before 3000: crashing r1
	// then leaves one amnesiac replica, within f.
	res, _ = runFile(t, quiet+"journal memory\nat 1000 crash 0\nat 1100 restart 0\nat 2500 crash 1\nat 2600 restart 1\n", nil)
	assert.Equal(t, uint64(2), res.Stats.Crashes, "a replica that caught up is whole again")
	assert.Zero(t, res.Stats.CrashesSkipped)
}

// TestCrashesBeyondFStillExcused: the same storm of amnesiac crashes is
// unrecoverable with `crashes beyond-f` (no protocol recovers three of three
// forgotten journals: never a false alarm) and, under the bound, passes.
func TestCrashesBeyondFStillExcused(t *testing.T) {
	storm := quiet + "journal memory\nat 1000 crash 0\nat 1050 crash 1\nat 1100 crash 2\nat 2000 restart *\n"
	res, _ := runFile(t, storm+"crashes beyond-f\n", nil)
	require.Equal(t, sim.VerdictUnrecoverable, res.Verdict, res.Evidence)
	assert.NotEmpty(t, res.Rule)
	res, _ = runFile(t, storm, nil)
	assert.Equal(t, sim.VerdictPass, res.Verdict, res.Evidence)
	assert.Equal(t, uint64(2), res.Stats.CrashesSkipped)
}
