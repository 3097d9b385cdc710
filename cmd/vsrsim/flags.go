package main

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"vsrsim/sim/settings"
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

// overrideFlag is a run flag that sets one settings.Override key, so a flag is
// parsed exactly as the same setting in a scenario file or corpus line. A bad
// value is a flag error (exit 64) at parse time.
type overrideFlag struct {
	o        *settings.Override
	key, typ string
	values   []string
}

func (f *overrideFlag) String() string { return strings.Join(f.values, ",") }

func (f *overrideFlag) Type() string { return f.typ }

func (f *overrideFlag) Set(s string) error {
	if err := f.o.Set(f.key, s); err != nil {
		return err
	}
	f.values = append(f.values, s)
	return nil
}

// flagError quotes the flag behind an override error as the user typed it.
func flagError(err error) string {
	var oe *settings.Error
	if errors.As(err, &oe) {
		return "--" + oe.Error()
	}
	return err.Error()
}

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
