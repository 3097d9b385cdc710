package marks

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestNamesAreUniqueAndParse(t *testing.T) {
	seen := map[string]bool{}
	for m := Mark(0); m < Count; m++ {
		name := m.String()
		require.NotEmpty(t, name, "mark %d has no name", m)
		assert.False(t, seen[name], "duplicate mark name %q", name)
		seen[name] = true
		back, err := Parse(name)
		require.NoError(t, err)
		assert.Equal(t, m, back)
	}
	_, err := Parse("no-such-mark")
	assert.Error(t, err)
	assert.Equal(t, "Mark(250)", Mark(250).String())
}

func TestCountsAndRuns(t *testing.T) {
	tests := []struct {
		name    string
		hits    [][]Mark // one slice per run
		reached map[string]uint64
	}{
		{"no runs", nil, map[string]uint64{}},
		{"one run twice one mark", [][]Mark{{DropGap, DropGap}}, map[string]uint64{"drop-gap": 1}},
		{"two runs", [][]Mark{{DropGap, Abdicate}, {Abdicate}}, map[string]uint64{"drop-gap": 1, "abdicate": 2}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var runs Runs
			for _, hits := range tc.hits {
				var c Counts
				for _, m := range hits {
					c.Hit(m)
				}
				for _, m := range hits {
					assert.True(t, c.Reached(m))
				}
				runs.Add(&c)
			}
			all := runs.Map()
			assert.Len(t, all, int(Count))
			for name, n := range all {
				assert.Equal(t, tc.reached[name], n, name)
			}
		})
	}
}

func TestCountsMapOmitsZeros(t *testing.T) {
	var c Counts
	c.Hit(NetCorrupt)
	c.Hit(NetCorrupt)
	assert.Equal(t, map[string]uint64{"net-corrupt": 2}, c.Map())
}

// The never list names exactly the marks docs/marks.md says no correct run
// reaches, each with its reason; the rest stay coverage goals.
func TestNeverMarksHaveReasons(t *testing.T) {
	want := map[Mark]bool{DropParentMismatch: true, TransferOfferRefusedStale: true, StorageTruncated: true, MergeHeadUnknown: true}
	for m := Mark(0); m < Count; m++ {
		assert.Equal(t, want[m], m.Never() != "", m.String())
	}
	assert.Empty(t, Count.Never())
}

// A reached never-mark is reported with the first seed, in the order the
// runs came; a never-mark no run reached and a reachable mark are not.
func TestNeverReachedNamesTheFirstSeed(t *testing.T) {
	tests := []struct {
		name string
		runs map[uint64][]Mark // seed -> marks hit, fed in seed order
		want []NeverHit
	}{
		{"none", map[uint64][]Mark{1: {DropGap}}, nil},
		{"one", map[uint64][]Mark{3: {DropGap}, 7: {DropParentMismatch}, 9: {DropParentMismatch, DropParentMismatch}},
			[]NeverHit{{Mark: DropParentMismatch, Runs: 2, FirstSeed: 7}}},
		{"both in mark order", map[uint64][]Mark{4: {TransferOfferRefusedStale}, 5: {DropParentMismatch}},
			[]NeverHit{{Mark: DropParentMismatch, Runs: 1, FirstSeed: 5}, {Mark: TransferOfferRefusedStale, Runs: 1, FirstSeed: 4}}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var runs Runs
			var firsts Firsts
			for seed := uint64(0); seed < 10; seed++ {
				hits, ok := tc.runs[seed]
				if !ok {
					continue
				}
				var c Counts
				for _, m := range hits {
					c.Hit(m)
				}
				runs.Add(&c)
				firsts.Add(seed, &c)
			}
			assert.Equal(t, tc.want, NeverReached(&runs, &firsts))
			_, reached := firsts.First(TransferOfferRefusedNotNewer)
			assert.False(t, reached)
		})
	}
}
