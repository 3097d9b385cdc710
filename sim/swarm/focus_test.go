package swarm

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"vsrsim/sim/settings"
)

// A seed's focus is named in its option dump, and only a focus seed has one;
// each focus owns three consecutive slices.
func TestFocusNamedInOptions(t *testing.T) {
	named := map[string]int{}
	for seed := uint64(1); seed <= 600; seed++ {
		c := Config(seed)
		k := FocusSlice(seed)
		var dumped string
		for _, o := range settings.Describe(&c) {
			if o.Name == "focus" {
				dumped = o.Value
			}
		}
		assert.Equal(t, c.Focus, dumped, "seed %d", seed)
		if k >= uint64(len(foci))*3 || foci[k/3].draw == nil {
			assert.Empty(t, c.Focus, "seed %d in slice %d (none, or a retired focus)", seed, k)
			unf := Unfocused(seed)
			assert.Equal(t, settings.Describe(&unf), settings.Describe(&c), "seed %d in slice %d draws as if unfocused", seed, k)
			continue
		}
		assert.Equal(t, foci[k/3].name, c.Focus, "seed %d in slice %d", seed, k)
		named[c.Focus]++
	}
	assert.Len(t, named, len(FocusNames()), "every focus that draws has seeds in 1..600")
}
