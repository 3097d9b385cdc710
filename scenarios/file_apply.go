package scenarios

import (
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strings"

	"vsrsim/packetsim"
	"vsrsim/prng"
	"vsrsim/scenarios/vsrfile"
	"vsrsim/sim"
	"vsrsim/sim/settings"
)

// Apply shapes cfg for the file (random crashes and partitions off, its
// settings, its checks) and returns its script, for sim.Attach.Script. Every
// setting and action is checked against the cluster the settings give; an
// error names the file and line.
func (f *File) Apply(cfg *sim.Config) (sim.Script, error) {
	base := filepath.Base(f.Name)
	cfg.Scenario = "file:" + strings.TrimSuffix(base, filepath.Ext(base))
	cfg.CrashChance = prng.Ratio{}
	cfg.Network.PartitionMode = packetsim.PartitionNone
	cfg.Network.PartitionChance = prng.Ratio{}
	cfg.ExtraDelays = nil
	if err := f.override.Apply(cfg); err != nil {
		var oe *settings.Error
		if errors.As(err, &oe) {
			for _, s := range f.settings {
				if s.key == oe.Key {
					return nil, fileError(f.Name, s.line, "%v", err)
				}
			}
		}
		return nil, fmt.Errorf("%s: %v", f.Name, err)
	}
	total := cfg.FaultTicks + cfg.LivenessTicks
	for _, e := range f.checks {
		if e.To > total {
			return nil, fmt.Errorf("%s: window ends at %d, after the run's last tick %d (ticks + liveness-ticks)", e.Where, e.To, total)
		}
	}
	cfg.Expect = slices.Clone(f.checks)
	for _, a := range f.actions {
		if err := a.check(cfg); err != nil {
			return nil, fileError(f.Name, a.Line, "%v", err)
		}
	}
	return &fileScript{file: f}, nil
}

// check refuses an action the cluster cfg gives cannot run.
func (a *action) check(cfg *sim.Config) error {
	if a.At > cfg.FaultTicks {
		return fmt.Errorf("tick %d is after the fault phase (ticks %d)", a.At, cfg.FaultTicks)
	}
	all := slices.Concat(a.Targets, a.From, a.To, a.Delay[:])
	for _, s := range a.Sides {
		all = append(all, s...)
	}
	for _, t := range all {
		if t.Kind == 0 {
			continue // an unused delay end
		}
		if err := checkTarget(t, cfg.Replicas, cfg.Clients); err != nil {
			return err
		}
	}
	if a.Verb.Storage() {
		return checkStorage(a, cfg)
	}
	if a.Verb == vsrfile.Network {
		net := cfg.Network
		a.net.Apply(&net)
		net.Nodes, net.Replicas = cfg.Replicas+cfg.Clients, cfg.Replicas
		if err := net.Validate(); err != nil {
			return fmt.Errorf("network %s: %v", a.net.Key, err)
		}
	}
	return nil
}

// CheckDisks refuses a storage action that cfg, the run's final
// configuration, cannot take. Flags given with a file apply after Apply, and
// a smaller journal can put a misdirect's two ops on one slot: the cluster
// would refuse it mid-run.
func (f *File) CheckDisks(cfg *sim.Config) error {
	for i := range f.actions {
		if a := &f.actions[i]; a.Verb.Storage() {
			if err := checkStorage(a, cfg); err != nil {
				return fileError(f.Name, a.Line, "%v", err)
			}
		}
	}
	return nil
}

// checkStorage refuses a storage action the run's disks cannot take, so that
// the cluster's methods never refuse one mid-run.
func checkStorage(a *action, cfg *sim.Config) error {
	if !cfg.Storage.On {
		return errNoDisks(a.Verb)
	}
	slots := uint64(cfg.JournalSlots)
	if a.Verb == vsrfile.Misdirect && a.Op%slots == a.OpTo%slots {
		return fmt.Errorf("misdirect op %d -> op %d: both ops share journal slot %d (journal-slots %d)", a.Op, a.OpTo, a.Op%slots, slots)
	}
	return nil
}
