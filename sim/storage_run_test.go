package sim

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"vsrsim/prng"
)

// storageConfig is the default run with every storage fault on.
func storageConfig(seed uint64) Config {
	cfg := DefaultConfig(seed)
	cfg.CrashChance = prng.Ratio{Num: 1, Den: 2000}
	cfg.Storage = Storage{On: true, LatencyMinTicks: 1, LatencyMeanTicks: 4,
		ReadFault: prng.Ratio{Num: 1, Den: 2000}, WriteFault: prng.Ratio{Num: 1, Den: 200},
		Misdirect: prng.Ratio{Num: 1, Den: 400}, Torn: prng.Ratio{Num: 1, Den: 2}}
	return cfg
}

func TestStorageRunsPass(t *testing.T) {
	for seed := uint64(1); seed <= 12; seed++ {
		res, err := Run(storageConfig(seed), Attach{})
		require.NoError(t, err)
		assert.Equal(t, VerdictPass, res.Verdict, "seed %d: %s %s", seed, res.Invariant, res.Evidence)
		assert.Positive(t, res.StorageFaults, "seed %d injected no storage fault", seed)
	}
}

// A run on disks replays byte for byte, and with storage off nothing is drawn
// for it: the disk's streams are its own.
func TestStorageRunsReplay(t *testing.T) {
	a, err := Run(storageConfig(5), Attach{})
	require.NoError(t, err)
	b, err := Run(storageConfig(5), Attach{})
	require.NoError(t, err)
	assert.Equal(t, a.TraceHash, b.TraceHash)
	assert.Equal(t, a.StorageFaults, b.StorageFaults)
	off := storageConfig(5)
	off.Storage = Storage{}
	c, err := Run(off, Attach{})
	require.NoError(t, err)
	assert.NotEqual(t, a.TraceHash, c.TraceHash, "the disks shape the run")
	assert.Zero(t, c.StorageFaults)
}

// storage-beyond-f turns a finding into unrecoverable only when the disks'
// own record shows a slot faulty on a replication quorum, before the finding.
func TestStorageBeyondF(t *testing.T) {
	build := func(atlasOff bool) *Cluster {
		cfg := storageConfig(1)
		cfg.Storage.AtlasOff = atlasOff
		c, err := newCluster(cfg, Attach{}, newTrace(nil, cfg.Replicas, nil))
		require.NoError(t, err)
		return c
	}
	finding := func(c *Cluster) Result {
		res := Result{Verdict: VerdictSafety, Invariant: "agreement", Evidence: "t=9 something"}
		c.now = 10
		c.judgeStorage(&res)
		return res
	}
	c := build(true)
	require.NoError(t, c.CorruptEntry(0, 5, EntryBody))
	assert.Equal(t, VerdictSafety, finding(c).Verdict, "one replica's slot is within f")
	require.NoError(t, c.CorruptEntry(1, 5, EntryHeader))
	res := finding(c)
	assert.Equal(t, VerdictUnrecoverable, res.Verdict)
	assert.Equal(t, "storage-beyond-f", res.Rule)
	assert.Contains(t, res.Evidence, "journal slot 5 faulty on 2 replicas")
	assert.Contains(t, res.Evidence, "agreement")

	// With the atlas on, a script that damages the same slot on a quorum
	// goes past the atlas (a forbidden fault), and the rule names it too.
	c = build(false)
	require.NoError(t, c.CorruptEntry(0, 7, EntryBoth))
	require.NoError(t, c.CorruptEntry(1, 7, EntryBoth))
	require.NoError(t, c.CorruptEntry(2, 7, EntryBoth))
	assert.Equal(t, VerdictUnrecoverable, finding(c).Verdict)

	// A pass is never touched, and a replica assertion is the replica's
	// own: no disk excuses a crash.
	pass := Result{Verdict: VerdictPass}
	c.judgeStorage(&pass)
	assert.Equal(t, VerdictPass, pass.Verdict)
	crash := Result{Verdict: VerdictCrash, Invariant: "recover_checkpoint_state"}
	c.judgeStorage(&crash)
	assert.Equal(t, VerdictCrash, crash.Verdict)
}
