package sim

import "vsrsim/prng"

// focusReassignedRepair: placeholder, filled by its focus's work.
func focusReassignedRepair(s *prng.Stream, c *Config, slice uint64) {}
