package sim

import "vsrsim/prng"

// focusTransferMutants: placeholder, filled by its focus's work.
func focusTransferMutants(s *prng.Stream, c *Config, slice uint64) {}
