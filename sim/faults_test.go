package sim

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"vsrsim/prng"
	"vsrsim/replica"
	"vsrsim/sim/check"
	"vsrsim/vsr"
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
			allowed := n - vsr.QuorumViewChange(n)
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
		assert.Greater(t, w.most, cfg.Replicas-vsr.QuorumViewChange(cfg.Replicas))
	})
}

// TestCrashPeersHitsThePrimary: while a backup repairs after a cut, an aimed
// crash takes that backup, or with CrashPeers the primary instead, so the
// view change that follows needs the lagging backup's vote.
func TestCrashPeersHitsThePrimary(t *testing.T) {
	for _, peers := range []bool{false, true} {
		cfg := DefaultConfig(3)
		cfg.Replicas = 3
		cfg.CrashChance = prng.Ratio{}
		cfg.Aimed.CrashPeers = peers
		c, err := newCluster(cfg, Attach{}, newTrace(nil, cfg.Replicas, nil))
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

// TestLeaderCutOffOnlyForASourceProtocol: the liveness phase cuts off a
// leader outside the core only in a run of a source protocol, and only for a
// kept fault on a link to or from a core replica that the source cannot get
// past (a cut kept for good, or a link at least as slow as the heartbeat
// timeout; a 1-tick or 499-tick link only shifts every message). Without
// abdication: a link into the leader (a primary that cannot hear its backups
// never steps down). Without relayed views: a link out of it (a core backup
// that cannot hear it is handed the view by nobody, D21, D28). The robust
// protocol is never helped (D43), nor is a fault towards a replica outside
// the core. Each cut-off is an assist with its rule and cause.
func TestLeaderCutOffOnlyForASourceProtocol(t *testing.T) {
	late := DefaultConfig(1).Timeouts.HeartbeatTicks
	tests := []struct {
		name  string
		delay [2]int // a slow directed link, from -> to
		ticks uint64 // its extra delay (0: late)
		cut   [2]int // a kept directed cut, from -> to (-1: none)
		into  bool   // a late link into the leader from the core
		outOf bool   // a late link out of the leader to the core
	}{
		{"slow into the leader", [2]int{1, 0}, 0, [2]int{-1, -1}, true, false},
		{"cut into the leader", [2]int{-1, -1}, 0, [2]int{2, 0}, true, false},
		{"1 tick into the leader", [2]int{1, 0}, 1, [2]int{-1, -1}, false, false},
		{"just under the heartbeat timeout", [2]int{1, 0}, late - 1, [2]int{-1, -1}, false, false},
		{"slow out of the leader to the core", [2]int{0, 1}, 0, [2]int{-1, -1}, false, true},
		{"cut out of the leader to the core", [2]int{-1, -1}, 0, [2]int{0, 2}, false, true},
		{"1 tick out of the leader", [2]int{0, 1}, 1, [2]int{-1, -1}, false, false},
		{"slow into the leader from outside the core", [2]int{3, 0}, 0, [2]int{-1, -1}, false, false},
		{"slow out of the leader to outside the core", [2]int{0, 3}, 0, [2]int{-1, -1}, false, false},
	}
	protocols := []struct {
		name string
		p    replica.Protocol
	}{
		{"robust", replica.Protocol{}},
		{"abdication-off", replica.Protocol{AbdicationOff: true}},
		{"relay-start-view-off", replica.Protocol{RelayStartViewOff: true}},
	}
	for _, pr := range protocols {
		for _, tt := range tests {
			t.Run(tt.name+"/"+pr.name, func(t *testing.T) {
				cfg := DefaultConfig(1)
				cfg.Replicas = 4
				cfg.Protocol = pr.p
				c, err := newCluster(cfg, Attach{}, newTrace(nil, cfg.Replicas, nil))
				require.NoError(t, err)
				require.True(t, c.replicas[0].Info().Primary, "r0 leads view 0")
				c.liveness = livenessState{active: true, core: []int{1, 2}}
				c.aimed.kept = []int{0}
				if tt.delay[0] >= 0 {
					ticks := tt.ticks
					if ticks == 0 {
						ticks = late
					}
					c.net.SetExtraDelay(tt.delay[0], tt.delay[1], ticks)
				}
				if tt.cut[0] >= 0 {
					c.net.SetLinkDown(tt.cut[0], tt.cut[1], true)
					c.aimed.keptLinks = append(c.aimed.keptLinks, tt.cut[0]*c.nodes()+tt.cut[1])
				}
				c.now = cfg.StableTicks*cutOffGraceStable - 1
				c.aimedInLiveness()
				assert.Empty(t, c.assists, "the core gets its chance first")
				c.now++
				c.aimedInLiveness()
				want := (pr.p.AbdicationOff && tt.into) || (pr.p.RelayStartViewOff && tt.outOf)
				assert.Equal(t, want, !c.net.Connected(1, 0) && !c.net.Connected(0, 1) && !c.net.Connected(0, 2), "r0 cut off both ways")
				if !want {
					assert.Empty(t, c.assists)
					return
				}
				require.Len(t, c.assists, 1)
				assert.Equal(t, Assist{Tick: c.now, Replica: 0, Rule: AssistLeaderCutOff, Cause: c.assists[0].Cause}, c.assists[0])
				assert.Regexp(t, `^link r\d->r\d (delays \d+ ticks.*|cut for good) \((abdication|relay) off\)$`, c.assists[0].Cause)
			})
		}
	}
}

// TestStragglerCutOffOnlyWhenTheViewClimbs: a source protocol's straggler
// outside the core (it hears the core later than the heartbeat timeout) is
// cut off once the grace is over only if the core's view has climbed three
// views since the phase began, the mark of the livelock it causes (D27,
// D38); a core that holds its view keeps it.
func TestStragglerCutOffOnlyWhenTheViewClimbs(t *testing.T) {
	for _, climbed := range []bool{false, true} {
		c, core := lateStraggler(t)
		c.checker.StartLiveness(0, core)
		if climbed {
			for _, i := range core {
				c.checker.Status(1, i, check.StatusViewChange, 3, 0, 0, 0)
			}
		}
		c.now = c.cutOffGrace()
		c.aimedInLiveness()
		cut := !c.net.Connected(2, 0) && !c.net.Connected(0, 2)
		assert.Equal(t, climbed, cut, "view climbed: %v", climbed)
		if climbed {
			require.Len(t, c.assists, 1)
			assert.Equal(t, AssistSourceStraggler, c.assists[0].Rule)
			assert.Contains(t, c.assists[0].Cause, "link r0->r2 delays")
		} else {
			assert.Empty(t, c.assists)
		}
		assert.Empty(t, c.aimed.stragglers, "the decision is taken once")
	}
}

// TestStragglerHoldingWhatTheCoreNeedsIsHealed: a source protocol's
// straggler whose cut-off would strand an op (r0 acked op 3 and its disk
// lost it; r2 outside the core holds the only copy left) has its late link
// healed instead of being cut off, an assist named holder-healed (D64;
// swarm seed 1488, whose cut-off of the holder ended the run stalled).
func TestStragglerHoldingWhatTheCoreNeedsIsHealed(t *testing.T) {
	for _, holds := range []bool{false, true} { // r2 holds the last copy, or r1 in the core holds one
		c, core := lateStraggler(t)
		const op, sum = 3, 0xc3
		c.checker.Journaled(0, op, sum)
		c.checker.AckSent(0, op, sum)
		if holds {
			c.checker.Journaled(2, op, sum)
		} else {
			c.checker.Journaled(1, op, sum)
		}
		c.checker.Crash(1, 0)
		c.checker.DiskCopies(1, 0, func(o, _ uint64) (bool, bool) { return o != op, true })
		c.checker.Restart(1, 0, 0)
		c.checker.StartLiveness(1, core)
		for _, i := range core {
			c.checker.Status(2, i, check.StatusViewChange, 3, 0, 0, 0)
		}
		c.now = c.cutOffGrace()
		c.aimedInLiveness()
		require.Len(t, c.assists, 1)
		if !holds {
			assert.Equal(t, AssistSourceStraggler, c.assists[0].Rule, "the core holds op 3: a cut-off strands nothing")
			assert.False(t, c.net.Connected(0, 2))
			continue
		}
		assert.Equal(t, AssistHolderHealed, c.assists[0].Rule)
		assert.Contains(t, c.assists[0].Cause, "a cut-off would leave op 3 undecidable in the core")
		assert.True(t, c.net.Connected(0, 2) && c.net.Connected(2, 0), "r2 stays in reach")
		assert.Zero(t, c.net.ExtraDelay(0, 2), "its late link healed")
		assert.NotContains(t, c.aimed.kept, 2, "no longer watched as a kept replica")
	}
}

// lateStraggler is a source protocol's cluster in its liveness phase, core
// r0,r1, whose r2 hears r0 as late as the heartbeat timeout: a straggler.
func lateStraggler(t *testing.T) (*Cluster, []int) {
	t.Helper()
	cfg := DefaultConfig(1)
	cfg.Protocol.SVCQuorumOff = true
	c, err := newCluster(cfg, Attach{}, newTrace(nil, cfg.Replicas, nil))
	require.NoError(t, err)
	core := []int{0, 1}
	c.net.SetExtraDelay(0, 2, cfg.Timeouts.HeartbeatTicks)
	c.liveness = livenessState{active: true, core: core}
	c.aimedAtLiveness(core)
	require.Len(t, c.aimed.stragglers, 1, "r2 hears r0 late")
	return c, core
}
