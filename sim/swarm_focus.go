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
	switch k := s.Uint64N(focusSlices); k {
	case 0, 1, 2:
		focusTransferRace(s, c, k)
	case 3, 4, 5:
		focusLateStartView(s, c, k-3)
	case 6, 7, 8:
		focusReassignedRepair(s, c, k-6)
	case 9, 10, 11:
		focusAmnesiacVote(s, c, k-9)
	case 12, 13, 14:
		focusTransferRewind(s, c, k-12)
	case 15, 16, 17:
		focusTransferMutants(s, c, k-15)
	case 18, 19, 20:
		focusRestartBeforeRepair(s, c, k-18)
	}
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
