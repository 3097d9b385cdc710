package vsrfile

import (
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
)

const actionNames = "crash, restart, partition, heal, cut, uncut, drop, pass, hold, release, extra-delay, network, note, corrupt or misdirect"

func (p *parser) action(n int, w []string) error {
	if len(w) < 2 {
		return errors.New("want: at TICK ACTION ...")
	}
	at, err := strconv.ParseUint(w[0], 10, 64)
	if err != nil {
		return fmt.Errorf("tick %q is not a number", w[0])
	}
	a := Action{Line: n, At: at, Verb: Verb(w[1])}
	if err := p.actionArgs(&a, w[2:]); err != nil {
		return err
	}
	p.f.Actions = append(p.f.Actions, a)
	return nil
}

func (p *parser) actionArgs(a *Action, args []string) error {
	switch {
	case a.Verb == Crash || a.Verb == Restart:
		return a.parseNodes(args)
	case a.Verb == Partition:
		return a.parseSides(args)
	case a.Verb == Heal:
		if len(args) != 0 {
			return errors.New("want: at TICK heal")
		}
	case a.Verb.Link():
		return p.parseLink(a, args)
	case a.Verb == ExtraDelay:
		if len(args) != 1 {
			return errors.New("want: at TICK extra-delay FROM:TO=TICKS")
		}
		if err := p.parseDelay(a, args[0]); err != nil {
			return fmt.Errorf("extra-delay %v", err)
		}
	case a.Verb == Network:
		a.Setting = slices.Clone(args)
		if p.g.NetSetting != nil {
			return p.g.NetSetting(a.Setting)
		}
	case a.Verb == Note:
		a.Text = strings.Join(args, " ")
	case a.Verb == Corrupt:
		return a.parseCorrupt(args)
	case a.Verb == Misdirect:
		return a.parseMisdirect(args)
	default:
		return fmt.Errorf("unknown action %q (want %s)", a.Verb, actionNames)
	}
	return nil
}

func (a *Action) parseNodes(args []string) error {
	if len(args) == 0 {
		return fmt.Errorf("want: at TICK %s TARGET..", a.Verb)
	}
	var err error
	if a.Targets, err = parseTargets(args); err != nil {
		return err
	}
	for _, t := range a.Targets {
		if t.IsClient() {
			return fmt.Errorf("%s: %s is not a replica", a.Verb, t)
		}
	}
	return nil
}

func (p *parser) parseLink(a *Action, args []string) error {
	if a.Verb == Drop || a.Verb == Pass {
		if len(args) == 0 {
			return fmt.Errorf("want: at TICK %s KIND[,KIND..] FROM.. -> TO..", a.Verb)
		}
		a.Kinds = strings.Split(args[0], ",")
		for _, k := range a.Kinds {
			if p.g.Kind == nil {
				break
			}
			if err := p.g.Kind(k); err != nil {
				return err
			}
		}
		args = args[1:]
	}
	i := slices.Index(args, "->")
	if i <= 0 || i == len(args)-1 {
		return fmt.Errorf("want: at TICK %s FROM.. -> TO..", a.Verb)
	}
	var err error
	if a.From, err = parseTargets(args[:i]); err != nil {
		return err
	}
	a.To, err = parseTargets(args[i+1:])
	return err
}

func (a *Action) parseSides(args []string) error {
	var side []Target
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
			return errors.New("partition: an empty side")
		}
		a.Sides = append(a.Sides, side)
		side = nil
	}
	if len(a.Sides) < 2 {
		return errors.New("want: at TICK partition A.. | B.. [| C..] (at least two sides)")
	}
	return checkSides(a.Sides)
}

// checkSides refuses a node on two sides. "*" and "clients" on a side stand
// for those no other side names, so two of either would leave nothing for the
// second.
func checkSides(sides [][]Target) error {
	for _, kind := range []TargetKind{AllReplicas, AllClients} {
		n := 0
		for _, s := range sides {
			if slices.ContainsFunc(s, func(t Target) bool { return t.Kind == kind }) {
				n++
			}
		}
		if n > 1 {
			return fmt.Errorf("partition: %s on two sides", Target{Kind: kind})
		}
	}
	sideOf := map[Target]int{}
	for i, s := range sides {
		for _, t := range s {
			if t.Kind != Replica && t.Kind != Client {
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
func (p *parser) parseDelay(a *Action, s string) error {
	link, ticksText, ok := strings.Cut(s, "=")
	fromText, toText, ok2 := strings.Cut(link, ":")
	if !ok || !ok2 {
		return fmt.Errorf("%q: want FROM:TO=TICKS", s)
	}
	for i, text := range []string{fromText, toText} {
		t, err := parseTarget(text)
		if err != nil || t.IsClient() {
			return fmt.Errorf("%q: %q is not a replica index, * or a role", s, text)
		}
		a.Delay[i] = t
	}
	if a.Delay[0] == a.Delay[1] && a.Delay[0].Kind == Replica {
		return fmt.Errorf("%q: a replica does not send to itself", s)
	}
	ticks := p.g.DelayTicks
	if ticks == nil {
		ticks = func(text string) (uint64, error) { return strconv.ParseUint(text, 10, 64) }
	}
	var err error
	if a.Ticks, err = ticks(ticksText); err != nil {
		return fmt.Errorf("%q: %v", s, err)
	}
	return nil
}

const targetForms = "a replica index, *, c0.., clients, primary or backup1.."

func parseTarget(s string) (Target, error) {
	small := func(d string) (int, bool) {
		n, err := strconv.Atoi(d)
		return n, err == nil && n >= 0 && n < 1<<16 && d == strconv.Itoa(n)
	}
	switch {
	case s == "*":
		return Target{Kind: AllReplicas}, nil
	case s == "clients":
		return Target{Kind: AllClients}, nil
	case s == "primary":
		return Target{Kind: Primary}, nil
	case strings.HasPrefix(s, "backup"):
		if n, ok := small(s[len("backup"):]); ok && n >= 1 {
			return Target{Kind: Backup, N: n}, nil
		}
	case strings.HasPrefix(s, "c"):
		if n, ok := small(s[1:]); ok {
			return Target{Kind: Client, N: n}, nil
		}
	default:
		if n, ok := small(s); ok {
			return Target{Kind: Replica, N: n}, nil
		}
	}
	return Target{}, fmt.Errorf("%q is not a target (want %s)", s, targetForms)
}

func parseTargets(words []string) ([]Target, error) {
	if len(words) == 0 {
		return nil, fmt.Errorf("want targets (%s)", targetForms)
	}
	out := make([]Target, 0, len(words))
	for _, w := range words {
		t, err := parseTarget(w)
		if err != nil {
			return nil, err
		}
		out = append(out, t)
	}
	return out, nil
}
