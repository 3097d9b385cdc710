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
