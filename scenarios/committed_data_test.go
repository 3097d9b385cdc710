package scenarios_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"vsrsim/sim"
	"vsrsim/sim/swarm"
	"vsrsim/verify"
	"vsrsim/vsr"
)

// pruneWatch records every journal entry a replica pruned whose op and
// checksum some replica committed (before or after the prune).
type pruneWatch struct {
	watching  bool
	committed map[uint64]uint64 // op -> checksum
	pruned    []vsr.Event
}

func (w *pruneWatch) At(c *sim.Cluster, _ uint64) {
	if w.watching {
		return
	}
	w.watching = true
	c.Watch(func(e *vsr.Event) {
		switch e.Kind {
		case vsr.EvCommit:
			w.committed[e.Op] = e.Checksum
		case vsr.EvJournalPrune:
			w.pruned = append(w.pruned, *e)
		}
	})
}

func (w *pruneWatch) committedPrunes() []vsr.Event {
	var out []vsr.Event
	for _, e := range w.pruned {
		if sum, ok := w.committed[e.Op]; ok && sum == e.Checksum {
			out = append(out, e)
		}
	}
	return out
}

// TestCommittedBodyNeverPruned: in swarm seeds 1499 and 13210 (WAL) a
// StartView's chain walk met a gap below the view's lowest header and pruned
// the committed ops beneath it, the last live copy of one of them. The walk
// keeps such bodies aside until the chain vouches for them again, so no
// replica prunes a committed op and the run passes.
func TestCommittedBodyNeverPruned(t *testing.T) {
	for _, seed := range []uint64{1499, 13210} {
		cfg := swarm.Config(seed)
		w := &pruneWatch{committed: map[uint64]uint64{}}
		res, err := verify.Run(cfg, sim.Attach{Script: w})
		require.NoError(t, err)
		assert.Equal(t, sim.VerdictPass, res.Verdict, "seed %d: %s %s", seed, res.Invariant, res.Evidence)
		assert.Empty(t, w.committedPrunes(), "seed %d: committed ops pruned", seed)
	}
}
