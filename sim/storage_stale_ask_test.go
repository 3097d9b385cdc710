package sim

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"vsrsim/prng"
)

// TestStaleAskSteersAPeerAtTheStaleReplica: a stale entry found (an aimed
// lost rewrite at r0) steers a peer as the next tick starts: one up that is
// neither r0 nor the primary crashes and is armed; its restart cuts its
// links out to every replica but r0, for a while, and disarms it. A peer
// down already is armed without a crash.
func TestStaleAskSteersAPeerAtTheStaleReplica(t *testing.T) {
	c := onDisks(t, Storage{AimedLostRewrite: prng.Ratio{Num: 1, Den: 1}, AimedStaleAsk: prng.Ratio{Num: 1, Den: 1}})
	st := &c.disks.staleAsk
	primary, ok := c.currentPrimary()
	require.True(t, ok)
	server := (primary + 1) % 3
	peer := (primary + 2) % 3
	c.aimStaleAsk(server, 7)
	require.Len(t, st.due, 1, "steered as the next tick starts")
	assert.NotNil(t, c.replicas[peer], "nothing crashed in the write path")
	c.now++
	c.injectStaleAsk()
	assert.Empty(t, st.due)
	assert.Nil(t, c.replicas[peer], "the one peer neither stale nor primary crashed")
	assert.Equal(t, server+1, st.server[peer], "armed at the stale replica")
	assert.NotNil(t, c.replicas[primary], "the primary is left alone")

	c.Restart(peer)
	assert.Zero(t, st.server[peer], "taken at the restart")
	nodes := c.nodes()
	require.NotEmpty(t, c.aimed.active, "a cut held")
	f := c.aimed.active[len(c.aimed.active)-1]
	assert.ElementsMatch(t, []int{peer*nodes + primary}, f.links, "its links out but to the stale replica")
	assert.Greater(t, f.until, c.now+c.lateTicks(), "longer than a backup waits to hear")

	// A peer down already is armed, not crashed again.
	c.Crash(peer)
	c.aimStaleAsk(server, 9)
	c.now++
	c.injectStaleAsk()
	assert.Equal(t, server+1, st.server[peer], "armed while down")
	assert.Equal(t, uint64(9), st.op[peer])
}

// The stale ask moves only runs that set it: a run that aims lost rewrites
// replays its trace; with the chance set, the peers it steers change the
// trace, and the runs still pass or are excused.
func TestStaleAskDrawsOnlyWhenSet(t *testing.T) {
	steered := 0
	for seed := uint64(1); seed <= 6; seed++ {
		cfg := storageConfig(seed)
		cfg.Replicas = 5
		cfg.CrashChance = prng.Ratio{Num: 1, Den: 500}
		cfg.Storage.AimedLostRewrite = prng.Ratio{Num: 1, Den: 1}
		base, err := Run(cfg, Attach{})
		require.NoError(t, err)
		again, err := Run(cfg, Attach{})
		require.NoError(t, err)
		assert.Equal(t, base.TraceHash, again.TraceHash)
		cfg.Storage.AimedStaleAsk = prng.Ratio{Num: 1, Den: 1}
		res := runExcused(t, cfg)
		if res.TraceHash != base.TraceHash {
			steered++
		}
	}
	assert.Positive(t, steered, "no stale entry ever steered a peer")
}
