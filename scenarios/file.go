package scenarios

import (
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"

	"vsrsim/scenarios/vsrfile"
	"vsrsim/sim"
	"vsrsim/sim/settings"
)

// File is a scenario written as plain text: settings, timed actions, progress
// checks and an optional expected verdict, one per line
// (docs/scenario-files.md):
//
//	# comment
//	seed 7                # the run's seed when none is given
//	replicas 3            # any settings.Override key but extra-delay
//	network quiet         # or: quiet, loss 1/100, clog off, ...
//	storage torn 1/2      # disks: one line per aspect (storage on, latency ...)
//	at 300 cut * -> primary
//	at 400 corrupt 1 op 3 body
//	at 900 heal
//	expect served 1500 4000 >= 20
//	expect view-change 300 1500
//	expect pass
//
// A run starts from sim.DefaultConfig without random crashes or partitions;
// random loss, replay, reorder and clogs stay on unless the file turns them
// off. Actions at one tick run in file order.
//
// The syntax is scenarios/vsrfile's; this package hands it the simulator's
// grammar (setting keys and values, network settings, message kinds) and
// reads the tree into a run.
type File struct {
	Name     string
	Expect   sim.Verdict // "" if the file names none
	tree     *vsrfile.File
	override settings.Override
	settings []setting // key and line of each setting, for errors
	checks   []sim.Expectation
	actions  []action
}

type setting struct {
	key  string
	line int
}

// action is a file's action with what the simulator reads of its words.
type action struct {
	vsrfile.Action
	kinds uint32              // drop, pass: bit per replica.Command
	net   settings.NetSetting // network
	copy  sim.EntryCopy       // corrupt of an entry
}

// fileError is a malformed file: "NAME:LINE: problem".
func fileError(name string, line int, format string, args ...any) error {
	return fmt.Errorf("%s:%d: %s", name, line, fmt.Sprintf(format, args...))
}

// ParseFile reads a scenario file. Its error is one line naming the file, the
// line and the problem.
func ParseFile(name string, r io.Reader) (*File, error) {
	data, err := io.ReadAll(r)
	if err != nil {
		return nil, fmt.Errorf("%s: %v", name, err)
	}
	f := &File{Name: name}
	tree, err := vsrfile.ParseWith(data, f.grammar())
	var e *vsrfile.Error
	switch {
	case errors.As(err, &e) && e.Line > 0:
		return nil, fileError(name, e.Line, "%v", e.Err)
	case err != nil:
		return nil, fmt.Errorf("%s: %v", name, err)
	}
	f.tree = tree
	for _, it := range tree.Header {
		f.addItem(it)
	}
	for _, a := range tree.Actions {
		f.actions = append(f.actions, newAction(a))
	}
	if err := f.checkDisks(); err != nil {
		return nil, err
	}
	return f, nil
}

// checkDisks refuses a storage action in a file whose settings leave the run
// without disks: a file runs from the default configuration, which has none,
// so this is known before any run. Apply checks it again against the
// configuration it is given.
func (f *File) checkDisks() error {
	if f.override.StorageOn() {
		return nil
	}
	for _, a := range f.actions {
		if a.Verb.Storage() {
			return fileError(f.Name, a.Line, "%v", errNoDisks(a.Verb))
		}
	}
	return nil
}

func errNoDisks(v vsrfile.Verb) error {
	return fmt.Errorf("%s: the run has no disks (a storage action needs a storage setting, e.g. storage on)", v)
}

// Seed is the seed the file gives (`seed N`), if it gives one.
func (f *File) Seed() (uint64, bool) { return f.tree.SeedValue() }

// settingKeys are the settings a file may give: every override key but
// extra-delay, which a file gives as a timed action.
var settingKeys = slices.DeleteFunc(slices.Clone(settings.Keys()), func(k string) bool { return k == "extra-delay" })

// grammar is what the simulator says of a file's lines: its setting keys and
// values (read into f.override as they come), network settings, message
// kinds and extra-delay ticks.
func (f *File) grammar() vsrfile.Grammar {
	return vsrfile.Grammar{
		SettingKeys: settingKeys,
		NetworkKeys: settings.NetSettingKeys,
		Value: func(s *vsrfile.Setting) error {
			if len(s.Args) == 0 && s.Key != "quiet" {
				return fmt.Errorf("want: %s VALUE", s.Key)
			}
			return f.override.Set(s.Key, strings.Join(s.Args, " "))
		},
		NetSetting: func(w []string) error {
			_, err := settings.ParseNetSetting(w)
			return err
		},
		Kind: func(k string) error {
			_, err := parseKinds(k)
			return err
		},
		DelayTicks: sim.ParseExtraDelayTicks,
	}
}

func (f *File) addItem(it vsrfile.Item) {
	where := fmt.Sprintf("%s:%d", f.Name, it.Pos())
	switch it := it.(type) {
	case *vsrfile.Setting:
		f.settings = append(f.settings, setting{key: it.Key, line: it.Line})
	case *vsrfile.ExpectVerdict:
		f.Expect = sim.Verdict(it.Verdict)
	case *vsrfile.ExpectServed:
		f.checks = append(f.checks, sim.Expectation{Kind: sim.ExpectServed, From: it.From, To: it.To, Min: it.Min, Where: where})
	case *vsrfile.ExpectViewChange:
		f.checks = append(f.checks, sim.Expectation{Kind: sim.ExpectViewChange, From: it.From, To: it.To, Where: where})
	case *vsrfile.ExpectViewChanges:
		f.checks = append(f.checks, sim.Expectation{Kind: sim.ExpectViewChangesAtMost, From: it.From, To: it.To, Max: it.Max, Where: where})
	}
}

// newAction reads what the simulator needs of a's words; the grammar checked
// them as the file was parsed.
func newAction(a vsrfile.Action) action {
	out := action{Action: a}
	if a.Verb == vsrfile.Drop || a.Verb == vsrfile.Pass {
		out.kinds, _ = parseKinds(strings.Join(a.Kinds, ","))
	}
	if a.Verb == vsrfile.Network {
		out.net, _ = settings.ParseNetSetting(a.Setting)
	}
	if a.Verb == vsrfile.Corrupt && a.Copy != vsrfile.CopySuperblock {
		out.copy, _ = sim.ParseEntryCopy(a.Copy)
	}
	return out
}
