package check

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestStrandsNamesWhatACutOffWouldTake: the harness asks before a cut-off
// whether the core could decide an op with the replica in reach and could
// not without it (D64). r2 acked op 3 and its disk lost it; the core is
// r1,r2; r0 is outside the core.
func TestStrandsNamesWhatACutOffWouldTake(t *testing.T) {
	const op, sum = 3, 0xc3
	for _, tc := range []struct {
		name   string
		r0     func(c *Checker)
		strand bool
		why    string
	}{
		{"whole", func(*Checker) {}, true, "r0's nack is one of the two the core needs"},
		{"holder", func(c *Checker) { c.Journaled(0, op, sum) }, true, "r0 holds the op's last reachable copy"},
		{"down", func(c *Checker) { c.Crash(1, 0) }, false, "r0 is out of reach already: a cut-off takes nothing"},
		{"cut", func(c *Checker) { c.CutOff(1, 0) }, false, "r0 is cut off already"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := ackedByR2(op, sum)
			tc.r0(c)
			r2LosesItsAckedCopy(c, op)
			got, ok := c.Strands(0)
			assert.Equal(t, tc.strand, ok, tc.why)
			if tc.strand {
				assert.Equal(t, uint64(op), got)
			}
		})
	}
}
