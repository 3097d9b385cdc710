package shrink

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// Script is a scenario file as the search edits it: settings and timed
// actions as text, comments dropped. The search never needs to know what an
// action does beyond the nodes it names; the scenarios package parses and
// checks every candidate before it runs.
type Script struct {
	Settings []Setting
	Actions  []Action
}

// Setting is one setting line. Key is its first word, or "network WORD" for a
// network setting; an expect line is kept whole as its own key.
type Setting struct {
	Key, Line string
}

// Action is one "at TICK BODY" line.
type Action struct {
	At   uint64
	Body string
}

// Parse reads a scenario file's lines. It checks only the "at TICK" form;
// the scenarios package judges the rest when a candidate runs.
func Parse(data []byte) (*Script, error) {
	s := &Script{}
	for n, text := range strings.Split(string(data), "\n") {
		if i := strings.IndexByte(text, '#'); i >= 0 {
			text = text[:i]
		}
		w := strings.Fields(text)
		if len(w) == 0 {
			continue
		}
		switch {
		case w[0] == "at":
			if len(w) < 3 {
				return nil, fmt.Errorf("line %d: want at TICK ACTION", n+1)
			}
			at, err := strconv.ParseUint(w[1], 10, 64)
			if err != nil {
				return nil, fmt.Errorf("line %d: tick %q is not a number", n+1, w[1])
			}
			s.Actions = append(s.Actions, Action{At: at, Body: strings.Join(w[2:], " ")})
		case w[0] == "expect":
			s.Settings = append(s.Settings, Setting{Key: strings.Join(w, " "), Line: strings.Join(w, " ")})
		default:
			key := w[0]
			if key == "network" && len(w) > 1 {
				key += " " + w[1]
			} else if slices.Contains(networkKeys, key) {
				key = "network " + key
			}
			s.Settings = append(s.Settings, Setting{Key: key, Line: strings.Join(w, " ")})
		}
	}
	// The order a run takes them in: by tick, file order within a tick.
	slices.SortStableFunc(s.Actions, func(a, b Action) int { return cmpUint(a.At, b.At) })
	return s, nil
}

var networkKeys = []string{"loss", "replay", "reorder", "clog", "delay", "link-capacity", "quiet", "corrupt"}

func cmpUint(a, b uint64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// Render writes the script, header lines first as comments.
func (s *Script) Render(header []string) []byte {
	var b strings.Builder
	for _, h := range header {
		fmt.Fprintf(&b, "# %s\n", h)
	}
	for _, st := range s.Settings {
		b.WriteString(st.Line + "\n")
	}
	for _, a := range s.Actions {
		fmt.Fprintf(&b, "at %d %s\n", a.At, a.Body)
	}
	return []byte(b.String())
}

func (s *Script) clone() *Script {
	return &Script{Settings: slices.Clone(s.Settings), Actions: slices.Clone(s.Actions)}
}

// get returns a setting's value (the line after its key).
func (s *Script) get(key string) (string, bool) {
	for _, st := range s.Settings {
		if st.Key == key {
			w := strings.Fields(st.Line)
			if w[0] == "network" {
				w = w[1:]
			}
			return strings.Join(w[1:], " "), true
		}
	}
	return "", false
}

// set replaces a setting, or adds it last so that it applies after any
// network setting before it.
func (s *Script) set(key, value string) {
	line := key + " " + value
	s.del(key)
	s.Settings = append(s.Settings, Setting{Key: key, Line: line})
}

func (s *Script) del(key string) {
	s.Settings = slices.DeleteFunc(s.Settings, func(st Setting) bool { return st.Key == key })
}

// without returns the nodes of the script that a cluster of replicas
// replicas and clients clients has: targets naming a larger index go, and an
// action left with nothing to act on goes with them.
func (s *Script) without(replicas, clients int) *Script {
	keep := func(tok string) bool {
		if n, err := strconv.Atoi(tok); err == nil {
			return n < replicas
		}
		if c, ok := strings.CutPrefix(tok, "c"); ok {
			if n, err := strconv.Atoi(c); err == nil {
				return n < clients
			}
		}
		return true
	}
	out := s.clone()
	out.Actions = out.Actions[:0]
	for _, a := range s.Actions {
		if body, ok := fitAction(a.Body, keep); ok {
			out.Actions = append(out.Actions, Action{At: a.At, Body: body})
		}
	}
	if core, ok := s.get("core"); ok {
		var kept []string
		for _, w := range strings.Fields(core) {
			if keep(w) {
				kept = append(kept, w)
			}
		}
		if len(kept) == 0 {
			out.del("core")
		} else {
			out.set("core", strings.Join(kept, " "))
		}
	}
	if lv, ok := s.get("liveness"); ok {
		var kept []string
		for _, w := range strings.Fields(lv) {
			if from, to, ok := strings.Cut(w, "->"); !ok || (keep(from) && keep(to)) {
				kept = append(kept, w)
			}
		}
		if len(kept) == 0 || kept[len(kept)-1] == "cut" {
			kept = slices.DeleteFunc(kept, func(w string) bool { return w == "cut" })
		}
		if len(kept) == 0 {
			out.del("liveness")
		} else {
			out.set("liveness", strings.Join(kept, " "))
		}
	}
	return out
}

// fitAction filters an action's node targets by keep.
func fitAction(body string, keep func(string) bool) (string, bool) {
	w := strings.Fields(body)
	verb, args := w[0], w[1:]
	filter := func(ts []string) []string {
		return slices.DeleteFunc(slices.Clone(ts), func(t string) bool { return !keep(t) })
	}
	switch verb {
	case "crash", "restart":
		ts := filter(args)
		return strings.Join(append([]string{verb}, ts...), " "), len(ts) > 0
	case "cut", "uncut", "hold", "release", "drop", "pass":
		head := []string{verb}
		if verb == "drop" || verb == "pass" {
			if len(args) == 0 {
				return body, true
			}
			head, args = append(head, args[0]), args[1:]
		}
		i := slices.Index(args, "->")
		if i < 0 {
			return body, true
		}
		from, to := filter(args[:i]), filter(args[i+1:])
		out := slices.Concat(head, from, []string{"->"}, to)
		return strings.Join(out, " "), len(from) > 0 && len(to) > 0
	case "partition":
		var sides []string
		for _, side := range strings.Split(strings.Join(args, " "), "|") {
			if ts := filter(strings.Fields(side)); len(ts) > 0 {
				sides = append(sides, strings.Join(ts, " "))
			}
		}
		return "partition " + strings.Join(sides, " | "), len(sides) >= 2
	case "extra-delay":
		if len(args) != 1 {
			return body, true
		}
		link, _, _ := strings.Cut(args[0], "=")
		from, to, _ := strings.Cut(link, ":")
		return body, keep(from) && keep(to)
	}
	return body, true
}
