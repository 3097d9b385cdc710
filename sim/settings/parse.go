package settings

import (
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"vsrsim/sim"
	"vsrsim/vsr"
)

// The table's readers of a setting's value: one per form, each with the one
// message a flag, a file line and a corpus line share.

func number(key, value string) (uint64, error) {
	v, err := strconv.ParseUint(value, 10, 64)
	if err != nil {
		return 0, fmt.Errorf("%s %q is not a number", key, value)
	}
	return v, nil
}

// parseNum reads a number of ticks or ops into the field, within bound if
// there is one.
func parseNum(field func(*Override) **uint64, bound func(uint64) error) func(*Override, string, string) error {
	return func(o *Override, key, value string) error {
		v, err := number(key, value)
		if err != nil {
			return err
		}
		if bound != nil {
			if err := bound(v); err != nil {
				return err
			}
		}
		*field(o) = &v
		return nil
	}
}

// parseSmall reads a count (replicas, clients, slots) into the field, within
// bound if there is one.
func parseSmall(field func(*Override) **int, bound func(int) error) func(*Override, string, string) error {
	return func(o *Override, key, value string) error {
		n, err := number(key, value)
		if err == nil && n > 1<<30 {
			err = fmt.Errorf("%s %d is too large", key, n)
		}
		if err != nil {
			return err
		}
		v := int(n)
		if bound != nil {
			if err := bound(v); err != nil {
				return err
			}
		}
		*field(o) = &v
		return nil
	}
}

func boundTicks(v uint64) error {
	if v > sim.TicksMax {
		return fmt.Errorf("ticks %d: must be 0..%d", v, sim.TicksMax)
	}
	return nil
}

func boundJournalSlots(v int) error {
	if v < sim.JournalSlotsMin || v > vsr.JournalSlotsMax {
		return fmt.Errorf("journal-slots %d: must be %d..%d", v, sim.JournalSlotsMin, vsr.JournalSlotsMax)
	}
	return nil
}

func boundRequestQueue(v int) error {
	if v < 1 || v > vsr.RequestQueueMax {
		return fmt.Errorf("request-queue %d: must be 1..%d", v, vsr.RequestQueueMax)
	}
	return nil
}

func parseBurst(o *Override, _, value string) error {
	r, err := ParseRatio(value)
	if err != nil {
		return fmt.Errorf("burst: %v", err)
	}
	o.burst = &r
	return nil
}

// choice is one word of a setting with a fixed set of them, and its value.
type choice[T any] struct {
	word  string
	value T
}

// parseChoice reads one of two words into the field.
func parseChoice[T any](field func(*Override) **T, a, b choice[T]) func(*Override, string, string) error {
	return func(o *Override, key, value string) error {
		for _, c := range []choice[T]{a, b} {
			if c.word == value {
				v := c.value
				*field(o) = &v
				return nil
			}
		}
		return fmt.Errorf("%s %q: want %s or %s", key, value, a.word, b.word)
	}
}

func parseWorkload(o *Override, _, value string) error {
	if value != "steady" && value != "off" {
		return fmt.Errorf("workload %q: want steady or off", value)
	}
	o.workload = value
	return nil
}

// parseLiveness reads keep-faults, cut FROM->TO.., isolate R.. and heal R.., in any mix
// (one line of a file), or off alone.
func parseLiveness(o *Override, _, value string) error {
	w := strings.Fields(value)
	bad := fmt.Errorf("liveness %q: want off, or keep-faults, cut FROM->TO.., isolate R.. or heal R..", value)
	if slices.Contains(w, "off") {
		if len(w) != 1 {
			return fmt.Errorf("liveness %q: off stands alone (a run without a liveness phase keeps and cuts nothing in it)", value)
		}
		o.livenessOff = true
		return nil
	}
	// list is the list the next words add to; some: it has a word.
	list, some := "", false
	for _, x := range w {
		if x == "keep-faults" || x == "cut" || x == "isolate" || x == "heal" {
			if list != "" && !some {
				return bad
			}
			list, some = x, false
			if x == "keep-faults" {
				o.keepFaults, list = true, ""
			}
			continue
		}
		if err := o.livenessWord(list, x); err != nil {
			if errors.Is(err, errNoList) {
				return bad
			}
			return err
		}
		some = true
	}
	if len(w) == 0 || (list != "" && !some) {
		return bad
	}
	return nil
}

// errNoList: a word that follows no cut, isolate or heal.
var errNoList = errors.New("no list")

// livenessWord adds x to the liveness list named.
func (o *Override) livenessWord(list, x string) error {
	switch list {
	case "cut":
		l, err := parseLink(x)
		if err != nil {
			return fmt.Errorf("liveness cut: %v", err)
		}
		o.livenessCuts = append(o.livenessCuts, l)
	case "isolate":
		r, err := strconv.Atoi(x)
		if err != nil || r < 0 {
			return fmt.Errorf("liveness isolate %q: want a replica number", x)
		}
		o.livenessIsolate = append(o.livenessIsolate, r)
	case "heal":
		r, err := strconv.Atoi(x)
		if err != nil || r < 0 {
			return fmt.Errorf("liveness heal %q: want a replica number", x)
		}
		o.livenessHeal = append(o.livenessHeal, r)
	default:
		return errNoList
	}
	return nil
}

// parseLink reads FROM->TO between replica indexes.
func parseLink(s string) (sim.Link, error) {
	a, b, ok := strings.Cut(s, "->")
	from, err1 := strconv.Atoi(a)
	to, err2 := strconv.Atoi(b)
	if !ok || err1 != nil || err2 != nil || from < 0 || to < 0 || from == to || max(from, to) >= vsr.ReplicasMax {
		return sim.Link{}, fmt.Errorf("%q: want FROM->TO, two replica indexes", s)
	}
	return sim.Link{From: from, To: to}, nil
}

func parseProtocolSetting(o *Override, _, value string) error {
	p, err := parseProtocol(value)
	if err != nil {
		return err
	}
	if o.protocol != nil {
		p = mergeProtocol(*o.protocol, p)
	}
	o.protocol = &p
	return nil
}

func parseCore(o *Override, _, value string) error {
	core := []int{}
	for _, w := range strings.Fields(value) {
		n, err := strconv.Atoi(w)
		if err != nil || n < 0 || n >= vsr.ReplicasMax {
			return fmt.Errorf("core: %q is not a replica index", w)
		}
		if slices.Contains(core, n) {
			return fmt.Errorf("core: replica %d twice", n)
		}
		core = append(core, n)
	}
	if len(core) == 0 {
		return fmt.Errorf("core: want replica indexes")
	}
	slices.Sort(core)
	o.core = core
	return nil
}

func parseExtraDelays(o *Override, _, value string) error {
	for _, part := range strings.Split(value, ",") {
		d, err := sim.ParseExtraDelay(part)
		if err != nil {
			return err
		}
		o.extraDelays = append(o.extraDelays, d)
	}
	o.extraDelaysSet = true
	return nil
}

// parseNetwork reads a network setting, key first; each adds to the list.
func parseNetwork(o *Override, key, value string) error {
	s, err := ParseNetSetting(append([]string{key}, strings.Fields(value)...))
	if err != nil {
		return err
	}
	o.network = append(o.network, s)
	return nil
}
