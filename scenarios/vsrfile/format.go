package vsrfile

import (
	"strconv"
	"strings"
)

// Format writes f: its comments, its header lines in order, then its actions
// in order, one line each, words separated by one space. For every tree
// Parse returns, Parse(Format(f)) is f (but for the lines it was read from),
// and Format(Parse(Format(f))) is Format(f).
func Format(f *File) []byte {
	var b strings.Builder
	for _, c := range f.Comments {
		b.WriteString("#" + c + "\n")
	}
	for _, it := range f.Header {
		b.WriteString(formatItem(it) + "\n")
	}
	for i := range f.Actions {
		b.WriteString(formatAction(&f.Actions[i]) + "\n")
	}
	return []byte(b.String())
}

func u(v uint64) string { return strconv.FormatUint(v, 10) }

func formatItem(it Item) string {
	switch it := it.(type) {
	case *Seed:
		return "seed " + u(it.Value)
	case *Setting:
		w := append([]string{it.Key}, it.Args...)
		if it.Network {
			w = append([]string{"network"}, w...)
		}
		return strings.Join(w, " ")
	case *ExpectVerdict:
		return "expect " + it.Verdict
	case *ExpectServed:
		return "expect served " + u(it.From) + " " + u(it.To) + " >= " + u(it.Min)
	case *ExpectViewChange:
		return "expect view-change " + u(it.From) + " " + u(it.To)
	case *ExpectViewChanges:
		return "expect view-changes " + u(it.From) + " " + u(it.To) + " <= " + u(it.Max)
	}
	panic("vsrfile: unknown header item")
}

func formatAction(a *Action) string {
	w := []string{"at", u(a.At), string(a.Verb)}
	switch {
	case a.Verb == Crash || a.Verb == Restart:
		w = appendTargets(w, a.Targets)
	case a.Verb == Partition:
		for i, side := range a.Sides {
			if i > 0 {
				w = append(w, "|")
			}
			w = appendTargets(w, side)
		}
	case a.Verb.Link():
		if a.Verb == Drop || a.Verb == Pass {
			w = append(w, strings.Join(a.Kinds, ","))
		}
		w = append(appendTargets(w, a.From), "->")
		w = appendTargets(w, a.To)
	case a.Verb == ExtraDelay:
		w = append(w, a.Delay[0].String()+":"+a.Delay[1].String()+"="+u(a.Ticks))
	case a.Verb == Network:
		w = append(w, a.Setting...)
	case a.Verb == Note && a.Text != "":
		w = append(w, a.Text)
	case a.Verb.Storage():
		w = append(w, storageWords(a)...)
	}
	return strings.Join(w, " ")
}

func appendTargets(w []string, ts []Target) []string {
	for _, t := range ts {
		w = append(w, t.String())
	}
	return w
}
