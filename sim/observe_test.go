package sim

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"vsrsim/sim/check"
	"vsrsim/vsr"
)

// TestCheckReason: the reasons the liveness evidence weighs reach the oracle
// as its own words, and no other reason does. The mapping goes by name, so
// this test, not a text match, is what keeps the evidence alive.
func TestCheckReason(t *testing.T) {
	for _, tc := range []struct {
		r    vsr.Reason
		want string
	}{
		{vsr.ReasonGap, check.ReasonGap},
		{vsr.ReasonDVCUnreadable, check.ReasonDVCUnreadable},
		{vsr.ReasonDVCGap, check.ReasonDVCGap},
		{vsr.ReasonStale, check.ReasonStale},
		{vsr.ReasonBelowAcceptedHead, check.ReasonBelowAcceptedHead},
		{vsr.ReasonStaleIncarnation, ""},
		{vsr.ReasonNotNewer, ""},
		{vsr.ReasonOldView, ""},
		{vsr.ReasonNone, ""},
	} {
		assert.Equal(t, tc.want, checkReason(tc.r), "%v", tc.r)
	}
}
