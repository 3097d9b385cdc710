package shrink

import (
	"slices"
	"strconv"
	"strings"

	"vsrsim/scenarios/vsrfile"
)

// The search edits a scenario file as its syntax tree (vsrfile): settings by
// key, actions as typed nodes. It never needs to know what an action does
// beyond the nodes it names; the scenarios package checks every candidate
// before it runs. Keys are written as a file writes them, "network loss" for
// a network setting.

// source is the tree the search starts from: src without its comments and
// seed, which a candidate does not carry (the search holds the seed).
func source(src *vsrfile.File) *vsrfile.File {
	s := src.Clone()
	s.Comments = nil
	s.ClearSeed()
	return s
}

func splitKey(key string) (bool, string) {
	k, ok := strings.CutPrefix(key, "network ")
	return ok, k
}

// get returns a setting's value (the words after its key).
func get(s *vsrfile.File, key string) (string, bool) {
	_, k := splitKey(key)
	st, ok := s.Lookup(k)
	if !ok {
		return "", false
	}
	return strings.Join(st.Args, " "), true
}

// set replaces a setting, or adds it last so that it applies after any
// network setting before it.
func set(s *vsrfile.File, key, value string) {
	network, k := splitKey(key)
	s.Set(vsrfile.Setting{Network: network, Key: k, Args: strings.Fields(value)})
}

func del(s *vsrfile.File, key string) {
	_, k := splitKey(key)
	s.Delete(k)
}

// without returns the nodes of the script that a cluster of replicas
// replicas and clients clients has: targets naming a larger index go, and an
// action left with nothing to act on goes with them.
func without(s *vsrfile.File, replicas, clients int) *vsrfile.File {
	keep := func(t vsrfile.Target) bool {
		switch t.Kind {
		case vsrfile.Replica:
			return t.N < replicas
		case vsrfile.Client:
			return t.N < clients
		}
		return true
	}
	out := s.Clone()
	out.Actions = out.Actions[:0:0]
	for _, a := range s.Actions {
		if fitAction(&a, keep) {
			out.Actions = append(out.Actions, a)
		}
	}
	keepWord := func(w string) bool {
		n, err := strconv.Atoi(w)
		return err != nil || n < replicas
	}
	fitCore(out, keepWord)
	fitLiveness(out, keepWord)
	return out
}

func fitCore(out *vsrfile.File, keep func(string) bool) {
	if kept, ok := keptWords(out, "core", keep); ok {
		setWords(out, "core", kept)
	}
}

func fitLiveness(out *vsrfile.File, keep func(string) bool) {
	kept, ok := keptWords(out, "liveness", func(w string) bool {
		from, to, ok := strings.Cut(w, "->")
		return !ok || (keep(from) && keep(to))
	})
	if !ok {
		return
	}
	if len(kept) == 0 || kept[len(kept)-1] == "cut" {
		kept = slices.DeleteFunc(kept, func(w string) bool { return w == "cut" })
	}
	setWords(out, "liveness", kept)
}

// keptWords are the words of a setting's value that keep keeps; false if the
// file does not set key.
func keptWords(out *vsrfile.File, key string, keep func(string) bool) ([]string, bool) {
	v, ok := get(out, key)
	if !ok {
		return nil, false
	}
	var kept []string
	for _, w := range strings.Fields(v) {
		if keep(w) {
			kept = append(kept, w)
		}
	}
	return kept, true
}

// fitAction filters an action's node targets by keep, and reports whether it
// still has something to act on.
func fitAction(a *vsrfile.Action, keep func(vsrfile.Target) bool) bool {
	filter := func(ts []vsrfile.Target) []vsrfile.Target {
		return slices.DeleteFunc(slices.Clone(ts), func(t vsrfile.Target) bool { return !keep(t) })
	}
	switch {
	case a.Verb == vsrfile.Crash || a.Verb == vsrfile.Restart || a.Verb.Storage():
		a.Targets = filter(a.Targets)
		return len(a.Targets) > 0
	case a.Verb.Link():
		a.From, a.To = filter(a.From), filter(a.To)
		return len(a.From) > 0 && len(a.To) > 0
	case a.Verb == vsrfile.Partition:
		var sides [][]vsrfile.Target
		for _, side := range a.Sides {
			if ts := filter(side); len(ts) > 0 {
				sides = append(sides, ts)
			}
		}
		a.Sides = sides
		return len(sides) >= 2
	case a.Verb == vsrfile.ExtraDelay:
		return keep(a.Delay[0]) && keep(a.Delay[1])
	}
	return true
}

// setWords sets key to words, or removes it if there are none.
func setWords(out *vsrfile.File, key string, words []string) {
	if len(words) == 0 {
		del(out, key)
		return
	}
	set(out, key, strings.Join(words, " "))
}
