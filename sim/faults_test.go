package sim

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"vsrsim/prng"
	"vsrsim/replica"
)

// downWatch is a script that records the most replicas down or without their
// journal at once during the fault phase, from the oracle's fault record.
type downWatch struct{ most int }

func (w *downWatch) At(c *Cluster, tick uint64) {
	if tick <= c.cfg.FaultTicks {
		w.most = max(w.most, c.checker.NotWhole())
	}
}

// TestCrashesKeepAViewChangeQuorum: by default the fault phase never takes
// down more replicas than leave a view-change quorum up, for every cluster
// size; CrashesUnbounded lifts the bound.
func TestCrashesKeepAViewChangeQuorum(t *testing.T) {
	for n := 2; n <= 7; n++ {
		t.Run(fmt.Sprintf("replicas=%d", n), func(t *testing.T) {
			allowed := n - replica.QuorumViewChange(n)
			most := 0
			for seed := uint64(1); seed <= 3; seed++ {
				cfg := DefaultConfig(seed)
				cfg.Replicas = n
				cfg.CrashChance = prng.Ratio{Num: 1, Den: 200}
				cfg.RestartMeanTicks = 800
				w := &downWatch{}
				_, err := Run(cfg, Attach{Script: w})
				require.NoError(t, err)
				most = max(most, w.most)
			}
			assert.LessOrEqual(t, most, allowed, "at most n - view-change quorum down")
			if allowed > 0 {
				assert.Equal(t, allowed, most, "the crash rate is high enough to reach the bound")
			}
		})
	}
	t.Run("unbounded", func(t *testing.T) {
		cfg := DefaultConfig(1)
		cfg.CrashChance = prng.Ratio{Num: 1, Den: 200}
		cfg.RestartMeanTicks = 800
		cfg.CrashesUnbounded = true
		w := &downWatch{}
		_, err := Run(cfg, Attach{Script: w})
		require.NoError(t, err)
		assert.Greater(t, w.most, cfg.Replicas-replica.QuorumViewChange(cfg.Replicas))
	})
}
