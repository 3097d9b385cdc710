package replica

import (
	"slices"
	"testing"
	"vsrsim/vsr"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// holdFaulty vouches for a faulty slot's header-ring copy (it carries the
// body) when the log names it by a parent link or as the head, from the top
// down, so a run of faulty slots whose header copies hold comes back whole
// (swarm seed 0x3a7cb3ea from 0x3a7c91e5). A header the log knows already
// without its body (an adopted header, possibly an older view's) lets the
// copy in only with the same checksum and the op above in the replica's own
// journal naming it (swarm seed 0x3a7c9d1b; issue 38's finding). A copy of
// an op in the committed range that nothing vouches for is set aside, and
// comes back once the view's log names it.
func TestHoldFaultyVouchesHeaderCopies(t *testing.T) {
	chain := boundedChain(6)
	faulty := func(op uint64) brokenSlot {
		return brokenSlot{slot: int(op % 64), read: slotRead{class: slotFaulty, header: chain[op], hasHeader: true}}
	}
	unreadable := brokenSlot{slot: 4, read: slotRead{class: slotFaulty}}
	restart := func(adopt *vsr.Header, missing []uint64, broken ...brokenSlot) *Replica {
		r, _ := walBackup(t)
		for op := uint64(1); op <= 6; op++ {
			if !slices.Contains(missing, op) {
				require.True(t, r.journalPut(chain[op], true))
			}
		}
		if adopt != nil {
			r.log.adopted.Put(*adopt) // known by checksum, body not held
		}
		r.wm.sequencer, r.wm.headSum, r.wm.commitMax = 6, chain[6].Checksum, 6
		r.dur.sb.AckHead, r.dur.sb.AckViewHead, r.dur.sb.Head = 6, 6, 6
		require.True(t, r.holdFaulty(diskRecovery{slots: 64, broken: broken}))
		return r
	}

	// Slots 3 and 4 faulty, their header copies intact: op 5's parent
	// vouches for 4, and 4, once vouched, for 3, whatever the slot order.
	r := restart(nil, []uint64{3, 4}, faulty(3), faulty(4))
	assert.True(t, r.Journaled(3), "vouched from the top down")
	assert.True(t, r.Journaled(4))
	assert.Empty(t, r.log.unsureOps)

	// Op 3 known as an adopted header with the copy's checksum, op 4 in
	// the journal naming it: the copy is that entry.
	r = restart(&chain[3], []uint64{3}, faulty(3))
	assert.True(t, r.Journaled(3), "the same checksum, and the replica's own op above names it")
	assert.Empty(t, r.log.unsureOps)

	// Op 4's slot unreadable too: only the adopted header names op 3,
	// which vouches for nothing; held unsure, its body set aside and
	// reclaimed once the log vouches for it.
	r = restart(&chain[3], []uint64{3, 4}, faulty(3), unreadable)
	assert.False(t, r.Journaled(3), "an adopted header alone vouches for nothing")
	assert.Equal(t, []uint64{3, 4}, r.log.unsureOps)
	_, aside := r.log.aside.Get(3)
	require.True(t, aside, "the committed-range copy is kept set aside")
	r.reclaim(r.wm.commitMax, true)
	assert.True(t, r.Journaled(3), "the view's log names it: the body comes back from the disk's copy")

	// A header copy the log names by another checksum is stale: held
	// unsure, and what is set aside is never reclaimed.
	stale := faulty(3)
	stale.read.header = chain[5]
	stale.read.header.Op = 3
	stale.read.header.Seal()
	r = restart(&chain[3], []uint64{3, 4}, stale, unreadable)
	assert.False(t, r.Journaled(3))
	assert.Equal(t, []uint64{3, 4}, r.log.unsureOps)
	r.reclaim(r.wm.commitMax, true)
	assert.False(t, r.Journaled(3), "a stale copy stays aside, unused")
}
