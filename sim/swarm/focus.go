package swarm

import (
	"vsrsim/prng"

	"vsrsim/sim"
)

// focusSlices is how many slices the focus stream cuts the seed space into.
// Most slices have no focus: their seeds keep every earlier draw. Each focus
// owns a few slices and, in its seeds, draws the conditions under which one
// rare mechanism forms (docs/marks.md, docs/detection.md, docs/mutants.md):
// conditions, never a sequence of events. A focus sees which of its slices
// the seed fell in, so it can vary its draw or leave a slice alone.
const focusSlices = 64

// FocusSlice is the seed's slice of the focus stream, for tools that sweep
// one focus's seeds alone.
func FocusSlice(seed uint64) uint64 {
	return prng.New(seed, prng.StreamSwarmFocus).Uint64N(focusSlices)
}

// focus runs after every other swarm draw, from its own stream, so a seed
// outside every focus slice draws exactly what it drew before.
func focus(seed uint64, c *sim.Config) {
	s := prng.New(seed, prng.StreamSwarmFocus)
	k := s.Uint64N(focusSlices)
	if k >= uint64(len(foci))*slicesEach {
		return
	}
	f := foci[k/slicesEach]
	if f.draw == nil {
		return // a retired focus: its seeds draw as every other seed
	}
	c.Focus = f.name
	f.draw(s, c, k%slicesEach)
}

// slicesEach is how many slices each focus owns.
const slicesEach = 3

// foci own slicesEach slices each, in this order from slice 0: append new
// ones at the end, or every focus seed moves. A retired focus keeps its
// slices, with no draw (D45: the guided search reaches its conditions on the
// same budget of runs), so no other focus's seeds move.
var foci = []struct {
	name string
	draw func(s *prng.Stream, c *sim.Config, slice uint64)
}{
	{"transfer-race", focusTransferRace},
	{"late-start-view", nil},
	{"reassigned-repair", focusReassignedRepair},
	{"amnesiac-vote", nil},
	{"transfer-rewind", focusTransferRewind},
	{"transfer-mutants", focusTransferMutants},
	{"restart-before-repair", nil},
}

// SeedFocus names the focus a swarm seed fell in and which of its slices
// (0, 1, 2), or returns "" for a seed outside every focus.
func SeedFocus(seed uint64) (name string, slice uint64) {
	k := FocusSlice(seed)
	if k >= uint64(len(foci))*slicesEach || foci[k/slicesEach].draw == nil {
		return "", 0
	}
	return foci[k/slicesEach].name, k % slicesEach
}

// FocusNames lists the foci that still draw, in slice order.
func FocusNames() []string {
	names := []string{}
	for _, f := range foci {
		if f.draw != nil {
			names = append(names, f.name)
		}
	}
	return names
}

// FocusSeeds lists the swarm seeds from 1 of the named focus, with the
// slice each fell in: at most count seeds (0: any number) and none above
// limit (0: no bound). For a focus's tests.
func FocusSeeds(name string, count int, limit uint64) (seeds, slices []uint64) {
	for seed := uint64(1); (count == 0 || len(seeds) < count) && (limit == 0 || seed <= limit); seed++ {
		if f, k := SeedFocus(seed); f == name {
			seeds = append(seeds, seed)
			slices = append(slices, k)
		}
	}
	return seeds, slices
}
