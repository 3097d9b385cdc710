package replica

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// holdFaulty vouches for a faulty slot's header-ring copy (it carries the
// body) when the log names it: a child's parent link, the head, or a header
// the log already knows by the same checksum without its body. Two guided
// search findings (issue 38, swarm seeds 0x3a7c9d1b and 0x3a7cb3ea) held such
// ops unsure for good; the oracle excused them as core-copy-damaged until it
// counted a header copy as held (D49).
func TestHoldFaultyVouchesHeaderCopies(t *testing.T) {
	chain := boundedChain(6)
	faulty := func(op uint64) brokenSlot {
		return brokenSlot{slot: int(op % 64), read: slotRead{class: slotFaulty, header: chain[op], hasHeader: true}}
	}
	restart := func(adopt bool, broken ...brokenSlot) *Replica {
		r, _ := walBackup(t)
		for op := uint64(1); op <= 6; op++ {
			if op != 3 && op != 4 {
				require.True(t, r.journalPut(chain[op], true))
			}
		}
		if adopt {
			r.adopted.put(chain[3]) // known by checksum, body not held
		}
		r.wm.sequencer, r.wm.headSum = 6, chain[6].Checksum
		r.sb.AckHead = 6
		r.out = nil
		require.True(t, r.holdFaulty(diskRecovery{slots: 64, broken: broken}))
		return r
	}

	// Slots 3 and 4 faulty, their header copies intact: op 5's parent
	// vouches for 4, and 4, once vouched, for 3, whatever the slot order.
	r := restart(false, faulty(3), faulty(4))
	assert.True(t, r.Journaled(3), "vouched from the top down")
	assert.True(t, r.Journaled(4))
	assert.Empty(t, r.unsureOps)

	// Op 4's copy alone is faulty and unreadable; op 3's header copy is
	// known to the log by checksum: that vouches for it.
	r = restart(true, faulty(3), brokenSlot{slot: 4, read: slotRead{class: slotFaulty}})
	assert.True(t, r.Journaled(3), "a header the log names by checksum vouches for the copy")
	assert.Equal(t, []uint64{4}, r.unsureOps, "nothing vouches for op 4's unreadable slot")

	// A header copy the log names by another checksum is stale: held unsure.
	stale := faulty(3)
	stale.read.header = chain[5]
	stale.read.header.Op = 3
	stale.read.header.Seal()
	r = restart(true, stale, brokenSlot{slot: 4, read: slotRead{class: slotFaulty}})
	assert.False(t, r.Journaled(3))
	assert.Equal(t, []uint64{3, 4}, r.unsureOps)
}
