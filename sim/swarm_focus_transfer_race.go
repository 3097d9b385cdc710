package sim

import "vsrsim/prng"

// focusTransferRace: placeholder, filled by its focus's work.
func focusTransferRace(s *prng.Stream, c *Config, slice uint64) {}
