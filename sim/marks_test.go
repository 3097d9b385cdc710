package sim_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"vsrsim/marks"
	"vsrsim/marks/markstest"
	"vsrsim/packetsim"
	"vsrsim/prng"
	"vsrsim/sim"
)

// A run counts the branches it took, the same on every run of a seed, and the
// counts stay out of the trace hash.
func TestRunMarksEndToEnd(t *testing.T) {
	tests := []struct {
		name string
		cfg  func() sim.Config
		want []marks.Mark
	}{
		{"checkpoints on a default run", func() sim.Config { return sim.DefaultConfig(3) }, []marks.Mark{marks.Checkpoint}},
		{"a corrupting network fails checksums", func() sim.Config {
			c := sim.DefaultConfig(3)
			c.Network.Corrupt = prng.Ratio{Num: 1, Den: 50}
			return c
		}, []marks.Mark{marks.NetCorrupt, marks.Checkpoint}},
		{"a damaging network runs the replicas' own checksums", func() sim.Config {
			c := sim.DefaultConfig(3)
			c.Network.Corrupt = prng.Ratio{Num: 1, Den: 50}
			c.Network.CorruptDelivered = true
			return c
		}, []marks.Mark{marks.NetCorrupt, marks.DropBadChecksum}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			a, err := sim.Run(tc.cfg(), sim.Attach{})
			require.NoError(t, err)
			b, err := sim.Run(tc.cfg(), sim.Attach{})
			require.NoError(t, err)
			markstest.AssertReached(t, &a.Marks, tc.want...)
			assert.Equal(t, a.Marks, b.Marks, "marks differ between two runs of one seed")
			assert.Equal(t, sim.VerdictPass, a.Verdict, a.Evidence)
		})
	}
}

// Corruption is its own drop reason: a network with it drops packets as
// corrupt and runs differently; one without it drops none so.
func TestCorruptDropsPackets(t *testing.T) {
	plain, err := sim.Run(sim.DefaultConfig(7), sim.Attach{})
	require.NoError(t, err)
	cfg := sim.DefaultConfig(7)
	cfg.Network.Corrupt = prng.Ratio{Num: 1, Den: 20}
	noisy, err := sim.Run(cfg, sim.Attach{})
	require.NoError(t, err)
	assert.Zero(t, plain.Stats.Network.Dropped[packetsim.Corrupt])
	assert.NotZero(t, noisy.Stats.Network.Dropped[packetsim.Corrupt], "no packet was dropped as corrupt")
	assert.NotEqual(t, plain.TraceHash, noisy.TraceHash)
	assert.False(t, noisy.Marks.Reached(marks.DropBadChecksum), "a dropped packet reached a replica's checksum")
}
