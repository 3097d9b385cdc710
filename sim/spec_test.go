package sim

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"vsrsim/disksim"
	"vsrsim/prng"
	"vsrsim/spec"
	"vsrsim/vsr"
)

// TestSpecOnlyObserves: the protocol model changes nothing in a run. With
// it on and off, a run the model does not fail has the same verdict and
// trace hash; one it fails is the same run cut short at the model's step.
func TestSpecOnlyObserves(t *testing.T) {
	for seed := uint64(1); seed <= 6; seed++ {
		cfg := breakConfig(seed)
		on, err := Run(cfg, Attach{})
		require.NoError(t, err)
		cfg.SpecOff = true
		off, err := Run(cfg, Attach{})
		require.NoError(t, err)
		if strings.HasPrefix(on.Invariant, "spec/") {
			assert.LessOrEqual(t, on.Ticks, off.Ticks, "seed %d", seed)
			continue
		}
		assert.Equal(t, off.Verdict, on.Verdict, "seed %d", seed)
		assert.Equal(t, off.TraceHash, on.TraceHash, "seed %d: the model moved the trace", seed)
		assert.Equal(t, off.Events, on.Events, "seed %d", seed)
	}
}

// TestBreakSpecForgedIntoARealRun forges, into the model, a step the
// protocol never takes, in the middle of a real run: replica 1 acks an op
// it never journaled. The run must end at that tick with the model's
// verdict, the rule's text and the trace tail; the same run unforged
// passes (TestSpecOnlyObserves covers seed 11's neighbours).
func TestBreakSpecForgedIntoARealRun(t *testing.T) {
	var forged uint64
	script := scriptFunc(func(c *Cluster, tick uint64) {
		if forged != 0 || c.checker.CommittedMax() < 5 {
			return
		}
		info, ok := c.Info(1)
		if !ok || info.Status != vsr.StatusNormal {
			return
		}
		forged = tick
		c.spec.Ticked(tick, 1)
		m := spec.Message{Command: spec.CmdPrepareOk, From: 1, To: vsr.PrimaryOf(info.View, c.cfg.Replicas),
			View: info.View, Op: 1 << 40, Checksum: 0xbad}
		c.spec.Sent(1, &m)
		c.specStep(1)
	})
	res := runBreak(t, breakConfig(11), script)
	require.NotZero(t, forged, "the script never ran")
	assert.Equal(t, VerdictSafety, res.Verdict)
	assert.Equal(t, "spec/"+spec.RulePrepareOk, res.Invariant)
	assert.Contains(t, res.Evidence, spec.RuleText(spec.RulePrepareOk))
	assert.Equal(t, forged, res.Ticks, "the run ends at the forged step's tick")
	assert.NotEmpty(t, res.Tail)

	clean, err := Run(breakConfig(11), Attach{})
	require.NoError(t, err)
	assert.Equal(t, VerdictPass, clean.Verdict, clean.Evidence)
}

// TestAmnesiaJudgedNotExcused: a restart whose reads returned every
// superblock copy damaged is told to the model (readBack's record), which
// then holds the replica to amnesia; a step that breaks it is a safety
// finding the loss does not excuse (the loss is the rule's premise), while
// the same run unforged passes the model.
func TestAmnesiaJudgedNotExcused(t *testing.T) {
	cfg := storageConfig(3)
	cfg.Storage.AtlasOff = true
	cfg.CrashChance = prng.Ratio{}
	var restarted, forged uint64
	plan := func(forge bool) Script {
		return scriptFunc(func(c *Cluster, tick uint64) {
			switch {
			case restarted == 0 && c.replicas[1] != nil && c.checker.CommittedMax() >= 5:
				c.Crash(1)
				for s := 0; s < diskSuperblocks; s++ {
					c.disks.r[1].disk.Corrupt(tick, disksim.ZoneSuperblock, s)
				}
				c.Restart(1)
				restarted = tick
				assert.False(t, c.disks.r[1].readSuperblock, "every copy read back damaged")
			case forge && restarted != 0 && forged == 0 && c.replicas[1] != nil:
				forged = tick
				c.spec.Ticked(tick, 1)
				c.spec.Status(1, spec.StatusNormal, 0, 0)
				c.specStep(1)
			}
		})
	}
	res := runBreak(t, cfg, plan(true))
	require.NotZero(t, forged, "the script never forged")
	assert.Equal(t, VerdictSafety, res.Verdict, "the loss excuses nothing here")
	assert.Equal(t, "spec/"+spec.RuleAmnesiaHolds, res.Invariant)

	restarted, forged = 0, 0
	clean := runBreak(t, cfg, plan(false))
	require.NotZero(t, restarted)
	assert.NotEqual(t, "spec/"+spec.RuleAmnesiaHolds, clean.Invariant, "the replica keeps its amnesia")
	assert.NotEqual(t, VerdictSafety, clean.Verdict, clean.Evidence)
}
