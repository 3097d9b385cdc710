package sim

import (
	"errors"
	"fmt"
	"strconv"
	"strings"

	"vsrsim/packetsim"
)

// ParseExtraDelay reads FROM:TO=TICKS, FROM and TO a replica index or "*" (every
// replica). The CLI's --extra-delay and scenario files share it.
func ParseExtraDelay(s string) (ExtraDelay, error) {
	link, ticksText, ok := strings.Cut(strings.TrimSpace(s), "=")
	if !ok {
		return ExtraDelay{}, fmt.Errorf("%q: want FROM:TO=TICKS", s)
	}
	fromText, toText, ok := strings.Cut(link, ":")
	if !ok {
		return ExtraDelay{}, fmt.Errorf("%q: want FROM:TO=TICKS", s)
	}
	from, err := parseNode(fromText)
	if err != nil {
		return ExtraDelay{}, fmt.Errorf("%q: FROM %w", s, err)
	}
	to, err := parseNode(toText)
	if err != nil {
		return ExtraDelay{}, fmt.Errorf("%q: TO %w", s, err)
	}
	ticks, err := strconv.ParseUint(ticksText, 10, 64)
	if errors.Is(err, strconv.ErrRange) {
		return ExtraDelay{}, fmt.Errorf("%q: %w", s, delayTooLong(ticksText))
	}
	if err != nil {
		return ExtraDelay{}, fmt.Errorf("%q: TICKS %q is not a number of ticks", s, ticksText)
	}
	d := ExtraDelay{From: from, To: to, Ticks: ticks}
	if err := d.check(); err != nil {
		return ExtraDelay{}, fmt.Errorf("%q: %w", s, err)
	}
	return d, nil
}

// check holds the rules of one delay that do not depend on the cluster size;
// ParseExtraDelay and Config.Validate share it so the flag, a scenario file and
// a programmatic config get the same bound and the same words.
func (d ExtraDelay) check() error {
	if d.Ticks > ExtraDelayTicksMax {
		return delayTooLong(strconv.FormatUint(d.Ticks, 10))
	}
	if d.From == d.To && d.From != packetsim.AnyNode {
		return fmt.Errorf("extra delay %d:%d: a replica does not send to itself", d.From, d.To)
	}
	return nil
}

// ParseExtraDelayTicks reads the TICKS of an extra delay with the one bound
// and the one message every input shares.
func ParseExtraDelayTicks(text string) (uint64, error) {
	ticks, err := strconv.ParseUint(text, 10, 64)
	switch {
	case errors.Is(err, strconv.ErrRange) || (err == nil && ticks > ExtraDelayTicksMax):
		return 0, delayTooLong(text)
	case err != nil:
		return 0, fmt.Errorf("TICKS %q is not a number of ticks", text)
	}
	return ticks, nil
}

func delayTooLong(ticks string) error {
	return fmt.Errorf("extra delay of %s ticks is above the maximum of %d", ticks, ExtraDelayTicksMax)
}

func parseNode(s string) (int, error) {
	if s == "*" {
		return packetsim.AnyNode, nil
	}
	n, err := strconv.Atoi(s)
	if err != nil || n < 0 {
		return 0, fmt.Errorf("%q is not a replica index or *", s)
	}
	return n, nil
}

// String is the FROM:TO=TICKS form ParseExtraDelay reads.
func (d ExtraDelay) String() string {
	return fmt.Sprintf("%s:%s=%d", formatNode(d.From), formatNode(d.To), d.Ticks)
}

func formatNode(n int) string {
	if n == packetsim.AnyNode {
		return "*"
	}
	return strconv.Itoa(n)
}
