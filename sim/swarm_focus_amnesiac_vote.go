package sim

import "vsrsim/prng"

// focusAmnesiacVote: placeholder, filled by its focus's work.
func focusAmnesiacVote(s *prng.Stream, c *Config, slice uint64) {}
