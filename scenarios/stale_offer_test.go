package scenarios_test

import (
	"fmt"
	"regexp"
	"strconv"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"vsrsim/scenarios"
	"vsrsim/sim"
	"vsrsim/vsr"
)

// TestStaleOfferRefusals: with the defect r2 refuses every offer it pulls, as
// stale, and never installs; the evidence counts the refusals. With the
// source's guard it refuses none and installs.
func TestStaleOfferRefusals(t *testing.T) {
	s, err := scenarios.Lookup("stale-offer")
	require.NoError(t, err)
	offers := func(e *vsr.Event) bool {
		return e.Replica == 2 && (e.Kind == vsr.EvOfferRefused || e.Kind == vsr.EvTransferInstall)
	}
	for seed := uint64(1); seed <= 3; seed++ {
		bug, w := runLogged(t, s, seed, []string{s.Bug}, offers)
		require.Equal(t, sim.VerdictLiveness, bug.Verdict, "seed %d: %s", seed, bug.Evidence)
		refused := w.of(vsr.EvOfferRefused)
		assert.GreaterOrEqual(t, len(refused), 5, "seed %d: refused again and again", seed)
		assert.Empty(t, w.of(vsr.EvTransferInstall), "seed %d: every offer refused", seed)
		for _, e := range refused {
			assert.Equal(t, vsr.ReasonStale, e.OfferRefused().Reason, "seed %d", seed)
			assert.Greater(t, e.OfferRefused().Guard, e.Op, "seed %d: the guard lies above the offer", seed)
		}
		require.NotEmpty(t, refused, "seed %d", seed)
		last := refused[len(refused)-1]
		m := staleEvidence.FindStringSubmatch(bug.Evidence)
		require.NotNil(t, m, "seed %d: %s", seed, bug.Evidence)
		assert.Equal(t, fmt.Sprintf("last commit_op=%d guard=%d", last.Op, last.OfferRefused().Guard), m[2], "seed %d: the last refusal", seed)
		// The evidence counts the liveness phase only.
		n, err := strconv.Atoi(m[1])
		require.NoError(t, err)
		assert.Positive(t, n, "seed %d", seed)
		assert.LessOrEqual(t, n, len(refused), "seed %d", seed)

		fix, w := runLogged(t, s, seed, nil, offers)
		assert.Equal(t, sim.VerdictPass, fix.Verdict, "seed %d: %s", seed, fix.Evidence)
		assert.Empty(t, w.of(vsr.EvOfferRefused), "seed %d: the source's guard refuses none", seed)
		assert.NotEmpty(t, w.of(vsr.EvTransferInstall), "seed %d: r2 installs", seed)
	}
}

var staleEvidence = regexp.MustCompile(`(\d+) state-transfer offers refused as stale \((last commit_op=\d+ guard=\d+)\)`)
