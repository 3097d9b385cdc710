package sim

import "vsrsim/prng"

// focusLateStartView: placeholder, filled by its focus's work.
func focusLateStartView(s *prng.Stream, c *Config, slice uint64) {}
