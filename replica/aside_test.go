package replica

import (
	"testing"
	"vsrsim/vsr"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestChainWalkSetsCommittedBodiesAside: below a break in the chain (op 5
// missing) the walk cannot vouch for committed ops 3 and 4; it sets their
// bodies aside instead of deleting them, and takes them back once the
// canonical op 5 arrives and names op 4 as its parent. A fork at op 4 that the
// chain disowns is pruned.
func TestChainWalkSetsCommittedBodiesAside(t *testing.T) {
	chain := chainHeaders(6, 0) // indexed by op
	fork := chain[4]            // op 4 of another view: another body, the same parent
	fork.Body.Value++
	fork.Seal()
	tests := []struct {
		name     string
		journal  []vsr.Header
		expect   uint64 // the canonical checksum the walk starts from, at op 5
		aside    []uint64
		pruned   []uint64
		reclaims bool
	}{
		{"gap below the anchor", []vsr.Header{chain[1], chain[2], chain[3], chain[4]}, chain[5].Checksum, []uint64{4, 3}, nil, true},
		{"fork below the anchor", []vsr.Header{chain[1], chain[2], chain[3], fork, chain[5]}, chain[5].Checksum, []uint64{3}, []uint64{4}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r, err := New(DefaultOptions(1, 3), zeroJitter{})
			require.NoError(t, err)
			out := &vsr.Output{}
			r.fx.Out = out
			for _, h := range tt.journal {
				require.True(t, r.log.journal.Put(h, true))
			}
			r.wm.commitMin, r.wm.commitSum = 2, chain[2].Checksum
			r.wm.commitMax = 5
			r.pruneChainFrom(5, tt.expect)

			var aside, pruned []uint64
			for _, e := range out.Events {
				switch e.Kind {
				case vsr.EvJournalSetAside:
					aside = append(aside, e.Op)
				case vsr.EvJournalPrune:
					pruned = append(pruned, e.Op)
				}
			}
			assert.Equal(t, tt.aside, aside)
			assert.Equal(t, tt.pruned, pruned)
			for _, op := range tt.aside {
				assert.False(t, r.Journaled(op), "op %d left the journal", op)
				assert.True(t, r.Holds(op, chain[op].Checksum), "op %d is still held", op)
			}
			if !tt.reclaims {
				return
			}
			require.True(t, r.repairPut(chain[5], nil))
			for _, op := range tt.aside {
				assert.True(t, r.log.journal.Has(op, chain[op].Checksum), "op %d reclaimed", op)
			}
			assert.Equal(t, uint64(5), r.wm.commitMin, "ops 3..5 applied")
		})
	}
}

// TestReclaimKeepsABodyItCannotPut: a set-aside body whose slot now holds a
// newer op stays set aside when reclaim cannot journal it (it was dropped
// before: taken out of the ring, then refused by the journal), so the
// replica still holds and serves what the oracle counts it as holding.
func TestReclaimKeepsABodyItCannotPut(t *testing.T) {
	chain := chainHeaders(6, 0)
	r, err := New(DefaultOptions(1, 3), zeroJitter{})
	require.NoError(t, err)
	r.fx.Out = &vsr.Output{}
	slots := uint64(r.opts.JournalSlots)
	newer := vsr.Header{Op: 3 + slots, View: 1, Parent: 0xabc, Timestamp: 9, Body: put(9, 9)}
	newer.Seal()
	require.True(t, r.log.journal.Put(newer, true), "the slot of op 3 holds a newer op")
	r.log.aside.Put(chain[3])
	r.log.commitAnchor = chain[3] // vouches for op 3
	r.wm.commitMin, r.wm.commitSum, r.wm.commitMax = 2, chain[2].Checksum, 5
	require.Equal(t, repairVerified, r.repairVerdict(chain[3], 0))
	r.reclaim(5, true)
	assert.False(t, r.Journaled(3), "the journal refused it")
	got, aside := r.log.aside.Get(3)
	require.True(t, aside, "still set aside")
	assert.Equal(t, chain[3], got)
	assert.True(t, r.Holds(3, chain[3].Checksum))
}

// TestAsideCopyStaysUntilTheJournalWriteLands: a set-aside body journaled
// again keeps its set-aside copy, the durable one, until the journal's write
// of its slot has landed; a crash before that finds it still set aside
// (source-2f1d-790513318.vsr: reclaimed op 20's write torn by a crash the
// next tick, the copy gone with no fault to blame). Without a disk the
// journal holds it as well as the ring: let go at once.
func TestAsideCopyStaysUntilTheJournalWriteLands(t *testing.T) {
	released := func(out *vsr.Output) (ops []uint64) {
		for _, e := range out.Events {
			if e.Kind == vsr.EvJournalAsideRelease {
				ops = append(ops, e.Op)
			}
		}
		return ops
	}
	for _, disk := range []bool{true, false} {
		opts := DefaultOptions(1, 3)
		opts.Durability = DurabilityWAL
		opts.Storage = disk
		r, err := New(opts, zeroJitter{})
		require.NoError(t, err)
		chain := boundedChain(3)
		out := &vsr.Output{}
		r.begin(out)
		r.log.aside.Put(chain[2])
		r.wm.commitMax = 2
		require.True(t, r.journalPut(chain[2], true))
		if !disk {
			assert.Equal(t, []uint64{2}, released(out), "no disk: let go at once")
			_, aside := r.log.aside.Get(2)
			assert.False(t, aside)
			continue
		}
		_, aside := r.log.aside.Get(2)
		assert.True(t, aside, "kept set aside while the journal's write is not asked for")
		stamped := chain[2]
		stamped.View = 7 // the same entry, carried by a later message
		r.leaveAside(stamped)
		assert.Len(t, r.dur.releasing, 1, "queued once per entry")
		r.settle()
		r.flushStorage()
		r.settle()
		_, aside = r.log.aside.Get(2)
		assert.True(t, aside, "kept set aside while the write is in flight")
		assert.Equal(t, chain[2], r.Durable().view.aside.Slots[2], "a crash now finds it set aside")
		assert.Empty(t, released(out))

		r.Landed(r.dur.fencesAsked)
		out = &vsr.Output{}
		r.Tick(out)
		assert.Equal(t, []uint64{2}, released(out), "let go once the write landed")
		_, aside = r.log.aside.Get(2)
		assert.False(t, aside)
		assert.True(t, r.log.journal.Has(2, chain[2].Checksum))
		assert.Empty(t, r.dur.releasing)
	}
}
