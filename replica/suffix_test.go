package replica

import (
	"testing"
	"vsrsim/vsr"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// DoViewChange suffixes: protocol.md "View change" (the suffix, its nack and
// present bits, readability and the cache); VRR Revisited §4.2 step 2.

// suffixOf lists hs[top], hs[top-1], ..., hs[bottom] as present entries.
func suffixOf(hs []vsr.Header, top, bottom uint64) []vsr.SuffixEntry {
	var s []vsr.SuffixEntry
	for op := top; op >= bottom && op > 0; op-- {
		s = append(s, present(hs[op]))
	}
	return s
}

func TestSuffixReadable(t *testing.T) {
	hs := chainHeaders(5, 0)
	other := chainHeaders(5, 0)
	for op := 1; op <= 5; op++ { // a second, different chain
		other[op].Body = put(uint32(op), 1000+uint64(op))
		if op > 1 {
			other[op].Parent = other[op-1].Checksum
		}
		other[op].Seal()
	}
	tampered := hs[4]
	tampered.Body.Value++ // checksum no longer matches
	blank := func(op uint64, nack bool) vsr.SuffixEntry {
		return vsr.SuffixEntry{Header: vsr.Header{Op: op}, Nack: nack}
	}
	// A committed header as buildSuffix writes it at commit_min: checksum only.
	commitOnly := vsr.SuffixEntry{Header: vsr.Header{Op: 2, Checksum: hs[2].Checksum}}

	cases := []struct {
		name     string
		op       uint64
		commit   uint64
		suffix   []vsr.SuffixEntry
		readable bool
	}{
		{"a full chain", 5, 1, suffixOf(hs, 5, 1), true},
		{"a chain down to the commit point", 5, 3, suffixOf(hs, 5, 3), true},
		{"blanks in the middle", 5, 1, []vsr.SuffixEntry{present(hs[5]), blank(4, true), present(hs[3]), blank(2, true), present(hs[1])}, true},
		{"a blank on top", 5, 3, []vsr.SuffixEntry{blank(5, true), present(hs[4]), present(hs[3])}, true},
		{"all blanks", 3, 0, []vsr.SuffixEntry{blank(3, true), blank(2, true), blank(1, true)}, true},
		{"header-only entries", 3, 1, []vsr.SuffixEntry{headerOnly(hs[3]), headerOnly(hs[2]), present(hs[1])}, true},
		{"a checksum-only header at commit_min", 3, 2, []vsr.SuffixEntry{present(hs[3]), commitOnly}, true},
		{"empty at the commit point", 4, 4, nil, true},
		{"empty at genesis", 0, 0, nil, true},
		{"first op is not op", 5, 1, suffixOf(hs, 4, 1), false},
		{"first op above op", 4, 1, suffixOf(hs, 5, 1), false},
		{"empty above the commit point", 5, 1, nil, false},
		{"a skipped op", 5, 1, []vsr.SuffixEntry{present(hs[5]), present(hs[3]), present(hs[2])}, false},
		{"ops going up", 2, 0, []vsr.SuffixEntry{present(hs[2]), present(hs[3])}, false},
		{"a broken parent chain", 5, 1, []vsr.SuffixEntry{present(hs[5]), present(hs[4]), present(other[3]), present(other[2])}, false},
		{"a tampered header", 5, 3, []vsr.SuffixEntry{present(hs[5]), present(tampered), present(hs[3])}, false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			assert.Equal(t, tc.readable, suffixReadable(tc.op, tc.commit, tc.suffix))
		})
	}
}

// TestBuildSuffixSources: the suffix is built from the journal (present), else
// adopted headers (no bits), else commit_min's checksum, else a blank that
// nacks iff the op is above commit.
func TestBuildSuffixSources(t *testing.T) {
	hs := chainHeaders(6, 0)
	r, err := New(DefaultOptions(1, 3), zeroJitter{})
	require.NoError(t, err)
	r.fx.Out = &vsr.Output{}
	for _, op := range []uint64{4, 5} {
		r.journalPut(hs[op], true)
	}
	r.log.adopted.Put(hs[6])
	r.log.adopted.Put(hs[3])
	r.wm.commitMin, r.wm.commitSum = 2, hs[2].Checksum
	r.wm.commitMax = 2
	r.wm.sequencer, r.wm.headSum = 6, hs[6].Checksum

	s := r.buildSuffix(6, 1)
	require.Len(t, s, 6, "ops 6 down to the commit argument 1")
	want := []struct {
		op            uint64
		checksum      uint64
		present, nack bool
	}{
		{6, hs[6].Checksum, false, false}, // adopted
		{5, hs[5].Checksum, true, false},  // journal
		{4, hs[4].Checksum, true, false},  // journal
		{3, hs[3].Checksum, false, false}, // adopted
		{2, hs[2].Checksum, false, false}, // commit_min's checksum
		{1, 0, false, false},              // blank at or below commit: no nack
	}
	for i, w := range want {
		e := s[i]
		assert.Equal(t, w.op, e.Header.Op, "entry %d", i)
		assert.Equal(t, w.checksum, e.Header.Checksum, "op %d", w.op)
		assert.Equal(t, w.present, e.Present, "op %d present", w.op)
		assert.Equal(t, w.nack, e.Nack, "op %d nack", w.op)
	}

	// Above the commit point a blank is a nack.
	r.log.journal.Remove(5)
	s = r.buildSuffix(6, 2)
	require.Len(t, s, 5)
	assert.True(t, s[1].Blank())
	assert.True(t, s[1].Nack, "op 5 > commit: the blank proves r never prepared it")
	assert.True(t, suffixReadable(6, 2, s), "a built suffix is readable")
}

// TestBuildSuffixWindowCut: a window wider than SuffixMax keeps the top 128
// ops and cuts off the bottom.
func TestBuildSuffixWindowCut(t *testing.T) {
	r, err := New(DefaultOptions(0, 3), zeroJitter{})
	require.NoError(t, err)
	s := r.buildSuffix(300, 0)
	require.Len(t, s, vsr.SuffixMax)
	assert.Equal(t, uint64(300), s[0].Header.Op)
	assert.Equal(t, uint64(300-vsr.SuffixMax+1), s[len(s)-1].Header.Op)
	assert.True(t, suffixReadable(300, 0, s))
	assert.Empty(t, r.buildSuffix(0, 0), "an empty log has an empty suffix")
}

// TestDVCSuffixCacheTag: the cached suffix is rebuilt when a journal write
// changes what it must say even though op and commit stay put; with the
// dvc-cache-ignores-journal defect it stays stale and nacks a held op.
func TestDVCSuffixCacheTag(t *testing.T) {
	hs := chainHeaders(2, 0)
	for _, bug := range []bool{false, true} {
		o := DefaultOptions(1, 3)
		o.Bugs.DVCCacheIgnoresJournal = bug
		r, err := New(o, zeroJitter{})
		require.NoError(t, err)
		r.fx.Out = &vsr.Output{}
		r.journalPut(hs[1], true)
		r.log.adopted.Put(hs[2])
		r.wm.sequencer, r.wm.headSum = 2, hs[2].Checksum

		before := r.dvcSuffix()
		require.Len(t, before, 2)
		require.False(t, before[0].Present, "op 2 is header-only")
		again := r.dvcSuffix()
		assert.Same(t, &before[0], &again[0], "unchanged tag: the cached suffix is reused")

		r.journalPut(hs[2], true) // the body lands; op and commit do not move
		after := r.dvcSuffix()
		if bug {
			assert.False(t, after[0].Present, "the defect: the stale suffix still says op 2 is absent")
		} else {
			assert.True(t, after[0].Present, "the fixed tag counts journal writes")
			assert.False(t, before[0].Present, "a sent suffix is never mutated")
		}
	}
}

// TestAmnesiacSuffixIsUnsure: a replica restarted on a memory journal may have
// acked ops before the crash and forgotten them: those at or below its durable
// ack head. Until it commits past them its votes mark them unsure (header, no
// body): neither a nack nor a copy. Ops above its ack head, prepared while it
// was down, it never acked, and it may disown them. A replica that kept its
// journal nacks none as unsure.
func TestAmnesiacSuffixIsUnsure(t *testing.T) {
	hs := chainHeaders(6, 0)
	for _, tc := range []struct {
		durability Durability
		unsure     bool
	}{
		{DurabilityMemory, true},
		{DurabilityWAL, false},
	} {
		t.Run(tc.durability.String(), func(t *testing.T) {
			opts := DefaultOptions(1, 3)
			opts.Durability = tc.durability
			before, err := New(opts, zeroJitter{})
			require.NoError(t, err)
			d := before.Durable()
			d.Superblock.AckHead = 4 // it acked up to op 4 before the crash
			r, err := Restart(opts, zeroJitter{}, d)
			require.NoError(t, err)
			r.fx.Out = &vsr.Output{}
			sv := vsr.StartView{Op: 6, Commit: 2,
				Suffix: []vsr.SuffixEntry{headerOnly(hs[6]), headerOnly(hs[5]), headerOnly(hs[4]), headerOnly(hs[3]), headerOnly(hs[2])}}
			r.adoptStartView(3, sv)
			s := r.buildSuffix(6, 2)
			require.Len(t, s, 5)
			for _, e := range s[:4] { // ops 6..3: above commit, no body
				acked := e.Header.Op <= 4
				assert.Equal(t, tc.unsure && acked, e.Unsure, "op %d unsure", e.Header.Op)
				assert.False(t, e.Present, "op %d present", e.Header.Op)
			}
		})
	}
}
