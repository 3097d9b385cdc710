package sim

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"vsrsim/replica"
	"vsrsim/sim/check"
)

// TestCheckReason: the reasons the liveness evidence weighs reach the oracle
// as its own words, and no other reason does. The mapping goes by name, so
// this test, not a text match, is what keeps the evidence alive.
func TestCheckReason(t *testing.T) {
	for _, tc := range []struct {
		r    replica.Reason
		want string
	}{
		{replica.ReasonGap, check.ReasonGap},
		{replica.ReasonDVCUnreadable, check.ReasonDVCUnreadable},
		{replica.ReasonDVCGap, check.ReasonDVCGap},
		{replica.ReasonStale, check.ReasonStale},
		{replica.ReasonBelowAcceptedHead, check.ReasonBelowAcceptedHead},
		{replica.ReasonStaleIncarnation, ""},
		{replica.ReasonNotNewer, ""},
		{replica.ReasonOldView, ""},
		{replica.ReasonNone, ""},
	} {
		assert.Equal(t, tc.want, checkReason(tc.r), "%v", tc.r)
	}
}
