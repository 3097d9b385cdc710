package settings

import (
	"fmt"
	"strings"

	"vsrsim/prng"
	"vsrsim/replica"
	"vsrsim/sim"
)

// The `storage` setting: one line per aspect of the replicas' disks
// (sim.Storage), so a file states only what it changes and a recording
// writes one line a field. Its words:
//
//	storage on | off
//	storage read-fault|write-fault|misdirect|lost|torn|aimed-corrupt|aimed-misdirect|aimed-quiet-corrupt|aimed-checkpoint|aimed-lost-rewrite|aimed-spoil-rewrite|aimed-superblock-loss P
//	storage latency min=N mean=N
//	storage rot mean=N
//	storage atlas off
//	storage scrub off
//
// Every form but off turns storage on. Like the network settings, each adds
// to a list that Apply applies in the order given, so `storage off` then
// `storage torn 1/2` is disks that only tear.

// storageSetting is one `storage` value as read.
type storageSetting struct {
	form  *storageForm
	ratio prng.Ratio
	min   uint64
	mean  uint64
}

type storageForm struct {
	word string
	args string // the form of the arguments, for an error
	// ratio is the fault a probability form sets; nil for the others.
	ratio func(s *sim.Storage) *prng.Ratio
	read  func(s *storageSetting, args []string) error
	apply func(s *storageSetting, st *sim.Storage)
}

// storageForms are the setting's first words, in the order a recording writes
// them. Parsing, applying and writing all walk this one table.
var storageForms = []*storageForm{
	{word: "on", read: noArgs, apply: func(*storageSetting, *sim.Storage) {}},
	{word: "off", read: noArgs, apply: func(_ *storageSetting, st *sim.Storage) { *st = sim.Storage{} }},
	faultForm("read-fault", func(s *sim.Storage) *prng.Ratio { return &s.ReadFault }),
	faultForm("write-fault", func(s *sim.Storage) *prng.Ratio { return &s.WriteFault }),
	faultForm("misdirect", func(s *sim.Storage) *prng.Ratio { return &s.Misdirect }),
	faultForm("lost", func(s *sim.Storage) *prng.Ratio { return &s.Lost }),
	faultForm("torn", func(s *sim.Storage) *prng.Ratio { return &s.Torn }),
	faultForm("aimed-corrupt", func(s *sim.Storage) *prng.Ratio { return &s.AimedCorrupt }),
	faultForm("aimed-misdirect", func(s *sim.Storage) *prng.Ratio { return &s.AimedMisdirect }),
	faultForm("aimed-quiet-corrupt", func(s *sim.Storage) *prng.Ratio { return &s.AimedQuietCorrupt }),
	faultForm("aimed-checkpoint", func(s *sim.Storage) *prng.Ratio { return &s.AimedCheckpoint }),
	faultForm("aimed-lost-rewrite", func(s *sim.Storage) *prng.Ratio { return &s.AimedLostRewrite }),
	faultForm("aimed-spoil-rewrite", func(s *sim.Storage) *prng.Ratio { return &s.AimedSpoilRewrite }),
	faultForm("aimed-superblock-loss", func(s *sim.Storage) *prng.Ratio { return &s.AimedSuperblockLoss }),
	{word: "latency", args: "min=TICKS mean=TICKS", read: readStorageLatency,
		apply: func(s *storageSetting, st *sim.Storage) { st.LatencyMinTicks, st.LatencyMeanTicks = s.min, s.mean }},
	{word: "rot", args: "mean=TICKS", read: readStorageRot,
		apply: func(s *storageSetting, st *sim.Storage) { st.RotMeanTicks = s.mean }},
	{word: "atlas", args: "off", read: func(s *storageSetting, args []string) error {
		if len(args) != 1 || args[0] != "off" {
			return s.want()
		}
		return nil
	}, apply: func(_ *storageSetting, st *sim.Storage) { st.AtlasOff = true }},
	{word: "scrub", args: "off", read: func(s *storageSetting, args []string) error {
		if len(args) != 1 || args[0] != "off" {
			return s.want()
		}
		return nil
	}, apply: func(_ *storageSetting, st *sim.Storage) { st.ScrubOff = true }},
}

func faultForm(word string, field func(*sim.Storage) *prng.Ratio) *storageForm {
	return &storageForm{word: word, args: "P (a probability: 1/200, 0.005 or 0.5%)", ratio: field,
		read: func(s *storageSetting, args []string) error {
			if len(args) != 1 {
				return s.want()
			}
			r, err := ParseRatio(args[0])
			if err != nil {
				return fmt.Errorf("storage %s: %v", word, err)
			}
			s.ratio = r
			return nil
		},
		apply: func(s *storageSetting, st *sim.Storage) { *field(st) = s.ratio }}
}

func noArgs(s *storageSetting, args []string) error {
	if len(args) != 0 {
		return s.want()
	}
	return nil
}

func (s *storageSetting) want() error {
	return fmt.Errorf("want: storage %s", strings.TrimSpace(s.form.word+" "+s.form.args))
}

func readStorageLatency(s *storageSetting, args []string) error {
	if len(args) != 2 {
		return s.want()
	}
	var err error
	if s.min, err = keyNumber(args[0], "min"); err == nil {
		s.mean, err = keyNumber(args[1], "mean")
	}
	if err != nil {
		return fmt.Errorf("storage latency: %v", err)
	}
	// Checked here, not only by sim.Config.Validate, so that a file's
	// error names its line.
	if s.min > sim.StorageLatencyMax || s.mean > sim.StorageLatencyMax {
		return fmt.Errorf("storage latency min=%d mean=%d: each must be 0..%d ticks", s.min, s.mean, sim.StorageLatencyMax)
	}
	return nil
}

// readStorageRot reads `storage rot mean=N`: the mean ticks before a sector
// of a landed write decays (0: no decay).
func readStorageRot(s *storageSetting, args []string) error {
	if len(args) != 1 {
		return s.want()
	}
	var err error
	if s.mean, err = keyNumber(args[0], "mean"); err != nil {
		return fmt.Errorf("storage rot: %v", err)
	}
	if s.mean > sim.StorageRotMax {
		return fmt.Errorf("storage rot mean=%d: must be 0..%d ticks", s.mean, sim.StorageRotMax)
	}
	return nil
}

func storageWant() string {
	words := make([]string, len(storageForms))
	for i, f := range storageForms {
		words[i] = f.word
	}
	return "want storage " + strings.Join(words, ", ")
}

func parseStorage(o *Override, _, value string) error {
	w := strings.Fields(value)
	if len(w) == 0 {
		return fmt.Errorf("storage: %s", storageWant())
	}
	for _, f := range storageForms {
		if f.word != w[0] {
			continue
		}
		s := storageSetting{form: f}
		if err := f.read(&s, w[1:]); err != nil {
			return err
		}
		o.storage = append(o.storage, s)
		return nil
	}
	return fmt.Errorf("storage %q: %s", w[0], storageWant())
}

// applyStorageTo applies the storage settings, in order, to st.
func (o *Override) applyStorageTo(st *sim.Storage) {
	for i := range o.storage {
		s := &o.storage[i]
		s.form.apply(s, st)
		st.On = s.form.word != "off"
	}
}

func applyStorage(o *Override, cfg *sim.Config) error {
	if len(o.storage) == 0 {
		return nil
	}
	o.applyStorageTo(&cfg.Storage)
	// The journal row applies before this one, so the durability is final.
	if cfg.Storage.On && cfg.Durability != replica.DurabilityWAL {
		return &Error{"storage", fmt.Errorf("disks need a write-ahead journal (journal wal), not journal %s", cfg.Durability)}
	}
	return nil
}

// StorageOn reports whether the override's storage settings, applied to a
// run without disks, give it disks: what a scenario file's storage actions
// need.
func (o *Override) StorageOn() bool {
	var st sim.Storage
	o.applyStorageTo(&st)
	return st.On
}

// StorageValues are the values of `storage` settings that, applied in order
// to a run without disks, give it s exactly: what a recording writes. Off,
// there are none.
func StorageValues(s *sim.Storage) []string {
	if !s.On {
		return nil
	}
	out := []string{fmt.Sprintf("latency min=%d mean=%d", s.LatencyMinTicks, s.LatencyMeanTicks)}
	for _, f := range storageForms {
		if f.ratio != nil && !f.ratio(s).Zero() {
			out = append(out, f.word+" "+ratioValue(*f.ratio(s)))
		}
	}
	if s.RotMeanTicks > 0 {
		out = append(out, fmt.Sprintf("rot mean=%d", s.RotMeanTicks))
	}
	if s.AtlasOff {
		out = append(out, "atlas off")
	}
	if s.ScrubOff {
		out = append(out, "scrub off")
	}
	return out
}

// ratioValue writes a ratio as ParseRatio reads it back exactly.
func ratioValue(r prng.Ratio) string {
	return fmt.Sprintf("%d/%d", min(r.Num, r.Den), r.Den)
}

// storageString describes the disks for the option dump.
func storageString(s *sim.Storage) []sim.Option {
	atlas := "on"
	if s.AtlasOff {
		atlas = "off"
	}
	var faults []string
	for _, f := range storageForms {
		// The aimed faults show only when drawn: most runs have none.
		if f.ratio != nil && (!strings.HasPrefix(f.word, "aimed-") || !f.ratio(s).Zero()) {
			faults = append(faults, f.word+"="+ratioString(*f.ratio(s)))
		}
	}
	scrub := "on"
	if s.ScrubOff {
		scrub = "off"
	}
	out := []sim.Option{
		{Name: "storage", Value: "on atlas=" + atlas + " scrub=" + scrub},
		{Name: "storage_faults", Value: strings.Join(faults, " ")},
		{Name: "storage_latency", Value: fmt.Sprintf("%d + exponential(mean %d) ticks", s.LatencyMinTicks, s.LatencyMeanTicks)},
	}
	// Rot is a file's alone (the swarm never draws it) and shows only when
	// set.
	if s.RotMeanTicks > 0 {
		out = append(out, sim.Option{Name: "storage_rot", Value: fmt.Sprintf("a sector of each landed write decays after exponential(mean %d) ticks", s.RotMeanTicks)})
	}
	// The second events are the swarm's alone (no setting names them) and
	// show only when drawn.
	if !s.AimedWindowCrash.Zero() || !s.AimedSecond.Zero() {
		out = append(out, sim.Option{Name: "storage_second", Value: fmt.Sprintf("window-crash=%s second=%s",
			ratioString(s.AimedWindowCrash), ratioString(s.AimedSecond))})
	}
	if !s.AimedStaleAsk.Zero() {
		out = append(out, sim.Option{Name: "storage_stale_ask", Value: ratioString(s.AimedStaleAsk)})
	}
	return out
}
