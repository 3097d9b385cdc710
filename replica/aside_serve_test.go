package replica

import (
	"testing"
	"vsrsim/vsr"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestRepairServesSetAsideBodies: a body set aside (no chain here vouches for
// it yet) is served to a repair request like a journaled one: it may be the
// last copy of a committed op, and the requester may hold what vouches for
// it. The requester's own check decides (repairVerdict).
func TestRepairServesSetAsideBodies(t *testing.T) {
	c := newTestCluster(t, 3, nil)
	c.commitRequests(0, 1, 4)
	r2 := c.r(2)
	j, ok := r2.log.journal.Get(3)
	require.True(t, ok)
	require.LessOrEqual(t, j.Op, r2.wm.commitMax)
	r2.fx.Out = &vsr.Output{}
	r2.discard(j, false)
	r2.fx.Out = nil
	_, held := r2.log.journal.Get(3)
	require.False(t, held, "op 3 left the journal")
	_, aside := r2.log.aside.Get(3)
	require.True(t, aside, "op 3 was set aside")

	out := &vsr.Output{}
	r2.Step(msg(vsr.RequestPrepares{From: 2, To: 4}, 1, 2, 0), out)
	var ops []uint64
	for _, h := range repairServed(out) {
		ops = append(ops, h.Op)
		if h.Op == 3 {
			assert.Equal(t, j.Checksum, h.Checksum, "the set-aside body itself")
		}
	}
	assert.Equal(t, []uint64{2, 3, 4}, ops)
	// Only the journal's bodies go with this replica's commit point: the
	// set-aside one is vouched for by nothing here, so it carries none, and
	// the requester's check decides (swarm seed 1592593369 from 0x5eed0000).
	for _, m := range out.Messages {
		if m.Command != vsr.CmdRepairPrepare {
			continue
		}
		p := m.RepairPrepare()
		if p.Header.Op == 3 {
			assert.Zero(t, p.Commit, "op 3 set aside: no commit point")
		} else {
			assert.Equal(t, r2.wm.commitMin, p.Commit, "op %d journaled: the commit point vouches", p.Header.Op)
		}
	}
}

// TestRestartSetsAsideAnEntryTheChainTookOut: an entry a restart read intact
// and a chain check took out (below a break, above the commit point) is set
// aside, not vouched for: the op stays out of the journal and is served to a
// repair with no commit point, for the asker to verify against the header it
// knows (D78; robust-abdication-file-faults-175). A faulty slot's header copy
// above the commit point is set aside the same way (D90).
func TestRestartSetsAsideAnEntryTheChainTookOut(t *testing.T) {
	c := newTestCluster(t, 3, nil)
	c.commitRequests(0, 1, 2)
	r2 := c.r(2)
	h := vsr.Header{Op: 6, View: 1, Parent: 0xabc, Timestamp: 1, Body: put(6, 7)}
	h.Seal()
	require.Greater(t, h.Op, r2.wm.commitMax, "above the commit point")
	r2.setAsideCopy(slotRead{class: slotFaulty, header: h, hasHeader: true}, h.Op)
	got, aside := r2.log.aside.Get(6)
	assert.True(t, aside, "a header copy above the commit point is set aside too (D90)")
	assert.Equal(t, h, got)
	assert.NotEmpty(t, r2.dur.storageMarks, "the restart counts what it set aside")
	r2.log.aside.Remove(6)

	r2.dur.storageMarks = nil
	r2.setAsideCopy(slotRead{class: slotFaulty, aside: h}, h.Op)
	got, aside = r2.log.aside.Get(6)
	require.True(t, aside, "the entry the chain took out is set aside")
	assert.Equal(t, h, got)
	assert.False(t, r2.Journaled(6), "never journaled: nothing vouched for it")
	assert.NotEmpty(t, r2.dur.storageMarks, "the restart counts what it set aside")
	r2.dur.storageMarks = nil // counted at a restart's first step; there is none here

	out := &vsr.Output{}
	r2.Step(msg(vsr.RequestPrepares{From: 6, To: 6}, 1, 2, r2.view), out)
	served := 0
	for _, m := range out.Messages {
		if m.Command == vsr.CmdRepairPrepare {
			served++
			assert.Equal(t, h.Checksum, m.RepairPrepare().Header.Checksum)
			assert.Zero(t, m.RepairPrepare().Commit, "vouched for by nothing here")
		}
	}
	assert.Equal(t, 1, served)
}

// TestStaleAsideBodyIsNoCopy: a replica on a disk that applied op 2 but
// holds, set aside at its slot, a body the applied op 3 does not name as
// parent (another view's op 2 a lost write left) has lost op 2 all the same:
// it answers a repair from op 2 with the range evicted above it, so the
// asker transfers, instead of serving the stale body the asker refuses
// forever (swarm seed 4208930036 from 0xfade0000). The body op 3 does name
// is a copy, and served.
func TestStaleAsideBodyIsNoCopy(t *testing.T) {
	for _, stale := range []bool{true, false} {
		_, r2 := readsBackup(t, nil)
		j, ok := r2.log.journal.Get(2)
		require.True(t, ok)
		require.Less(t, j.Op, r2.wm.commitMin, "op 2 applied, op 3 above it too")
		r2.log.journal.Forget(2)
		body := j
		if stale {
			body.Body.Value++
			body.Seal()
		}
		r2.log.aside.Put(body)
		out := &vsr.Output{}
		r2.Step(msg(vsr.RequestPrepares{From: 2, To: 3}, 1, 2, r2.view), out)
		var evicted []uint64
		for _, m := range out.Messages {
			if m.Command == vsr.CmdRangeEvicted {
				evicted = append(evicted, m.RangeEvicted().First)
			}
		}
		if stale {
			assert.Equal(t, []uint64{3}, evicted, "stale: the range above op 2 is named evicted")
			assert.Empty(t, repairServed(out), "and nothing is served")
		} else {
			assert.Empty(t, evicted, "the body op 3 names is a copy")
			require.NotEmpty(t, repairServed(out))
			assert.Equal(t, j.Checksum, repairServed(out)[0].Checksum)
		}
	}
}
