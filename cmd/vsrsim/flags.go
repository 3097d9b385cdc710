package main

import (
	"fmt"
	"slices"
	"strings"

	"vsrsim/packetsim"
	"vsrsim/sim"
)

// enumFlag is a string flag limited to a fixed set of words, so a bad value is
// a flag error (exit 64) at parse time and the allowed words show in --help.
type enumFlag struct {
	value   string
	allowed []string
}

func newEnumFlag(value string, allowed ...string) *enumFlag {
	return &enumFlag{value: value, allowed: allowed}
}

func (e *enumFlag) String() string { return e.value }

func (e *enumFlag) Type() string { return strings.Join(e.allowed, "|") }

func (e *enumFlag) Set(s string) error {
	if !slices.Contains(e.allowed, s) {
		return fmt.Errorf("must be one of %s", strings.Join(e.allowed, ", "))
	}
	e.value = s
	return nil
}

// extraDelayFlag collects --extra-delay FROM:TO=TICKS. It accepts a
// comma-separated list too, so the extra_delay line of the option dump can be
// pasted back as one flag. Syntax is checked here; replica indexes are checked
// against the run's replica count once the config is known.
type extraDelayFlag struct {
	delays []sim.ExtraDelay
}

func (f *extraDelayFlag) String() string {
	parts := make([]string, len(f.delays))
	for i, d := range f.delays {
		parts[i] = formatExtraDelay(d)
	}
	return strings.Join(parts, ",")
}

func (f *extraDelayFlag) Type() string { return "FROM:TO=TICKS" }

func (f *extraDelayFlag) Set(s string) error {
	for _, part := range strings.Split(s, ",") {
		d, err := parseExtraDelay(part)
		if err != nil {
			return err
		}
		f.delays = append(f.delays, d)
	}
	return nil
}

// parseExtraDelay reads FROM:TO=TICKS, FROM and TO a replica index or "*".
func parseExtraDelay(s string) (sim.ExtraDelay, error) { return sim.ParseExtraDelay(s) }

// checkExtraDelays names the first delay whose replica does not exist. The
// config's own Validate catches the same thing, but only this message can
// quote the flag as the user typed it.
func checkExtraDelays(delays []sim.ExtraDelay, replicas int) error {
	for _, d := range delays {
		for _, node := range []int{d.From, d.To} {
			if node != packetsim.AnyNode && node >= replicas {
				return fmt.Errorf("--extra-delay %s: no replica %d in a cluster of %d (replicas are 0..%d)",
					formatExtraDelay(d), node, replicas, replicas-1)
			}
		}
	}
	return nil
}

func formatExtraDelay(d sim.ExtraDelay) string { return d.String() }

// shellQuote quotes s for a POSIX shell when it holds anything beyond the
// characters replay commands normally use; "*" in an extra delay must not glob.
func shellQuote(s string) string {
	if s != "" && strings.IndexFunc(s, func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' ||
			strings.ContainsRune("-_./:=,", r))
	}) < 0 {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// onceFlag is a string flag that refuses to be given twice: with a plain
// string flag the last --seed silently wins, and the run is not the one the
// user meant by the first.
type onceFlag struct {
	value string
	set   bool
}

func (f *onceFlag) String() string { return f.value }

func (f *onceFlag) Type() string { return "string" }

func (f *onceFlag) Set(s string) error {
	if f.set {
		return fmt.Errorf("given twice (%q, then %q)", f.value, s)
	}
	f.value, f.set = s, true
	return nil
}

// outputPath checks a file flag (--trace, --perfetto, ...) the user set: an
// empty path would silently write nothing, so it is refused; "-" means stdout.
func outputPath(flag, path string, changed bool) error {
	if changed && strings.TrimSpace(path) == "" {
		return usageErrorf("--%s: empty file name (give a path, or - for stdout)", flag)
	}
	return nil
}
