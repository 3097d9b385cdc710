package settings

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"vsrsim/packetsim"
	"vsrsim/prng"
)

// NetSettingKeys name the network settings a scenario file may give before
// the run or at a tick: loss P, replay P, reorder P max=N, clog off|mean=N,
// delay min=N mean=N, link-capacity N, quiet, corrupt P [delivered].
var NetSettingKeys = []string{"loss", "replay", "reorder", "clog", "delay", "link-capacity", "quiet", "corrupt"}

// networkRows are the table's rows of the network settings. Set adds each
// to a list that Apply applies in the order given.
func networkRows() []Setting {
	rows := make([]Setting, len(NetSettingKeys))
	for i, key := range NetSettingKeys {
		rows[i] = Setting{Key: key, Usage: "the network's " + key + " (docs/scenario-files.md)", parse: parseNetwork}
	}
	return rows
}

// NetSetting is one network setting. It draws nothing, so applying it at a
// tick changes only the draws of packets submitted later.
type NetSetting struct {
	Key   string
	Ratio prng.Ratio // loss, replay, reorder, corrupt
	N     uint64     // reorder max, clog mean, delay min, link capacity
	Mean  uint64     // delay mean
	Off   bool       // clog off
	// Delivered: corrupt packets arrive damaged instead of dropped
	// (packetsim.Options.CorruptDelivered).
	Delivered bool
}

// ParseNetSetting reads a setting from its words, key first.
func ParseNetSetting(w []string) (NetSetting, error) {
	if len(w) == 0 {
		return NetSetting{}, fmt.Errorf("want a network setting (%s)", strings.Join(NetSettingKeys, ", "))
	}
	s := NetSetting{Key: w[0]}
	read, ok := netReaders[s.Key]
	if !ok {
		return s, fmt.Errorf("unknown network setting %q (want %s)", s.Key, strings.Join(NetSettingKeys, ", "))
	}
	if err := read(&s, w[1:]); err != nil {
		return s, err
	}
	return s, nil
}

// netReaders read each network setting's arguments. An error of a form is
// returned whole; one of a value is prefixed with the key (netValue).
var netReaders = map[string]func(s *NetSetting, args []string) error{
	"loss":          readChance,
	"replay":        readChance,
	"corrupt":       readChance,
	"reorder":       readReorder,
	"clog":          readClog,
	"delay":         readDelay,
	"link-capacity": readLinkCapacity,
	"quiet": func(s *NetSetting, args []string) error {
		if len(args) != 0 {
			return s.want("(no arguments)")
		}
		return nil
	},
}

func (s *NetSetting) want(form string) error { return fmt.Errorf("want: %s %s", s.Key, form) }

// netValue prefixes an error in a setting's value with its key.
func (s *NetSetting) netValue(err error) error {
	if err != nil {
		return fmt.Errorf("%s: %v", s.Key, err)
	}
	return nil
}

func readChance(s *NetSetting, args []string) error {
	if s.Key == "corrupt" && len(args) == 2 && args[1] == "delivered" {
		s.Delivered, args = true, args[:1]
	}
	if len(args) != 1 {
		if s.Key == "corrupt" {
			return s.want("P [delivered] (a probability: 1/100, 0.01 or 1%)")
		}
		return s.want("P (a probability: 1/100, 0.01 or 1%)")
	}
	var err error
	s.Ratio, err = ParseRatio(args[0])
	return s.netValue(err)
}

func readReorder(s *NetSetting, args []string) error {
	if len(args) != 2 {
		return s.want("P max=TICKS")
	}
	var err error
	if s.Ratio, err = ParseRatio(args[0]); err == nil {
		s.N, err = keyNumber(args[1], "max")
	}
	if err == nil && s.N == 0 && !s.Ratio.Zero() {
		err = fmt.Errorf("reorder max must be positive")
	}
	return s.netValue(err)
}

func readClog(s *NetSetting, args []string) error {
	if len(args) != 1 {
		return s.want("off | mean=TICKS")
	}
	if args[0] == "off" {
		s.Off = true
		return nil
	}
	var err error
	s.N, err = keyNumber(args[0], "mean")
	if err == nil && s.N == 0 {
		err = fmt.Errorf("clog mean must be positive")
	}
	return s.netValue(err)
}

func readDelay(s *NetSetting, args []string) error {
	if len(args) != 2 {
		return s.want("min=TICKS mean=TICKS")
	}
	var err error
	if s.N, err = keyNumber(args[0], "min"); err == nil {
		s.Mean, err = keyNumber(args[1], "mean")
	}
	return s.netValue(err)
}

func readLinkCapacity(s *NetSetting, args []string) error {
	if len(args) != 1 {
		return s.want("PACKETS")
	}
	var err error
	s.N, err = strconv.ParseUint(args[0], 10, 64)
	if err != nil || s.N == 0 || s.N > 1<<20 {
		err = fmt.Errorf("link-capacity %q: want 1..%d packets", args[0], 1<<20)
	}
	return s.netValue(err)
}

// keyNumber reads KEY=N.
func keyNumber(word, key string) (uint64, error) {
	k, v, ok := strings.Cut(word, "=")
	if !ok || k != key {
		return 0, fmt.Errorf("%q: want %s=TICKS", word, key)
	}
	n, err := strconv.ParseUint(v, 10, 64)
	if err != nil || n > 1<<30 {
		return 0, fmt.Errorf("%q: %s is not a number of ticks", word, key)
	}
	return n, nil
}

// ParseRatio reads a probability: N/D, a decimal fraction (0.01) or a percent
// (1%, 0.5%).
func ParseRatio(s string) (prng.Ratio, error) {
	bad := fmt.Errorf("%q is not a probability (want 1/100, 0.01 or 1%%)", s)
	if num, den, ok := strings.Cut(s, "/"); ok {
		n, err1 := strconv.ParseUint(num, 10, 32)
		d, err2 := strconv.ParseUint(den, 10, 32)
		if err1 != nil || err2 != nil || d == 0 || n > d {
			return prng.Ratio{}, bad
		}
		return prng.Ratio{Num: uint32(n), Den: uint32(d)}, nil
	}
	scale := 1.0
	if t, ok := strings.CutSuffix(s, "%"); ok {
		s, scale = t, 100
	}
	if s == "" || strings.ContainsAny(s, "eE+-") {
		return prng.Ratio{}, bad
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil || math.IsNaN(f) || f < 0 || f > scale {
		return prng.Ratio{}, bad
	}
	const den = 1_000_000
	num := uint32(math.Round(f / scale * den))
	if num == 0 {
		return prng.Ratio{}, nil
	}
	return prng.Ratio{Num: num, Den: den}, nil
}

// Apply sets the options the setting names.
func (s NetSetting) Apply(o *packetsim.Options) {
	switch s.Key {
	case "loss":
		o.Loss = s.Ratio
	case "replay":
		o.Replay = s.Ratio
	case "corrupt":
		o.Corrupt, o.CorruptDelivered = s.Ratio, s.Delivered
	case "reorder":
		o.Reorder, o.ReorderMaxTicks = s.Ratio, s.N
	case "clog":
		if s.Off {
			o.Clog = prng.Ratio{}
		} else {
			o.ClogMeanTicks = s.N
			if o.Clog.Zero() {
				// A mean without a rate would change nothing.
				o.Clog = prng.Ratio{Num: 1, Den: 100000}
			}
		}
	case "delay":
		o.DelayMinTicks, o.DelayMeanTicks = s.N, s.Mean
	case "link-capacity":
		o.LinkCapacity = int(s.N)
	case "quiet":
		o.Loss, o.Replay, o.Reorder, o.Clog = prng.Ratio{}, prng.Ratio{}, prng.Ratio{}, prng.Ratio{}
	}
}
