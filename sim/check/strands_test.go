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

// TestNotedAckCannotNackALostCopy: a replica that recorded an ack of an op
// (its Acked event) and then lost its copy to its disk cannot nack it, even
// if the ack never left or counted: it cannot tell the two apart. r2 noted
// op 3 (no PrepareOk left it) and its disk lost the copy; r0 is down: with
// r1 the only replica that could nack, the core rule excuses the stall. A
// replica that never noted the ack may nack: the rule stays out.
func TestNotedAckCannotNackALostCopy(t *testing.T) {
	const op, sum = 3, 0xc3
	for _, noted := range []bool{false, true} {
		c := newTest(true)
		// r2 first noted an ack of another version of op 3, which a view
		// change then truncated: a noted ack counts only for the version
		// whose copy was lost.
		const other = 0xd3
		c.Journaled(2, op, other)
		c.AckNoted(2, op, other)
		c.Dropped(0, 2, DropTruncate, 1, op, other, 0)
		c.Journaled(2, op, sum)
		if noted {
			c.AckNoted(2, op, sum)
		}
		c.Crash(1, 0)
		r2LosesItsAckedCopy(c, op)
		ex, _ := c.Stalled(100, 0, 1<<40)
		if !noted {
			assert.Nil(t, ex, "r2 never recorded an ack of the version it lost: with r1 it nacks op 3")
			continue
		}
		if assert.NotNil(t, ex, "r2 cannot nack what it may have acked") {
			assert.Equal(t, RuleCoreCopyDamaged, ex.Rule)
			assert.Equal(t, []uint64{op}, ex.Ops)
			assert.Equal(t, []int{0, 2}, ex.Replicas, "r0 down, r2's copy lost")
			assert.Contains(t, ex.Proof, "r2 acked it or recorded an ack of it")
		}
	}
}
