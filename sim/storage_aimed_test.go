package sim_test

import (
	"bytes"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"vsrsim/marks"
	"vsrsim/prng"
	"vsrsim/replica"
	"vsrsim/sim"
	"vsrsim/sim/ndjson"
)

// superblockLossConfig is a run on disks with the atlas off, crashes, and
// every crash aimed to take the superblock.
func superblockLossConfig(seed uint64) sim.Config {
	cfg := sim.DefaultConfig(seed)
	cfg.Durability = replica.DurabilityWAL
	cfg.CrashChance = prng.Ratio{Num: 1, Den: 300}
	cfg.Storage = sim.Storage{On: true, LatencyMinTicks: 1, LatencyMeanTicks: 4, AtlasOff: true,
		AimedSuperblockLoss: prng.Ratio{Num: 1, Den: 1}}
	return cfg
}

// An aimed superblock loss, with the atlas off, takes every superblock copy
// of one crashing replica, once a run: its restart comes back amnesiac
// (storage-superblock-lost), under a fresh incarnation, and the run passes or
// is judged beyond the atlas. With the atlas on it draws nothing, and the run
// is the same.
func TestAimedSuperblockLossOncePerRun(t *testing.T) {
	lost := 0
	for seed := uint64(1); seed <= 8; seed++ {
		var trace bytes.Buffer
		res, err := sim.Run(superblockLossConfig(seed), sim.Attach{Observer: ndjson.New(&trace, ndjson.Filter{})})
		require.NoError(t, err)
		assert.Contains(t, []sim.Verdict{sim.VerdictPass, sim.VerdictUnrecoverable}, res.Verdict, "seed %d: %s %s", seed, res.Invariant, res.Evidence)
		assert.NotContains(t, res.Evidence, "stamped incarnation", "seed %d: an amnesiac life stamps a fresh incarnation", seed)
		assert.LessOrEqual(t, strings.Count(trace.String(), "aimed superblock loss"), 1, "seed %d: once a run", seed)
		lost += int(res.Marks[marks.StorageSuperblockLost])
	}
	assert.Positive(t, lost, "no restart came back without a superblock")

	on := superblockLossConfig(3)
	on.Storage.AtlasOff = false
	a, err := sim.Run(on, sim.Attach{})
	require.NoError(t, err)
	on.Storage.AimedSuperblockLoss = prng.Ratio{}
	b, err := sim.Run(on, sim.Attach{})
	require.NoError(t, err)
	assert.Equal(t, b.TraceHash, a.TraceHash, "the atlas on: nothing drawn")
	assert.Zero(t, a.Marks[marks.StorageSuperblockLost])
}
