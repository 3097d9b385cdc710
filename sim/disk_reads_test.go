package sim

import (
	"testing"
	"vsrsim/disksim"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"vsrsim/prng"
	"vsrsim/sim/check"
)

// A live replica's damaged copy counts as lost to its disk only once a read
// of it failed (examineRead), on the disk's own record: before that the
// replica holds the op in memory and no excuse may cite the damage; after a
// failed read on a replication quorum the finding about that op is
// excused, naming that op and those replicas; a read while the slot's write
// is in flight proves nothing.
func TestFailedReadLosesTheCopyToTheDisk(t *testing.T) {
	c := onDisks(t, Storage{AtlasOff: true})
	cfg := c.cfg
	const op = 5
	slot := op % cfg.JournalSlots
	want := c.disks.r[1].ledger.want[1][slot]
	require.Equal(t, uint64(op), want.op, "op 5's prepare landed on r1")
	require.Equal(t, want, c.disks.r[2].ledger.want[1][slot], "and on r2")
	for _, i := range []int{1, 2} {
		require.NoError(t, c.CorruptEntry(i, op, EntryBoth))
	}
	judge := func() Result {
		c.failure = &check.Failure{Invariant: "agreement", Evidence: "op 5", Tick: c.now, Ops: []uint64{op}}
		res := Result{Verdict: VerdictSafety, Invariant: "agreement", Evidence: "op 5"}
		c.judgeStorage(&res)
		return res
	}
	assert.Equal(t, VerdictSafety, judge().Verdict, "live replicas hold op 5 in memory: the damage excuses nothing yet")

	// A read while a write of the slot is in flight proves nothing.
	c.disks.r[1].slotFence[slot] = c.disks.r[1].landedFences() + 1
	c.examineRead(1, int(slot), want)
	c.examineRead(2, int(slot), want)
	assert.Equal(t, VerdictSafety, judge().Verdict, "r1's read raced its own write: one loss is not a quorum")
	c.disks.r[1].slotFence[slot] = 0

	c.examineRead(1, int(slot), want)
	res := judge()
	require.Equal(t, VerdictUnrecoverable, res.Verdict, "reads failed on r1 and r2: %s", res.Evidence)
	require.NotNil(t, res.Excuse)
	assert.Equal(t, check.RuleStorageBeyondF, res.Excuse.Rule)
	assert.Equal(t, []uint64{op}, res.Excuse.Ops)
	assert.ElementsMatch(t, []int{1, 2}, res.Excuse.Replicas)
}

// Lost writes aimed at rewrites take only a write that replaces (or takes
// out) another entry of the same op on the media; the runs recover from them
// (the restart's chain checks), and without the chance nothing is drawn.
func TestAimedLostRewrite(t *testing.T) {
	more := 0
	for seed := uint64(1); seed <= 8; seed++ {
		cfg := storageConfig(seed)
		cfg.CrashChance = prng.Ratio{Num: 1, Den: 500}
		base, err := Run(cfg, Attach{})
		require.NoError(t, err)
		cfg.Storage.AimedLostRewrite = prng.Ratio{Num: 1, Den: 1}
		res := runExcused(t, cfg)
		if res.StorageFaults > base.StorageFaults {
			more++
		}
	}
	assert.Positive(t, more, "no rewrite was ever lost")

	cfg := storageConfig(3)
	a, err := Run(cfg, Attach{})
	require.NoError(t, err)
	cfg.Storage.AimedLostRewrite = prng.Ratio{}
	b, err := Run(cfg, Attach{})
	require.NoError(t, err)
	assert.Equal(t, a.TraceHash, b.TraceHash, "no chance, no draw")

	// Nor does a spoil chance without lost rewrites aimed (D123).
	cfg.Storage.AimedSpoilRewrite = prng.Ratio{Num: 1, Den: 2}
	c2, err := Run(cfg, Attach{})
	require.NoError(t, err)
	assert.Equal(t, a.TraceHash, c2.TraceHash, "a spoil chance alone draws nothing")
}

// rewriteAimedAtOp5 runs a cluster with every rewrite aimed at until op 5
// landed on r1's disk (slot 5), and returns r1's disk and that entry.
func rewriteAimedAtOp5(t *testing.T) (*Cluster, *diskOf, entryID) {
	t.Helper()
	cfg := storageConfig(1)
	cfg.Storage.AimedLostRewrite = prng.Ratio{Num: 1, Den: 1}
	cfg.Storage.AimedSpoilRewrite = prng.Ratio{Num: 1, Den: 2}
	cfg.Storage.AtlasOff = true
	c, err := newCluster(cfg, Attach{}, newTrace(nil, cfg.Replicas, nil))
	require.NoError(t, err)
	c.initExpect()
	for c.now = 1; c.now < 600; c.now++ {
		c.step()
	}
	d := &c.disks.r[1]
	held := d.ledger.want[1][5]
	require.Equal(t, uint64(5), held.op, "op 5 landed on r1")
	return c, d, held
}

// aimLostRewrite aims only at a write replacing another entry of the op the
// media holds there, or taking it out.
func TestAimLostRewriteTargets(t *testing.T) {
	c, d, held := rewriteAimedAtOp5(t)
	const slot = 5
	assert.True(t, c.aimLostRewrite(d, slot, entryID{held.op, held.sum + 1}), "another entry of op 5")
	assert.True(t, c.aimLostRewrite(d, slot, entryID{}), "a blank over op 5")
	assert.False(t, c.aimLostRewrite(d, slot, held), "the same entry again")
	assert.False(t, c.aimLostRewrite(d, slot, entryID{held.op + uint64(c.cfg.JournalSlots), 7}), "another op of the slot")
	d.disk.SetFaultsEnabled(false)
	assert.False(t, c.aimLostRewrite(d, slot, entryID{held.op, held.sum + 1}), "a disk the liveness phase cleaned")
}

// An aimed lost rewrite of a prepare copy marks the slot's next header copy
// write to go too, about half the time (D75), and otherwise to land damaged,
// about half the time again (D123); a header copy write meets its fate only
// where so marked, once.
func TestAimLostRewriteTakesTheHeaderCopy(t *testing.T) {
	c, d, held := rewriteAimedAtOp5(t)
	const slot = 5
	assert.Equal(t, keepWrite, c.aimLostRewriteCopy(d, disksim.ZoneHeaders, slot, held), "no header copy marked yet")
	fates := map[writeFate]int{}
	const tries = 400
	for range tries {
		d.loseHeader, d.spoilHeader = d.loseHeader[:0], d.spoilHeader[:0]
		require.Equal(t, loseWrite, c.aimLostRewriteCopy(d, disksim.ZonePrepares, slot, entryID{held.op, held.sum + 1}))
		fate := c.aimLostRewriteCopy(d, disksim.ZoneHeaders, slot, entryID{held.op, held.sum + 1})
		fates[fate]++
		if fate != keepWrite {
			assert.Equal(t, keepWrite, c.aimLostRewriteCopy(d, disksim.ZoneHeaders, slot, held), "the mark is spent")
		}
	}
	assert.InDelta(t, tries/2, fates[loseWrite], tries/5, "about half the lost prepare rewrites take the header copy's")
	assert.InDelta(t, tries/4, fates[spoilWrite], tries/8, "about a quarter land the header copy's damaged")
	assert.InDelta(t, tries/4, fates[keepWrite], tries/8, "the rest land it whole")
}

// A restart reads every superblock copy back, spending each copy's latent
// draw; copies read clean are no fault, and a finding about that replica
// alone stands (a disk that counted a spent draw as damage made every copy
// look faulty, and the oracle excused the finding as a superblock loss the
// disk never suffered: a file of three replicas on disks with latent errors,
// seed 34, before the fix).
func TestCleanSuperblockReadsLoseNothing(t *testing.T) {
	// Drawn at every first read, never a fault.
	c := onDisks(t, Storage{AtlasOff: true, ReadFault: prng.Ratio{Num: 1, Den: 1 << 30}})
	c.Crash(1)
	c.now++
	c.Restart(1)
	require.Empty(t, c.disks.r[1].disk.Faults(), "no fault was drawn")
	c.failure = &check.Failure{Invariant: "monotonicity", Evidence: "r1 went back", Tick: c.now, Replicas: []int{1}}
	res := Result{Verdict: VerdictSafety, Invariant: "monotonicity", Evidence: "r1 went back"}
	c.judgeStorage(&res)
	assert.Equal(t, VerdictSafety, res.Verdict, "its superblock copies read clean: nothing to excuse it by (%s)", res.Evidence)
	assert.Nil(t, res.Excuse)
}

// onDisks is a cluster of three replicas on disks (latency 1 + exponential
// 2, no random crashes) with st's faults, stepped to tick 600.
func onDisks(t *testing.T, st Storage) *Cluster {
	t.Helper()
	cfg := DefaultConfig(1)
	cfg.Replicas = 3
	cfg.CrashChance = prng.Ratio{}
	st.On, st.LatencyMinTicks, st.LatencyMeanTicks = true, 1, 2
	cfg.Storage = st
	c, err := newCluster(cfg, Attach{}, newTrace(nil, cfg.Replicas, nil))
	require.NoError(t, err)
	c.initExpect()
	for c.now = 1; c.now < 600; c.now++ {
		c.step()
	}
	return c
}
