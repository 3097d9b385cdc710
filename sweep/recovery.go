package sweep

import "slices"

// Recovery is the distribution of recovery times over a sweep's runs: ticks
// from the start of the liveness phase to the core's convergence, for every
// run whose core converged. It is measured in virtual ticks, so a sweep
// reports the same figures on any machine.
type Recovery struct {
	ticks []uint64
}

// Runs is how many runs converged.
func (r *Recovery) Runs() int { return len(r.ticks) }

// Percentile returns the p-th percentile (0..100) by the nearest-rank
// method, 0 when no run converged.
func (r *Recovery) Percentile(p int) uint64 {
	if len(r.ticks) == 0 {
		return 0
	}
	s := slices.Clone(r.ticks)
	slices.Sort(s)
	rank := (p*len(s) + 99) / 100 // ceil(p/100 * n)
	return s[max(rank, 1)-1]
}

// Max is the longest recovery.
func (r *Recovery) Max() uint64 {
	if len(r.ticks) == 0 {
		return 0
	}
	return slices.Max(r.ticks)
}
