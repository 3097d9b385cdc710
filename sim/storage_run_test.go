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
