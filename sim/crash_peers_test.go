package sim

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"vsrsim/prng"
)

// TestCrashPeersHitsThePrimary: while a backup repairs after a cut, an aimed
// crash takes that backup, or with CrashPeers the primary instead, so the
// view change that follows needs the lagging backup's vote.
func TestCrashPeersHitsThePrimary(t *testing.T) {
	for _, peers := range []bool{false, true} {
		cfg := DefaultConfig(3)
		cfg.Replicas = 3
		cfg.CrashChance = prng.Ratio{}
		cfg.Aimed.CrashPeers = peers
		c, err := newCluster(cfg, Attach{}, newTrace(nil, nil, cfg.Replicas, nil))
		require.NoError(t, err)
		c.initExpect()
		c.aimed.rng = prng.New(cfg.Seed, prng.StreamAimed)
		lagging := -1
		for c.now = 1; c.now < 3000 && lagging < 0; c.now++ {
			switch c.now {
			case 200:
				c.net.SetLinkDown(0, 2, true)
			case 800:
				c.net.SetLinkDown(0, 2, false)
			}
			c.step()
			if c.now > 800 {
				if info := c.replicas[2].Info(); info.CommitMin < info.CommitMax && !info.Transferring {
					lagging = 2
				}
			}
		}
		require.Equal(t, 2, lagging, "r2 repairs after the cut")
		p, ok := c.currentPrimary()
		require.True(t, ok)
		require.NotEqual(t, 2, p)
		c.crashAimed()
		if peers {
			assert.Nil(t, c.replicas[p], "the primary crashed")
			assert.NotNil(t, c.replicas[2], "the lagging backup lives")
		} else {
			assert.Nil(t, c.replicas[2], "the lagging backup crashed")
			assert.NotNil(t, c.replicas[p], "the primary lives")
		}
	}
}
