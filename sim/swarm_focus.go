package sim

import "vsrsim/prng"

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
func focus(seed uint64, c *Config) {
	s := prng.New(seed, prng.StreamSwarmFocus)
	k := s.Uint64N(focusSlices)
	if k >= uint64(len(foci))*3 {
		return
	}
	f := foci[k/3]
	c.Focus = f.name
	f.draw(s, c, k%3)
}

// foci own three slices each, in this order from slice 0: append new ones
// at the end, or every focus seed moves.
var foci = []struct {
	name string
	draw func(s *prng.Stream, c *Config, slice uint64)
}{
	{"transfer-race", focusTransferRace},
	{"late-start-view", focusLateStartView},
	{"reassigned-repair", focusReassignedRepair},
	{"amnesiac-vote", focusAmnesiacVote},
	{"transfer-rewind", focusTransferRewind},
	{"transfer-mutants", focusTransferMutants},
	{"restart-before-repair", focusRestartBeforeRepair},
}

// FocusSeeds lists the swarm seeds from 1 whose focus slice lies in
// first..last, with each one's slice counted from first: at most count seeds
// (0: any number) and none above limit (0: no bound). For a focus's tests.
func FocusSeeds(first, last uint64, count int, limit uint64) (seeds, slices []uint64) {
	for seed := uint64(1); (count == 0 || len(seeds) < count) && (limit == 0 || seed <= limit); seed++ {
		if k := FocusSlice(seed); k >= first && k <= last {
			seeds = append(seeds, seed)
			slices = append(slices, k-first)
		}
	}
	return seeds, slices
}
