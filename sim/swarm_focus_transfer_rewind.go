package sim

import "vsrsim/prng"

// focusTransferRewind: placeholder, filled by its focus's work.
func focusTransferRewind(s *prng.Stream, c *Config, slice uint64) {}
