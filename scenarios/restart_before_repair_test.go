package scenarios_test

import (
	"regexp"
	"strconv"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"vsrsim/scenarios"
	"vsrsim/sim"
	"vsrsim/vsr"
)

var droppedOp = regexp.MustCompile(`truncation dropped committed op (\d+) `)

// TestRestartBeforeRepair (failure-shapes.md 6): r2 installs a transfer at T
// below its adopted head H, acks ops above H that r1 commits, and restarts
// before repair fetched T+1..H. Fixed, the restart resumes the adopted head
// (and the ops chained above it) and the run passes. With the defect it comes
// back with its head at T, and the view change that follows truncates the
// first op committed above H: the evidence names that op and its quorum.
func TestRestartBeforeRepair(t *testing.T) {
	s, err := scenarios.Lookup("restart-before-repair")
	require.NoError(t, err)
	keep := func(e *vsr.Event) bool {
		return e.Replica == 2 && (e.Kind == vsr.EvTransferInstall || e.Kind == vsr.EvStatus) ||
			e.Replica == 1 && e.Kind == vsr.EvPrimaryCommit
	}
	for _, tc := range []struct {
		bugs    []string
		verdict sim.Verdict
	}{
		{nil, sim.VerdictPass},
		{[]string{s.Bug}, sim.VerdictSafety},
	} {
		for seed := uint64(1); seed <= 5; seed++ {
			res, w := runLogged(t, s, seed, tc.bugs, keep)
			assert.Equal(t, tc.verdict, res.Verdict, "seed %d bugs %v: %s", seed, tc.bugs, res.Evidence)
			var install *vsr.Event
			var resumed *vsr.Event
			for i := range w.events {
				e := &w.events[i]
				switch {
				case e.Kind == vsr.EvTransferInstall && install == nil:
					install = e
				case e.Kind == vsr.EvStatus && install != nil && resumed == nil:
					resumed = e // the first status after the install is the restart's
				}
			}
			require.NotNil(t, install, "seed %d: r2 installed a transfer", seed)
			require.NotNil(t, resumed, "seed %d: r2 restarted", seed)
			T, H := install.Op, install.TransferInstalled().Head
			require.Less(t, T, H, "seed %d: the transfer lies below the adopted head", seed)
			committedAbove := map[uint64]bool{}
			for _, e := range w.of(vsr.EvPrimaryCommit) {
				if e.Op > H {
					committedAbove[e.Op] = true
				}
			}
			require.True(t, committedAbove[H+1], "seed %d: r1 committed op %d above the adopted head", seed, H+1)
			assert.Equal(t, uint64(1), resumed.StatusChanged().LogView, "seed %d: r2 comes back in the adopted view", seed)
			if tc.bugs == nil {
				assert.GreaterOrEqual(t, resumed.Op, H+2, "seed %d: the restart keeps the head and the ops acked above it", seed)
				continue
			}
			assert.Equal(t, T, resumed.Op, "seed %d: the defect puts the head at the install op", seed)
			assert.Equal(t, "durability", res.Invariant, "seed %d", seed)
			// The truncation runs from the top of r2's journal down, so the
			// evidence names the highest op r1 committed on r2's ack.
			m := droppedOp.FindStringSubmatch(res.Evidence)
			require.Len(t, m, 2, "seed %d: %s", seed, res.Evidence)
			op, err := strconv.ParseUint(m[1], 10, 64)
			require.NoError(t, err)
			assert.True(t, committedAbove[op], "seed %d: op %d was committed above the adopted head %d", seed, op, H)
			assert.Contains(t, res.Evidence, "r2's view-2 truncation", "seed %d: r2's own vote cut it", seed)
			assert.Contains(t, res.Evidence, "committed in view 1 on acks from r1,r2", "seed %d", seed)
		}
	}
}
