package scenarios_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"vsrsim/replica"
	"vsrsim/scenarios"
	"vsrsim/sim"
	"vsrsim/verify"
)

// installWatch wraps a scenario's script and records r2's head just before
// and right after it installs a state transfer, and every DoViewChange
// dropped as unreadable after the install.
type installWatch struct {
	inner      sim.Script
	watching   bool
	headBefore uint64
	install    *replica.Event
	headAfter  uint64
	unreadable int
}

func (w *installWatch) At(c *sim.Cluster, tick uint64) {
	if !w.watching {
		w.watching = true
		c.Watch(func(e *replica.Event) {
			switch {
			case e.Kind == replica.EvTransferInstall && e.Replica == 2 && w.install == nil:
				copied := *e
				w.install = &copied
				info, _ := c.Info(2)
				w.headAfter = info.Sequencer
			case e.Kind == replica.EvDrop && e.Reason == "dvc-unreadable" && w.install != nil:
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
			cfg := scenarioConfig(t, s, seed, tc.bugs)
			w := &installWatch{inner: cfg.Script}
			cfg.Script = w
			res, err := verify.Run(cfg, nil)
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
