package sim

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestLeaderCutOffOnlyWhenItSpeaksLate: the liveness phase cuts off a
// leader outside the core only for a kept fault on a link out of it to a
// core replica: a cut kept for good, or a link at least as slow as the
// heartbeat timeout (a 1-tick or 499-tick link only shifts every message).
// One that hears the core late, or cut, pushes its StartView instead (D28),
// and a fault towards a replica outside the core holds no core replica. Each
// cut-off is an assist with its rule and cause.
func TestLeaderCutOffOnlyWhenItSpeaksLate(t *testing.T) {
	late := DefaultConfig(1).Timeouts.HeartbeatTicks
	tests := []struct {
		name  string
		delay [2]int // a slow directed link, from -> to
		ticks uint64 // its extra delay (0: late)
		cut   [2]int // a kept directed cut, from -> to (-1: none)
		off   bool
	}{
		{"slow into the leader", [2]int{1, 0}, 0, [2]int{-1, -1}, false},
		{"cut into the leader", [2]int{-1, -1}, 0, [2]int{2, 0}, false},
		{"slow out of the leader to the core", [2]int{0, 1}, 0, [2]int{-1, -1}, true},
		{"1 tick out of the leader to the core", [2]int{0, 1}, 1, [2]int{-1, -1}, false},
		{"just under the heartbeat timeout", [2]int{0, 1}, late - 1, [2]int{-1, -1}, false},
		{"cut out of the leader to the core", [2]int{-1, -1}, 0, [2]int{0, 2}, true},
		{"slow out of the leader to a replica outside the core", [2]int{0, 3}, 0, [2]int{-1, -1}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg := DefaultConfig(1)
			cfg.Replicas = 4
			c, err := newCluster(cfg, Attach{}, newTrace(nil, nil, cfg.Replicas, nil))
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
			assert.True(t, c.net.Connected(0, 1) || c.net.Connected(1, 0), "the core gets its chance first")
			c.now++
			c.aimedInLiveness()
			assert.Equal(t, tt.off, !c.net.Connected(1, 0) && !c.net.Connected(0, 1), "r0 cut off both ways")
			assert.Equal(t, tt.off, len(c.aimed.kept) == 0, "a leader cut off is no longer watched")
			if !tt.off {
				assert.Empty(t, c.assists)
				return
			}
			require.Len(t, c.assists, 1)
			assert.Equal(t, Assist{Tick: c.now, Replica: 0, Rule: AssistLeaderCutOff, Cause: c.assists[0].Cause}, c.assists[0])
			assert.Regexp(t, `^link r0->r[12] (delays \d+ ticks|cut for good)`, c.assists[0].Cause)
		})
	}
}
