package vsr

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestReasonNames: every reason but none has one distinct trace word, so a
// trace line names exactly one reason.
func TestReasonNames(t *testing.T) {
	seen := map[string]Reason{}
	for r := ReasonNone + 1; r < ReasonCount; r++ {
		w := r.String()
		assert.NotEmpty(t, w, "reason %d has no word", r)
		if prev, dup := seen[w]; dup {
			assert.Failf(t, "duplicate reason word", "%q names %d and %d", w, prev, r)
		}
		seen[w] = r
	}
	assert.Empty(t, ReasonNone.String())
	assert.Equal(t, "Reason(200)", Reason(200).String())
}

// TestEventAccessorKind: an accessor read on the wrong kind panics instead of
// handing over a number that means something else.
func TestEventAccessorKind(t *testing.T) {
	e := PrimaryCommitted{CommittedOp: CommittedOp{Op: 4}, Acks: 3}.Event()
	assert.Equal(t, uint64(3), e.PrimaryCommitted().Acks)
	assert.Equal(t, uint64(4), e.Op)
	assert.Panics(t, func() { e.Checkpointed() })
	assert.Panics(t, func() { e.Dropped() })
	assert.Panics(t, func() { e.Applied() })
	assert.Panics(t, func() { ViewNoted{View: 1}.Event(EvCommit) }, "a payload made as a kind it does not describe")
}
