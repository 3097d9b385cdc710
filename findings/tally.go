package findings

import (
	"cmp"
	"slices"
)

// Count is how many records share one value.
type Count struct {
	Name string
	N    int
}

// Tally counts records per verdict, per invariant and per bug switch, most
// frequent first, then by name. A record with several bug switches counts
// once for each.
type Tally struct {
	Verdicts, Invariants, Bugs []Count
}

// NoBugs names the records of runs with every fix on, NoInvariant those with
// no invariant named.
const (
	NoBugs      = "none (every fix on)"
	NoInvariant = "-"
)

// Summarize tallies recs.
func Summarize(recs []Record) Tally {
	var verdicts, invariants, bugs counter
	for _, r := range recs {
		verdicts.add(string(r.Verdict))
		if r.Invariant == "" {
			invariants.add(NoInvariant)
		} else {
			invariants.add(r.Invariant)
		}
		if len(r.Bugs) == 0 {
			bugs.add(NoBugs)
		}
		for _, b := range r.Bugs {
			bugs.add(b)
		}
	}
	return Tally{Verdicts: verdicts.sorted(), Invariants: invariants.sorted(), Bugs: bugs.sorted()}
}

// counter counts names in a slice, so nothing depends on map order.
type counter []Count

func (c *counter) add(name string) {
	for i := range *c {
		if (*c)[i].Name == name {
			(*c)[i].N++
			return
		}
	}
	*c = append(*c, Count{Name: name, N: 1})
}

func (c counter) sorted() []Count {
	out := slices.Clone(c)
	slices.SortFunc(out, func(a, b Count) int {
		if d := cmp.Compare(b.N, a.N); d != 0 {
			return d
		}
		return cmp.Compare(a.Name, b.Name)
	})
	return out
}

// Group is one of a tally's countings, with the label a report gives it.
type Group struct {
	Label  string
	Counts []Count
}

// Groups lists the countings in the order reports show them.
func (t Tally) Groups() []Group {
	return []Group{{"verdict", t.Verdicts}, {"invariant", t.Invariants}, {"bug switch on", t.Bugs}}
}
