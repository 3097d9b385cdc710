package sim

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"vsrsim/disksim"
	"vsrsim/marks"
	"vsrsim/prng"
	"vsrsim/sim/check"
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

// runExcused runs cfg and asserts it passes or ends excused by the disks'
// record (unrecoverable).
func runExcused(t *testing.T, cfg Config) Result {
	t.Helper()
	res, err := Run(cfg, Attach{})
	require.NoError(t, err)
	assert.Contains(t, []Verdict{VerdictPass, VerdictUnrecoverable}, res.Verdict, "seed %d: %s %s", cfg.Seed, res.Invariant, res.Evidence)
	return res
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

// storage-beyond-f turns a safety finding into unrecoverable only through
// what the finding is about (check.ExcuseFailure holds the rule's table
// tests; scenarios/excuse_scope_test.go runs it end to end): here a disk
// record damaged on every replica, but for another op than the finding's.
func TestStorageBeyondFScoped(t *testing.T) {
	cfg := storageConfig(1)
	cfg.Storage.AtlasOff = true
	c, err := newCluster(cfg, Attach{}, newTrace(nil, cfg.Replicas, nil))
	require.NoError(t, err)
	for i := 0; i < cfg.Replicas; i++ {
		require.NoError(t, c.CorruptEntry(i, 5, EntryBoth))
	}
	c.now = 10
	c.failure = &check.Failure{Invariant: "agreement", Evidence: "something", Tick: 9, Ops: []uint64{6}}
	res := Result{Verdict: VerdictSafety, Invariant: "agreement", Evidence: "t=9 something"}
	c.judgeStorage(&res)
	assert.Equal(t, VerdictSafety, res.Verdict, "slot 5's damage excuses nothing about op 6")
	assert.Nil(t, res.Excuse)

	// A pass is never touched, and a replica assertion is the replica's
	// own: no disk excuses a crash.
	pass := Result{Verdict: VerdictPass}
	c.judgeStorage(&pass)
	assert.Equal(t, VerdictPass, pass.Verdict)
	crash := Result{Verdict: VerdictCrash, Invariant: "recover_checkpoint_state"}
	c.judgeStorage(&crash)
	assert.Equal(t, VerdictCrash, crash.Verdict)
}

// An aimed checkpoint fault damages the newest record a crashing replica
// landed; its restart never restores it (it falls back, or comes back from
// the genesis state) and the run passes. Without the chance, nothing is drawn
// for it: the run is the same.
func TestAimedCheckpointFallsBack(t *testing.T) {
	fellBack := 0
	for seed := uint64(1); seed <= 12; seed++ {
		cfg := storageConfig(seed)
		cfg.CheckpointInterval = 32
		cfg.CrashChance = prng.Ratio{Num: 1, Den: 500}
		cfg.Storage.AimedCheckpoint = prng.Ratio{Num: 1, Den: 1}
		res := runExcused(t, cfg)
		fellBack += int(res.Marks[marks.StorageCheckpointOlder] + res.Marks[marks.StorageCheckpointLost])
	}
	assert.Positive(t, fellBack, "no restart met a damaged checkpoint record")

	// Drawn at a crash only: without crashes the chance changes nothing.
	quiet := storageConfig(5)
	quiet.CrashChance = prng.Ratio{}
	a, err := Run(quiet, Attach{})
	require.NoError(t, err)
	quiet.Storage.AimedCheckpoint = prng.Ratio{Num: 1, Den: 1}
	b, err := Run(quiet, Attach{})
	require.NoError(t, err)
	assert.Equal(t, a.TraceHash, b.TraceHash, "no crash, no draw")
}

// TestRotStopsAtTheLivenessPhase: with decaying media (Storage.RotMeanTicks)
// the disks decay through the fault phase, on every replica, and no decay
// lands once the liveness phase begins (disksim's StopRot): a verdict is
// judged on what stood when the stall began.
func TestRotStopsAtTheLivenessPhase(t *testing.T) {
	cfg := DefaultConfig(3)
	cfg.Storage = Storage{On: true, RotMeanTicks: 2000, AtlasOff: true}
	c, err := newCluster(cfg, Attach{}, newTrace(nil, cfg.Replicas, nil))
	require.NoError(t, err)
	c.initExpect()
	var res Result
	c.runLoop(&res)
	require.True(t, c.liveness.active, "the run reached its liveness phase")
	before, after := 0, 0
	for _, d := range c.disks.all {
		for _, f := range d.Faults() {
			switch {
			case f.Kind != disksim.FaultRot:
			case f.Tick < c.liveness.since:
				before++
			default:
				after++
			}
		}
	}
	assert.Positive(t, before, "the media decayed in the fault phase")
	assert.Zero(t, after, "and not once the liveness phase began")
}

// TestDiskAtlasKeepsASuperblock: with the atlas on, a crash that leaves every
// superblock copy damaged is the disk model past its own atlas, a crash
// verdict no storage excuse covers (tools/mutants' crash-tears-last-superblock
// plants it in the disk); with the atlas off the same damage is a fault the
// protocol is judged under (storage-beyond-f).
func TestDiskAtlasKeepsASuperblock(t *testing.T) {
	for _, off := range []bool{false, true} {
		cfg := storageConfig(3)
		cfg.Storage.AtlasOff = off
		cfg.CrashChance = prng.Ratio{}
		crashed := uint64(0)
		script := scriptFunc(func(c *Cluster, tick uint64) {
			if crashed != 0 || c.replicas[1] == nil || c.checker.CommittedMax() < 5 {
				return
			}
			for s := 0; s < diskSuperblocks; s++ {
				c.disks.r[1].disk.Corrupt(tick, disksim.ZoneSuperblock, s)
			}
			crashed = tick
			c.Crash(1)
		})
		res := runBreak(t, cfg, script)
		require.NotZero(t, crashed, "atlas off %t: the script never ran", off)
		if off {
			assert.NotEqual(t, VerdictCrash, res.Verdict, res.Evidence)
			continue
		}
		assert.Equal(t, VerdictCrash, res.Verdict)
		assert.Equal(t, "disk_atlas_keeps_a_superblock", res.Invariant)
		assert.Equal(t, crashed, res.Ticks, "at the crash")
	}
}

// TestAimedQuietCorruptOnlyOnAQuietDisk: with every random disk fault off,
// a crash of a replica whose disk met no fault yet takes the aimed
// corruption (AimedQuietCorrupt), and the runs pass; without the chance
// nothing is drawn for it and the run is the same as before.
func TestAimedQuietCorruptOnlyOnAQuietDisk(t *testing.T) {
	quiet := func(seed uint64, q prng.Ratio) Config {
		cfg := DefaultConfig(seed)
		cfg.CrashChance = prng.Ratio{Num: 1, Den: 800}
		cfg.Storage = Storage{On: true, LatencyMinTicks: 1, LatencyMeanTicks: 2, AimedQuietCorrupt: q}
		return cfg
	}
	aimed := 0
	for seed := uint64(1); seed <= 6; seed++ {
		res, err := Run(quiet(seed, prng.Ratio{Num: 1, Den: 1}), Attach{})
		require.NoError(t, err)
		assert.Contains(t, []Verdict{VerdictPass, VerdictUnrecoverable}, res.Verdict, "seed %d: %s %s", seed, res.Invariant, res.Evidence)
		aimed += res.StorageFaults
		off, err := Run(quiet(seed, prng.Ratio{}), Attach{})
		require.NoError(t, err)
		assert.Zero(t, off.StorageFaults, "seed %d: no fault drawn without the aim", seed)
	}
	assert.Positive(t, aimed, "no quiet disk's crash took the aimed corruption")
}
