package sim

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"vsrsim/prng"
	"vsrsim/replica"
	"vsrsim/vsr"
)

// transferWatch cuts r2 off until the others committed `lead` ops, heals it,
// slows the writes to one request per simulated second, and records when r2
// installed a transfer and when it caught up with r0 (same commit point, same
// state checksum).
type transferWatch struct {
	lead       uint64
	healedAt   uint64
	installs   int
	caughtUpAt uint64
	watching   bool
}

func (w *transferWatch) At(c *Cluster, tick uint64) {
	if !w.watching {
		w.watching = true
		c.Watch(func(e *vsr.Event) {
			if e.Kind == vsr.EvTransferInstall && e.Replica == 2 {
				w.installs++
			}
		})
		cut(c, true)
	}
	r0, r2 := c.replicas[0], c.replicas[2]
	if w.healedAt == 0 {
		if r0.Info().CommitMin >= w.lead {
			cut(c, false)
			// One client thinking 100 ticks: one request per second.
			c.SetThinkTicks(100, true)
			w.healedAt = tick
		}
		return
	}
	if w.caughtUpAt == 0 && w.installs > 0 {
		i0, i2 := r0.Info(), r2.Info()
		if i2.CommitMin == i0.CommitMin && r2.StateChecksum() == r0.StateChecksum() {
			w.caughtUpAt = tick
		}
	}
}

func cut(c *Cluster, down bool) {
	for _, peer := range []int{0, 1} {
		c.net.SetLinkDown(2, peer, down)
		c.net.SetLinkDown(peer, 2, down)
	}
}

// TestStateTransferConverges (issue 4): 3 replicas, 64 journal slots, r2 cut
// off while the others commit 500 ops, then healed under one write per
// second: r2 installs a transfer and reaches the same commit point and state
// as r0 within a bounded number of ticks.
func TestStateTransferConverges(t *testing.T) {
	const bound = 3000 // ticks from the heal: 30 simulated seconds
	for seed := uint64(1); seed <= 5; seed++ {
		cfg := DefaultConfig(seed)
		cfg.Replicas = 3
		cfg.Clients = 1
		cfg.JournalSlots = 64
		cfg.CheckpointInterval = 32
		cfg.CrashChance = prng.Ratio{}
		cfg.Network.PartitionMode = 0
		cfg.Network.PartitionChance = prng.Ratio{}
		cfg.Network.Loss = prng.Ratio{}
		cfg.Network.Clog = prng.Ratio{}
		cfg.ExtraDelays = nil
		cfg.RequestMeanTicks = 1
		cfg.ThinkSteady = true
		cfg.FaultTicks = 20_000
		w := &transferWatch{lead: 500}
		res, err := Run(cfg, Attach{Script: w})
		require.NoError(t, err)
		assert.Equal(t, VerdictPass, res.Verdict, "seed %d: %s", seed, res.Evidence)
		require.NotZero(t, w.healedAt, "seed %d: the others committed %d ops", seed, w.lead)
		assert.GreaterOrEqual(t, w.installs, 1, "seed %d: r2 installed a transfer", seed)
		require.NotZero(t, w.caughtUpAt, "seed %d: r2 caught up", seed)
		assert.LessOrEqual(t, w.caughtUpAt-w.healedAt, uint64(bound), "seed %d", seed)
		t.Logf("seed %d: healed at %d, caught up %d ticks later", seed, w.healedAt, w.caughtUpAt-w.healedAt)
	}
}

// TestSmallJournalSeeds: with 64 journal slots the default fault mix passes
// on both journal kinds, and a real share of memory-journal runs goes through
// a state transfer (a replica that restarts from a write-ahead journal rejoins
// with its log and seldom falls that far behind). (The closing sweep covers
// seeds 1..500; this keeps 1..100 in every test run.)
func TestSmallJournalSeeds(t *testing.T) {
	transfers := map[replica.Durability]int{}
	for _, d := range []replica.Durability{replica.DurabilityWAL, replica.DurabilityMemory} {
		for seed := uint64(1); seed <= 100; seed++ {
			cfg := DefaultConfig(seed)
			cfg.JournalSlots = 64
			cfg.Durability = d
			res, err := Run(cfg, Attach{})
			require.NoError(t, err)
			assert.False(t, res.Verdict.Failed(), "seed %d %s: %s %s", seed, d, res.Invariant, res.Evidence)
			if res.Stats.StateTransfers > 0 {
				transfers[d]++
			}
		}
	}
	assert.GreaterOrEqual(t, transfers[replica.DurabilityMemory], 3, "state transfers happen in small-journal runs")
	t.Logf("of 100 runs each, %d (wal) and %d (memory) installed a state transfer",
		transfers[replica.DurabilityWAL], transfers[replica.DurabilityMemory])
}
