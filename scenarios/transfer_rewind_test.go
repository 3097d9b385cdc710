package scenarios_test

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"vsrsim/scenarios"
	"vsrsim/sim"
	"vsrsim/verify"
	"vsrsim/vsr"
)

// installWatch wraps a scenario's script and records r2's head just before
// and right after it installs a state transfer, and every DoViewChange
// dropped as unreadable after the install.
type installWatch struct {
	inner      sim.Script
	watching   bool
	headBefore uint64
	install    *vsr.Event
	headAfter  uint64
	unreadable int
}

func (w *installWatch) At(c *sim.Cluster, tick uint64) {
	if !w.watching {
		w.watching = true
		c.Watch(func(e *vsr.Event) {
			switch {
			case e.Kind == vsr.EvTransferInstall && e.Replica == 2 && w.install == nil:
				copied := *e
				w.install = &copied
				info, _ := c.Info(2)
				w.headAfter = info.Sequencer
			case e.Kind == vsr.EvDrop && e.Dropped().Reason == vsr.ReasonDVCUnreadable && w.install != nil:
				w.unreadable++
			}
		})
	}
	if w.install == nil {
		if info, ok := c.Info(2); ok {
			w.headBefore = info.Sequencer
		}
	}
	w.inner.At(c, tick)
}

// TestTransferBelowAdoptedHead (issue 4): a transfer installed below a
// StartView head the replica adopted leaves its head where it was, and the
// vote it then sends is readable: the view change that needs it completes.
// The bug switch is the control: the same install rewinds the head and the
// votes are dropped.
func TestTransferBelowAdoptedHead(t *testing.T) {
	s, err := scenarios.Lookup("transfer-rewind")
	require.NoError(t, err)
	for _, tc := range []struct {
		bugs     []string
		verdict  sim.Verdict
		keepHead bool
	}{
		{nil, sim.VerdictPass, true},
		{[]string{s.Bug}, sim.VerdictLiveness, false},
	} {
		for seed := uint64(1); seed <= 3; seed++ {
			cfg, at := shapeConfig(t, s, seed, tc.bugs)
			w := &installWatch{inner: at.Script}
			at.Script = w
			res, err := verify.Run(cfg, at)
			require.NoError(t, err)
			assert.Equal(t, tc.verdict, res.Verdict, "seed %d bugs %v: %s", seed, tc.bugs, res.Evidence)
			require.NotNil(t, w.install, "seed %d: r2 installed a transfer", seed)
			require.Less(t, w.install.Op, w.headBefore, "seed %d: the transfer lies below the adopted head", seed)
			if tc.keepHead {
				assert.Equal(t, w.headBefore, w.headAfter, "seed %d: the head stays", seed)
				assert.Zero(t, w.unreadable, "seed %d: every vote after the install is readable", seed)
			} else {
				assert.Equal(t, w.install.Op, w.headAfter, "seed %d: the defect rewinds the head to the transfer", seed)
				assert.NotZero(t, w.unreadable, "seed %d: the defect's votes are unreadable", seed)
			}
		}
	}
}

// TestTransferRewindGap: the narrow and the wide form fail differently. In
// both the defect rewinds r2 to the transfer point T below its adopted head H;
// narrow, its votes are merely unreadable, while wide (H - T > 128) each vote's
// window H-127..H also leaves ops T+1..H-128 above its commit point T and
// described by nothing, and the evidence names that gap. Fixed, no vote is
// dropped either way.
func TestTransferRewindGap(t *testing.T) {
	for _, name := range []string{"transfer-rewind", "transfer-rewind-wide"} {
		s, err := scenarios.Lookup(name)
		require.NoError(t, err)
		wide := name == "transfer-rewind-wide"
		keep := func(e *vsr.Event) bool {
			return e.Kind == vsr.EvTransferInstall && e.Replica == 2 ||
				e.Kind == vsr.EvDrop && (e.Dropped().Reason == vsr.ReasonDVCGap || e.Dropped().Reason == vsr.ReasonDVCUnreadable)
		}
		for seed := uint64(1); seed <= 3; seed++ {
			bug, w := runLogged(t, s, seed, []string{s.Bug}, keep)
			require.Equal(t, sim.VerdictLiveness, bug.Verdict, "%s seed %d: %s", name, seed, bug.Evidence)
			installs := w.of(vsr.EvTransferInstall)
			require.NotEmpty(t, installs, "%s seed %d", name, seed)
			T, H := installs[0].Op, installs[0].TransferInstalled().Head
			gaps, unreadable := 0, 0
			for _, e := range w.of(vsr.EvDrop) {
				if e.Dropped().Reason == vsr.ReasonDVCUnreadable {
					unreadable++
					continue
				}
				gaps++
				assert.Equal(t, T, e.Dropped().Commit, "%s seed %d: the vote's commit point is the transfer", name, seed)
				assert.Equal(t, H-(vsr.SuffixMax-1), e.Dropped().Detail, "%s seed %d: the window ends a window below the head", name, seed)
			}
			fix, fw := runLogged(t, s, seed, nil, keep)
			assert.Equal(t, sim.VerdictPass, fix.Verdict, "%s seed %d: %s", name, seed, fix.Evidence)
			assert.Empty(t, fw.of(vsr.EvDrop), "%s seed %d: no vote dropped", name, seed)
			if !wide {
				assert.LessOrEqual(t, H-T, uint64(vsr.SuffixMax), "%s seed %d", name, seed)
				assert.Zero(t, gaps, "%s seed %d: the narrow window reaches the commit point", name, seed)
				assert.Positive(t, unreadable, "%s seed %d", name, seed)
				continue
			}
			assert.Greater(t, H-T, uint64(vsr.SuffixMax), "%s seed %d: the head is more than a window above", name, seed)
			assert.Zero(t, unreadable, "%s seed %d: every dropped vote names its gap", name, seed)
			assert.Positive(t, gaps, "%s seed %d", name, seed)
			assert.Contains(t, bug.Evidence, fmt.Sprintf("ops %d..%d lie above the vote's commit %d and below its window, which starts at %d",
				T+1, H-vsr.SuffixMax, T, H-(vsr.SuffixMax-1)), "%s seed %d", name, seed)

		}
	}
}
