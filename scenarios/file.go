package scenarios

import (
	"bufio"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"

	"vsrsim/sim"
)

// File is a scenario written as plain text: settings, timed actions, progress
// checks and an optional expected verdict, one per line
// (docs/scenario-files.md):
//
//	# comment
//	replicas 3            # any sim.Override key but extra-delay
//	network quiet         # or: quiet, loss 1/100, clog off, ...
//	at 300 cut * -> primary
//	at 900 heal
//	expect served 1500 4000 >= 20
//	expect view-change 300 1500
//	expect pass
//
// A run starts from sim.DefaultConfig without random crashes or partitions;
// random loss, replay, reorder and clogs stay on unless the file turns them
// off. Actions at one tick run in file order.
type File struct {
	Name       string
	Expect     sim.Verdict // "" if the file names none
	expectLine int
	override   sim.Override
	settings   []setting // key and line of each setting, for errors
	checks     []sim.Expectation
	actions    []action
}

type setting struct {
	key  string
	line int
}

type action struct {
	line    int
	at      uint64
	verb    string
	targets []target       // crash, restart
	from    []target       // cut, uncut, drop, pass, hold, release
	to      []target       // ditto
	kinds   uint32         // drop, pass: bit per replica.Command
	sides   [][]target     // partition
	delay   [2]target      // extra-delay from, to
	ticks   uint64         // extra-delay
	net     sim.NetSetting // network
	text    string         // note
}

// fileError is a malformed file: "NAME:LINE: problem".
func fileError(name string, line int, format string, args ...any) error {
	return fmt.Errorf("%s:%d: %s", name, line, fmt.Sprintf(format, args...))
}

// maxLine bounds one line: a scenario file is written by hand.
const maxLine = 64 << 10

// ParseFile reads a scenario file. Its error is one line naming the file, the
// line and the problem.
func ParseFile(name string, r io.Reader) (*File, error) {
	f := &File{Name: name}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 4096), maxLine)
	line := 0
	for sc.Scan() {
		line++
		text := sc.Text()
		if i := strings.IndexByte(text, '#'); i >= 0 {
			text = text[:i]
		}
		w := strings.Fields(text)
		if len(w) == 0 {
			continue
		}
		if err := f.parseLine(line, w); err != nil {
			return nil, fileError(name, line, "%v", err)
		}
	}
	if err := sc.Err(); err != nil {
		return nil, fileError(name, line+1, "%v", err)
	}
	if len(f.actions) == 0 && len(f.settings) == 0 && f.Expect == "" && len(f.checks) == 0 {
		return nil, fmt.Errorf("%s: no settings or actions", name)
	}
	// Stable: actions at one tick keep their file order.
	slices.SortStableFunc(f.actions, func(a, b action) int {
		switch {
		case a.at < b.at:
			return -1
		case a.at > b.at:
			return 1
		}
		return 0
	})
	return f, nil
}

// settingKeys are the settings a file may give: every override key but
// extra-delay, which a file gives as a timed action.
var settingKeys = slices.DeleteFunc(slices.Clone(sim.OverrideKeys), func(k string) bool { return k == "extra-delay" })

func (f *File) parseLine(line int, w []string) error {
	switch {
	case w[0] == "expect":
		return f.parseExpect(line, w[1:])
	case w[0] == "at":
		return f.parseAction(line, w[1:])
	case w[0] == "network":
		if len(w) < 2 {
			return fmt.Errorf("want: network SETTING (%s)", strings.Join(sim.NetSettingKeys, ", "))
		}
		w = w[1:]
		if !slices.Contains(sim.NetSettingKeys, w[0]) {
			return fmt.Errorf("unknown network setting %q (want %s)", w[0], strings.Join(sim.NetSettingKeys, ", "))
		}
	case !slices.Contains(settingKeys, w[0]):
		return fmt.Errorf("unknown line %q (want at, expect, network, or a setting: %s)", w[0], strings.Join(settingKeys, ", "))
	}
	key := w[0]
	for _, s := range f.settings {
		if s.key == key {
			return fmt.Errorf("%s is set twice (first on line %d)", key, s.line)
		}
	}
	if len(w) < 2 && key != "quiet" {
		return fmt.Errorf("want: %s VALUE", key)
	}
	if err := f.override.Set(key, strings.Join(w[1:], " ")); err != nil {
		return err
	}
	f.settings = append(f.settings, setting{key: key, line: line})
	return nil
}

func (f *File) parseExpect(line int, w []string) error {
	const forms = "want: expect pass|safety|liveness|crash, expect served T1 T2 >= N, or expect view-change T1 T2"
	if len(w) == 0 {
		return fmt.Errorf("%s", forms)
	}
	ticks := func(a, b string) (uint64, uint64, error) {
		t1, err1 := strconv.ParseUint(a, 10, 64)
		t2, err2 := strconv.ParseUint(b, 10, 64)
		if err1 != nil || err2 != nil {
			return 0, 0, fmt.Errorf("window %s %s: want two ticks", a, b)
		}
		if t1 > t2 {
			return 0, 0, fmt.Errorf("window %d %d ends before it starts", t1, t2)
		}
		return t1, t2, nil
	}
	where := fmt.Sprintf("%s:%d", f.Name, line)
	switch w[0] {
	case "served":
		if len(w) != 5 || w[3] != ">=" {
			return fmt.Errorf("want: expect served T1 T2 >= N")
		}
		t1, t2, err := ticks(w[1], w[2])
		if err != nil {
			return err
		}
		n, err := strconv.ParseUint(w[4], 10, 64)
		if err != nil {
			return fmt.Errorf("served: %q is not a number of replies", w[4])
		}
		f.checks = append(f.checks, sim.Expectation{Kind: sim.ExpectServed, From: t1, To: t2, Min: n, Where: where})
		return nil
	case "view-change":
		if len(w) != 3 {
			return fmt.Errorf("want: expect view-change T1 T2")
		}
		t1, t2, err := ticks(w[1], w[2])
		if err != nil {
			return err
		}
		f.checks = append(f.checks, sim.Expectation{Kind: sim.ExpectViewChange, From: t1, To: t2, Where: where})
		return nil
	}
	if len(w) != 1 {
		return fmt.Errorf("%s", forms)
	}
	for _, v := range []sim.Verdict{sim.VerdictPass, sim.VerdictSafety, sim.VerdictLiveness, sim.VerdictCrash} {
		if string(v) == w[0] {
			if f.Expect != "" {
				return fmt.Errorf("a second expected verdict (first on line %d)", f.expectLine)
			}
			f.Expect, f.expectLine = v, line
			return nil
		}
	}
	return fmt.Errorf("unknown verdict %q (%s)", w[0], forms)
}

const actionNames = "crash, restart, partition, heal, cut, uncut, drop, pass, hold, release, extra-delay, network or note"

func (f *File) parseAction(line int, w []string) error {
	if len(w) < 2 {
		return fmt.Errorf("want: at TICK ACTION ...")
	}
	at, err := strconv.ParseUint(w[0], 10, 64)
	if err != nil {
		return fmt.Errorf("tick %q is not a number", w[0])
	}
	a := action{line: line, at: at, verb: w[1]}
	args := w[2:]
	switch a.verb {
	case "crash", "restart":
		if len(args) == 0 {
			return fmt.Errorf("want: at TICK %s TARGET..", a.verb)
		}
		if a.targets, err = parseTargets(args); err != nil {
			return err
		}
		for _, t := range a.targets {
			if t.client() {
				return fmt.Errorf("%s: %s is not a replica", a.verb, t)
			}
		}
	case "partition":
		if err := a.parseSides(args); err != nil {
			return err
		}
	case "heal":
		if len(args) != 0 {
			return fmt.Errorf("want: at TICK heal")
		}
	case "cut", "uncut", "hold", "release", "drop", "pass":
		if a.verb == "drop" || a.verb == "pass" {
			if len(args) == 0 {
				return fmt.Errorf("want: at TICK %s KIND[,KIND..] FROM.. -> TO..", a.verb)
			}
			if a.kinds, err = parseKinds(args[0]); err != nil {
				return err
			}
			args = args[1:]
		}
		i := slices.Index(args, "->")
		if i <= 0 || i == len(args)-1 {
			return fmt.Errorf("want: at TICK %s FROM.. -> TO..", a.verb)
		}
		if a.from, err = parseTargets(args[:i]); err != nil {
			return err
		}
		if a.to, err = parseTargets(args[i+1:]); err != nil {
			return err
		}
	case "extra-delay":
		if len(args) != 1 {
			return fmt.Errorf("want: at TICK extra-delay FROM:TO=TICKS")
		}
		if err := a.parseDelay(args[0]); err != nil {
			return fmt.Errorf("extra-delay %v", err)
		}
	case "network":
		if a.net, err = sim.ParseNetSetting(args); err != nil {
			return err
		}
	case "note":
		a.text = strings.Join(args, " ")
	default:
		return fmt.Errorf("unknown action %q (want %s)", a.verb, actionNames)
	}
	f.actions = append(f.actions, a)
	return nil
}

func (a *action) parseSides(args []string) error {
	var side []target
	for _, s := range append(slices.Clone(args), "|") {
		if s != "|" {
			t, err := parseTarget(s)
			if err != nil {
				return err
			}
			side = append(side, t)
			continue
		}
		if len(side) == 0 {
			return fmt.Errorf("partition: an empty side")
		}
		a.sides = append(a.sides, side)
		side = nil
	}
	if len(a.sides) < 2 {
		return fmt.Errorf("want: at TICK partition A.. | B.. [| C..] (at least two sides)")
	}
	// "*" and "clients" on a side stand for those no other side names, so
	// two of either would leave nothing for the second.
	for _, kind := range []targetKind{tAllReplicas, tAllClients} {
		n := 0
		for _, s := range a.sides {
			if slices.ContainsFunc(s, func(t target) bool { return t.kind == kind }) {
				n++
			}
		}
		if n > 1 {
			return fmt.Errorf("partition: %s on two sides", target{kind: kind})
		}
	}
	sideOf := map[target]int{}
	for i, s := range a.sides {
		for _, t := range s {
			if t.kind != tReplica && t.kind != tClient {
				continue
			}
			if j, ok := sideOf[t]; ok && j != i {
				return fmt.Errorf("partition: %s is on two sides", t)
			}
			sideOf[t] = i
		}
	}
	return nil
}

// parseDelay reads FROM:TO=TICKS, FROM and TO a replica index, "*" (every
// replica) or a role.
func (a *action) parseDelay(s string) error {
	link, ticksText, ok := strings.Cut(s, "=")
	fromText, toText, ok2 := strings.Cut(link, ":")
	if !ok || !ok2 {
		return fmt.Errorf("%q: want FROM:TO=TICKS", s)
	}
	for i, text := range []string{fromText, toText} {
		t, err := parseTarget(text)
		if err != nil || t.client() {
			return fmt.Errorf("%q: %q is not a replica index, * or a role", s, text)
		}
		a.delay[i] = t
	}
	if a.delay[0] == a.delay[1] && a.delay[0].kind == tReplica {
		return fmt.Errorf("%q: a replica does not send to itself", s)
	}
	var err error
	if a.ticks, err = sim.ParseExtraDelayTicks(ticksText); err != nil {
		return fmt.Errorf("%q: %v", s, err)
	}
	return nil
}
