package sim_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"vsrsim/marks"
	"vsrsim/packetsim"
	"vsrsim/replica"
	"vsrsim/sim"
)

// raceSeeds returns the first count swarm seeds that fall in the
// transfer-race focus (slices 0, 1 and 2), with their slice.
func raceSeeds(count int) (seeds, slices []uint64) {
	for seed := uint64(1); len(seeds) < count; seed++ {
		if k := sim.FocusSlice(seed); k <= 2 {
			seeds = append(seeds, seed)
			slices = append(slices, k)
		}
	}
	return seeds, slices
}

// Every seed of the focus draws the race's conditions: a busy 64-slot
// cluster, damaged packets delivered, one backup behind a slow inbound
// link, and the journal its slice names.
func TestFocusTransferRaceDraws(t *testing.T) {
	seeds, slices := raceSeeds(60)
	for i, seed := range seeds {
		c := sim.SwarmConfig(seed)
		require.NoError(t, c.Validate(), "seed %d", seed)
		want := replica.DurabilityMemory
		if slices[i] == 2 {
			want = replica.DurabilityWAL
		}
		assert.Equal(t, want, c.Durability, "seed %d", seed)
		assert.Equal(t, 64, c.JournalSlots, "seed %d", seed)
		assert.GreaterOrEqual(t, c.Clients, 30, "seed %d", seed)
		assert.True(t, c.Network.CorruptDelivered && !c.Network.Corrupt.Zero(), "seed %d", seed)
		require.Len(t, c.ExtraDelays, 1, "seed %d", seed)
		d := c.ExtraDelays[0]
		assert.Equal(t, packetsim.AnyNode, d.From, "seed %d", seed)
		assert.True(t, d.To > 0 && d.To < c.Replicas, "seed %d: the laggard is a backup", seed)
		assert.GreaterOrEqual(t, d.Ticks, uint64(150), "seed %d", seed)
	}
}

// The focus's first eight seeds pass with every fix on and take state
// transfers that meet damaged chunks: six of them transfer and two meet a
// damaged chunk, where without the focus three transfer and none meets one.
func TestFocusTransferRaceReachesMarks(t *testing.T) {
	if testing.Short() {
		t.Skip("runs eight swarm seeds")
	}
	seeds, _ := raceSeeds(8)
	var runs marks.Runs
	for _, seed := range seeds {
		res, err := sim.Run(sim.SwarmConfig(seed), nil)
		require.NoError(t, err, "seed %d", seed)
		assert.Contains(t, []sim.Verdict{sim.VerdictPass, sim.VerdictUnrecoverable}, res.Verdict, "seed %d: %s", seed, res.Evidence)
		runs.Add(&res.Marks)
	}
	for _, tc := range []struct {
		mark marks.Mark
		min  uint64
	}{
		{marks.TransferStarted, 5},
		{marks.TransferInstall, 5},
		{marks.DropChunkCorrupt, 1},
	} {
		assert.GreaterOrEqual(t, uint64(runs[tc.mark]), tc.min, "%s", tc.mark)
	}
}
