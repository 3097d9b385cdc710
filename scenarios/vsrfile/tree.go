// Package vsrfile is the syntax of scenario files (docs/scenario-files.md): a
// typed tree, Parse and Format. It is the one place the format lives; the
// scenarios package runs a tree, `vsrsim run --record` builds one, and the
// shrinker edits one.
//
// The package knows the shape of every line, but not which settings exist or
// what their values mean: those belong to the simulator (settings.Override and
// settings.NetSetting), which a caller hands in as a Grammar. So the dependency
// runs one way, scenarios -> vsrfile and scenarios -> sim, and neither the
// syntax nor the simulator imports the other.
package vsrfile

import (
	"slices"
	"strconv"
)

// File is one scenario file: its leading comments, the lines that apply
// before the run (seed, settings, expectations) in file order, and its timed
// actions in run order (by tick, file order within a tick). Comments after
// the first line that is not one, and blank lines, are not kept.
type File struct {
	Comments []string // the text after each leading comment line's '#'
	Header   []Item   // *Seed, *Setting, *ExpectVerdict, *ExpectServed, *ExpectViewChange, *ExpectViewChanges
	Actions  []Action
}

// Item is a line of a file's header.
type Item interface {
	// Pos is the line the item was read from; 0 for one a program built.
	Pos() int
}

// Seed is `seed N`: the seed a run of the file takes when none is given.
type Seed struct {
	Line  int
	Value uint64
}

// Setting is `KEY ARGS..` or `network KEY ARGS..`. A setting is set once per
// file; `loss 1/20` and `network loss 1/20` set the same key. A storage
// setting is named by its first word too (Name), so a file gives one line per
// aspect of its disks.
type Setting struct {
	Line    int
	Network bool // written with the "network" prefix
	Key     string
	Args    []string
}

// StorageKey is the key whose settings are named by their first word.
const StorageKey = "storage"

// Name is what a file sets once: the key, or for a storage setting the key
// and its first word ("storage torn").
func (s *Setting) Name() string {
	if s.Key == StorageKey && len(s.Args) > 0 {
		return s.Key + " " + s.Args[0]
	}
	return s.Key
}

// ExpectVerdict is `expect VERDICT`.
type ExpectVerdict struct {
	Line    int
	Verdict string
}

// ExpectServed is `expect served FROM TO >= MIN`.
type ExpectServed struct {
	Line          int
	From, To, Min uint64
}

// ExpectViewChange is `expect view-change FROM TO`.
type ExpectViewChange struct {
	Line     int
	From, To uint64
}

// ExpectViewChanges is `expect view-changes FROM TO <= MAX`.
type ExpectViewChanges struct {
	Line          int
	From, To, Max uint64
}

func (e *ExpectViewChanges) Pos() int { return e.Line }

func (s *Seed) Pos() int             { return s.Line }
func (s *Setting) Pos() int          { return s.Line }
func (e *ExpectVerdict) Pos() int    { return e.Line }
func (e *ExpectServed) Pos() int     { return e.Line }
func (e *ExpectViewChange) Pos() int { return e.Line }

// Verb names an action.
type Verb string

// The actions.
const (
	Crash      Verb = "crash"
	Restart    Verb = "restart"
	Partition  Verb = "partition"
	Heal       Verb = "heal"
	Cut        Verb = "cut"
	Uncut      Verb = "uncut"
	Drop       Verb = "drop"
	Pass       Verb = "pass"
	Hold       Verb = "hold"
	Release    Verb = "release"
	ExtraDelay Verb = "extra-delay"
	Network    Verb = "network"
	Note       Verb = "note"
	Corrupt    Verb = "corrupt"
	Misdirect  Verb = "misdirect"
)

// Storage reports whether v acts on a replica's disk.
func (v Verb) Storage() bool { return v == Corrupt || v == Misdirect }

// The words of `corrupt R ...`: which copies of an entry, or the superblock.
const (
	CopyHeader     = "header"
	CopyBody       = "body"
	CopyBoth       = "both"
	CopySuperblock = "superblock"
)

// Link reports whether v acts on directed links FROM.. -> TO...
func (v Verb) Link() bool {
	return slices.Contains([]Verb{Cut, Uncut, Drop, Pass, Hold, Release}, v)
}

// Action is `at TICK VERB ..`. Which fields a verb uses:
//
//	crash, restart                  Targets
//	partition                       Sides
//	cut, uncut, hold, release       From, To
//	drop, pass                      Kinds, From, To
//	extra-delay                     Delay (FROM, TO), Ticks
//	network                         Setting (the setting's words, key first)
//	note                            Text
//	corrupt                         Targets (one word), Copy; Op unless Copy is superblock
//	misdirect                       Targets (one word), Op, OpTo
type Action struct {
	Line    int
	At      uint64
	Verb    Verb
	Targets []Target
	Sides   [][]Target
	From    []Target
	To      []Target
	Kinds   []string // message kinds as written
	Delay   [2]Target
	Ticks   uint64
	Setting []string
	Text    string
	Op      uint64 // corrupt, misdirect: the op whose journal entry
	OpTo    uint64 // misdirect: the op whose slot the write lands on
	Copy    string // corrupt: CopyHeader, CopyBody, CopyBoth or CopySuperblock
}

// TargetKind is what a target word names.
type TargetKind uint8

// The targets.
const (
	Replica     TargetKind = iota + 1 // "2"
	AllReplicas                       // "*"
	Client                            // "c0"
	AllClients                        // "clients"
	Primary                           // "primary"
	Backup                            // "backup1": N replicas after the primary in ring order
)

// Target is one word of a target list. Roles are resolved when the action
// runs.
type Target struct {
	Kind TargetKind
	N    int
}

func (t Target) String() string {
	switch t.Kind {
	case Replica:
		return strconv.Itoa(t.N)
	case AllReplicas:
		return "*"
	case Client:
		return "c" + strconv.Itoa(t.N)
	case AllClients:
		return "clients"
	case Primary:
		return "primary"
	}
	return "backup" + strconv.Itoa(t.N)
}

// Role reports whether t names a replica by its role.
func (t Target) Role() bool { return t.Kind == Primary || t.Kind == Backup }

// IsClient reports whether t names clients.
func (t Target) IsClient() bool { return t.Kind == Client || t.Kind == AllClients }

// SeedValue is the file's seed, if it gives one.
func (f *File) SeedValue() (uint64, bool) {
	for _, it := range f.Header {
		if s, ok := it.(*Seed); ok {
			return s.Value, true
		}
	}
	return 0, false
}

// SetSeed gives the file seed v, as its first header line.
func (f *File) SetSeed(v uint64) {
	f.ClearSeed()
	f.Header = slices.Insert(f.Header, 0, Item(&Seed{Value: v}))
}

// ClearSeed removes the file's seed.
func (f *File) ClearSeed() {
	f.Header = slices.DeleteFunc(slices.Clone(f.Header), func(it Item) bool { _, ok := it.(*Seed); return ok })
}

// SetComments replaces f's leading comments by lines, each written "# LINE".
func (f *File) SetComments(lines []string) {
	f.Comments = nil
	for _, l := range lines {
		if l != "" {
			l = " " + l
		}
		f.Comments = append(f.Comments, l)
	}
}

// Lookup is the setting of name (`network KEY` or KEY is named KEY; a
// storage setting is named `storage WORD`: Setting.Name).
func (f *File) Lookup(name string) (*Setting, bool) {
	for _, it := range f.Header {
		if s, ok := it.(*Setting); ok && s.Name() == name {
			return s, true
		}
	}
	return nil, false
}

// Settings are the file's settings of key, in file order: one at most but
// for storage.
func (f *File) Settings(key string) []*Setting {
	var out []*Setting
	for _, it := range f.Header {
		if s, ok := it.(*Setting); ok && s.Key == key {
			out = append(out, s)
		}
	}
	return out
}

// Set replaces the setting of s.Name() by s, placed last so that it applies
// after every network setting before it.
func (f *File) Set(s Setting) {
	f.Delete(s.Name())
	f.Header = append(f.Header, &s)
}

// Delete removes the setting of name.
func (f *File) Delete(name string) {
	f.Header = slices.DeleteFunc(slices.Clone(f.Header), func(it Item) bool {
		s, ok := it.(*Setting)
		return ok && s.Name() == name
	})
}

// Clone is a copy of f whose header and action lists can be edited without
// touching f's. Items and target lists are shared: replace them, do not
// write through them.
func (f *File) Clone() *File {
	return &File{Comments: slices.Clone(f.Comments), Header: slices.Clone(f.Header), Actions: slices.Clone(f.Actions)}
}
