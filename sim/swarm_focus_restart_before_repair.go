package sim

import "vsrsim/prng"

// focusRestartBeforeRepair: placeholder, filled by its focus's work.
func focusRestartBeforeRepair(s *prng.Stream, c *Config, slice uint64) {}
