package ndjson

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"vsrsim/sim"
	"vsrsim/vsr"
)

// Filter cuts noise from a written trace: it never touches the hash.
// Terms, each KEY=LIST:
//
//	kind=send,recv,status,-timeout,-Commit   line kinds, event kinds or message commands; "-" excludes
//	replica=0,2                              lines at or from these replicas
//	op=10-20 (or op=17)                      lines about these ops
//
// phase and note lines carry no replica or op and are kept for context unless
// a kind term leaves them out.
type Filter struct {
	include, exclude []string
	replicas         uint64 // bit set; 0 keeps every replica
	opLo, opHi       uint64
	ops              bool
	terms            []string
}

// lineKinds are the kinds of trace line.
var lineKinds = []string{"send", "recv", "drop", "event", "crash", "restart", "phase", "note"}

// ParseFilter reads --trace-filter terms; the error is one line.
func ParseFilter(terms []string) (Filter, error) {
	f := Filter{terms: terms}
	for _, term := range terms {
		key, list, ok := strings.Cut(term, "=")
		if !ok || list == "" {
			return Filter{}, fmt.Errorf("%q: want kind=LIST, replica=LIST or op=A-B", term)
		}
		read, ok := filterTerms[key]
		if !ok {
			return Filter{}, fmt.Errorf("%q: unknown key %q (want kind, replica or op)", term, key)
		}
		if err := read(&f, list); err != nil {
			return Filter{}, fmt.Errorf("%q: %w", term, err)
		}
	}
	return f, nil
}

// filterTerms read the LIST of each key of a term.
var filterTerms = map[string]func(f *Filter, list string) error{
	"kind":    (*Filter).readKinds,
	"replica": (*Filter).readReplicas,
	"op":      (*Filter).readOps,
}

func (f *Filter) readKinds(list string) error {
	for _, k := range strings.Split(list, ",") {
		name, out := strings.CutPrefix(k, "-")
		if !knownKind(name) {
			return fmt.Errorf("unknown kind %q (want a line kind %s, an event kind such as status or timeout, or a message such as Prepare)",
				name, strings.Join(lineKinds, ", "))
		}
		if out {
			f.exclude = append(f.exclude, name)
		} else {
			f.include = append(f.include, name)
		}
	}
	return nil
}

func (f *Filter) readReplicas(list string) error {
	for _, r := range strings.Split(list, ",") {
		i, err := strconv.Atoi(r)
		if err != nil || i < 0 || i >= vsr.ReplicasMax {
			return fmt.Errorf("%q is not a replica index 0..%d", r, vsr.ReplicasMax-1)
		}
		f.replicas |= 1 << uint(i)
	}
	return nil
}

func (f *Filter) readOps(list string) error {
	a, b, isRange := strings.Cut(list, "-")
	if !isRange {
		b = a
	}
	lo, err1 := strconv.ParseUint(a, 10, 64)
	hi, err2 := strconv.ParseUint(b, 10, 64)
	if err1 != nil || err2 != nil || hi < lo {
		return fmt.Errorf("want op=A-B with A <= B, or op=N")
	}
	f.opLo, f.opHi, f.ops = lo, hi, true
	return nil
}

func knownKind(name string) bool {
	if slices.Contains(lineKinds, name) {
		return true
	}
	for k := vsr.EventKind(1); !strings.HasPrefix(k.String(), "Event("); k++ {
		if k.String() == name {
			return true
		}
	}
	for c := vsr.Command(1); !strings.HasPrefix(c.String(), "Command("); c++ {
		if c.String() == name {
			return true
		}
	}
	return false
}

// String is the filter as its terms, for the trace header.
func (f Filter) String() string { return strings.Join(f.terms, " ") }

// Keep reports whether the filter keeps r.
func (f *Filter) Keep(r *sim.Record) bool {
	if len(f.include) > 0 && !f.matches(f.include, r) {
		return false
	}
	if len(f.exclude) > 0 && f.matches(f.exclude, r) {
		return false
	}
	if r.Kind == "phase" || r.Kind == "note" {
		return true
	}
	return f.keepReplica(r) && f.keepOp(r)
}

// keepReplica reports whether r is at or from a replica the filter names, or
// the filter names none.
func (f *Filter) keepReplica(r *sim.Record) bool {
	if f.replicas == 0 {
		return true
	}
	i, ok := r.Replica()
	p, okPeer := r.Peer()
	return (ok && f.replicas&(1<<uint(i)) != 0) || (okPeer && f.replicas&(1<<uint(p)) != 0)
}

// keepOp reports whether r is about an op in the filter's range, or the
// filter names none.
func (f *Filter) keepOp(r *sim.Record) bool {
	if !f.ops {
		return true
	}
	op, ok := r.Op()
	return ok && op >= f.opLo && op <= f.opHi
}

func (f *Filter) matches(names []string, r *sim.Record) bool {
	for _, n := range names {
		switch {
		case n == r.Kind:
			return true
		case r.Event != nil && n == r.Event.Kind.String():
			return true
		case r.Msg != nil && n == r.Msg.Command.String():
			return true
		case r.Event != nil && r.Event.Kind == vsr.EvDrop && n == r.Event.Dropped().Command.String():
			return true // a replica's drop names the message it dropped, as its msg field does
		}
	}
	return false
}
