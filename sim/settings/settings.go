// Package settings is the one table of what a user may state about a run on
// top of its base configuration: run flags, scenario-file settings and corpus
// lines all name a row of it by its key. A row reads its value, applies it to
// a sim.Config, says what it does, and says whether the run command has a flag
// for it; the option dump of a configuration (Describe) lives here too.
package settings

import (
	"fmt"
	"slices"
	"strconv"

	"vsrsim/packetsim"
	"vsrsim/prng"
	"vsrsim/replica"
	"vsrsim/sim"
	"vsrsim/vsr"
)

// Override is what a user states about a run on top of its base
// configuration (the seed's swarm draw, a named scenario, or a scenario file's
// defaults), as read by Set. Each field belongs to one row of the table.
type Override struct {
	replicas           *int
	clients            *int
	faultTicks         *uint64
	durability         *replica.Durability
	journalSlots       *int
	topology           *replica.Topology
	checkpointInterval *uint64
	livenessTicks      *uint64
	think              *uint64
	burst              *prng.Ratio
	workload           string // "", "steady" or "off"
	core               []int  // nil: drawn from the seed
	extraDelays        []sim.ExtraDelay
	extraDelaysSet     bool
	network            []NetSetting // in the order given
	keepFaults         bool
	livenessCuts       []sim.Link        // added to by each `liveness cut`
	livenessIsolate    []int             // added to by each `liveness isolate`
	livenessHeal       []int             // added to by each `liveness heal`
	protocol           *replica.Protocol // the source mechanisms named, nil: the base's
	requestQueue       *int
	storage            []storageSetting // in the order given
	crashesBeyondF     *bool            // `crashes beyond-f` (true) or `within-f`
	livenessOff        bool             // `liveness off`
}

// Error is a setting that does not fit the cluster the override gives; Key
// lets a caller point at the line or flag that set it.
type Error struct {
	Key string
	Err error
}

func (e *Error) Error() string { return e.Key + ": " + e.Err.Error() }

// Setting is one row of the table.
type Setting struct {
	Key string
	// Flag: the run command has a flag --Key for the setting, and a replay
	// command carries it (Override.Args).
	Flag bool
	// Form is the value's form, as help shows it.
	Form string
	// Usage says what the setting does, in one line.
	Usage string
	// parse reads one value into the override; a repeated key replaces the
	// earlier value, except where the row adds to it.
	parse func(o *Override, key, value string) error
	// apply shapes a configuration by what parse read, if anything; a cluster
	// the setting does not fit is an *Error.
	apply func(o *Override, cfg *sim.Config) error
	// args is the setting as flags, for a Flag row.
	args func(o *Override) []string
}

// table is every setting, in the order keys are listed and flags given.
var table = append([]Setting{
	{Key: "replicas", Flag: true, Form: "int", Usage: "number of replicas (overrides the seed's draw)",
		parse: parseSmall(func(o *Override) **int { return &o.replicas }, nil),
		apply: applyReplicas, args: flagArgs("replicas", func(o *Override) *int { return o.replicas }, strconv.Itoa)},
	{Key: "clients", Flag: true, Form: "int", Usage: "number of clients (overrides the seed's draw)",
		parse: parseSmall(func(o *Override) **int { return &o.clients }, nil),
		apply: applyClients, args: flagArgs("clients", func(o *Override) *int { return o.clients }, strconv.Itoa)},
	{Key: "ticks", Flag: true, Form: "uint", Usage: fmt.Sprintf("ticks of the fault phase, 0..%d (the liveness phase follows)", sim.TicksMax),
		parse: parseNum(func(o *Override) **uint64 { return &o.faultTicks }, boundTicks),
		apply: setIf(func(o *Override) *uint64 { return o.faultTicks }, func(c *sim.Config) *uint64 { return &c.FaultTicks }),
		args:  flagArgs("ticks", func(o *Override) *uint64 { return o.faultTicks }, formatUint)},
	{Key: "journal", Flag: true, Form: "wal|memory", Usage: "journal durability: wal survives a restart, memory comes back empty",
		parse: parseChoice(func(o *Override) **replica.Durability { return &o.durability },
			choice[replica.Durability]{"wal", replica.DurabilityWAL}, choice[replica.Durability]{"memory", replica.DurabilityMemory}),
		apply: setIf(func(o *Override) *replica.Durability { return o.durability }, func(c *sim.Config) *replica.Durability { return &c.Durability }),
		args:  flagArgs("journal", func(o *Override) *replica.Durability { return o.durability }, replica.Durability.String)},
	{Key: "journal-slots", Flag: true, Form: "int", Usage: fmt.Sprintf("journal capacity in ops, %d..%d", sim.JournalSlotsMin, vsr.JournalSlotsMax),
		parse: parseSmall(func(o *Override) **int { return &o.journalSlots }, boundJournalSlots),
		apply: setIf(func(o *Override) *int { return o.journalSlots }, func(c *sim.Config) *int { return &c.JournalSlots }),
		args:  flagArgs("journal-slots", func(o *Override) *int { return o.journalSlots }, strconv.Itoa)},
	{Key: "topology", Flag: true, Form: "chain|star", Usage: "how the primary replicates prepares",
		parse: parseChoice(func(o *Override) **replica.Topology { return &o.topology },
			choice[replica.Topology]{"chain", replica.TopologyChain}, choice[replica.Topology]{"star", replica.TopologyStar}),
		apply: setIf(func(o *Override) *replica.Topology { return o.topology }, func(c *sim.Config) *replica.Topology { return &c.Topology }),
		args:  flagArgs("topology", func(o *Override) *replica.Topology { return o.topology }, replica.Topology.String)},
	{Key: "extra-delay", Flag: true, Form: "FROM:TO=TICKS", Usage: "extra delay on a directed link, FROM and TO a replica or * (repeatable; replaces the drawn ones)",
		parse: parseExtraDelays, apply: applyExtraDelays, args: extraDelayArgs},
	{Key: "checkpoint-interval", Usage: "ops between checkpoints",
		parse: parseNum(func(o *Override) **uint64 { return &o.checkpointInterval }, nil),
		apply: setIf(func(o *Override) *uint64 { return o.checkpointInterval }, func(c *sim.Config) *uint64 { return &c.CheckpointInterval })},
	{Key: "liveness-ticks", Usage: "the liveness phase's budget for the core to converge",
		parse: parseNum(func(o *Override) **uint64 { return &o.livenessTicks }, nil),
		apply: setIf(func(o *Override) *uint64 { return o.livenessTicks }, func(c *sim.Config) *uint64 { return &c.LivenessTicks })},
	{Key: "workload", Usage: "steady: a steady write rate; off: no requests in the fault phase",
		parse: parseWorkload, apply: applyWorkload},
	{Key: "think", Usage: "mean think time between a reply and the next request, in ticks",
		parse: parseNum(func(o *Override) **uint64 { return &o.think }, nil),
		apply: setIf(func(o *Override) *uint64 { return o.think }, func(c *sim.Config) *uint64 { return &c.RequestMeanTicks })},
	{Key: "core", Usage: "the replicas of the liveness core (default: drawn from the seed)",
		parse: parseCore, apply: applyCore},
	{Key: "liveness", Usage: "off (no liveness phase, asked for), or keep-faults, cut FROM->TO.., isolate R.. and heal R..: what the liveness phase keeps, cuts and heals",
		parse: parseLiveness, apply: applyLiveness},
	{Key: "burst", Usage: "the chance a request follows the last at once",
		parse: parseBurst,
		apply: setIf(func(o *Override) *prng.Ratio { return o.burst }, func(c *sim.Config) *prng.Ratio { return &c.BurstChance })},
	{Key: "protocol", Usage: "robust, or the source mechanisms a run models",
		parse: parseProtocolSetting,
		apply: setIf(func(o *Override) *replica.Protocol { return o.protocol }, func(c *sim.Config) *replica.Protocol { return &c.Protocol })},
	{Key: "request-queue", Usage: "the primary's bound on waiting requests",
		parse: parseSmall(func(o *Override) **int { return &o.requestQueue }, boundRequestQueue),
		apply: setIf(func(o *Override) *int { return o.requestQueue }, func(c *sim.Config) *int { return &c.RequestQueue })},
	// After journal: storage checks the durability it needs.
	{Key: "storage", Usage: "the replicas' disks: on, off, a fault's probability, latency, atlas off, scrub off (docs/scenario-files.md)",
		parse: parseStorage, apply: applyStorage},
	// New rows go last: a file's error lists the keys in this order.
	{Key: "crashes", Usage: "within-f (the default): a scripted crash that would leave more replicas down or amnesiac than the protocol survives is skipped; beyond-f: it happens",
		parse: parseChoice(func(o *Override) **bool { return &o.crashesBeyondF },
			choice[bool]{"within-f", false}, choice[bool]{"beyond-f", true}),
		apply: setIf(func(o *Override) *bool { return o.crashesBeyondF }, func(c *sim.Config) *bool { return &c.CrashesUnbounded })},
}, networkRows()...)

// Keys are the keys Set accepts, in table order; the network keys are
// NetSettingKeys.
func Keys() []string {
	keys := make([]string, len(table))
	for i, s := range table {
		keys[i] = s.Key
	}
	return keys
}

// Flags are the settings the run command has flags for, in the order a
// replay command lists them.
func Flags() []Setting {
	var flags []Setting
	for _, s := range table {
		if s.Flag {
			flags = append(flags, s)
		}
	}
	return flags
}

// FlagKeys are the keys of Flags.
func FlagKeys() []string {
	var keys []string
	for _, s := range Flags() {
		keys = append(keys, s.Key)
	}
	return keys
}

func row(key string) (*Setting, bool) {
	for i := range table {
		if table[i].Key == key {
			return &table[i], true
		}
	}
	return nil, false
}

// Set parses one setting. A repeated key replaces the earlier value, except
// extra-delay, liveness, protocol, storage and the network settings, which add
// to it.
func (o *Override) Set(key, value string) error {
	s, ok := row(key)
	if !ok {
		return fmt.Errorf("unknown setting %q", key)
	}
	return s.parse(o, key, value)
}

// replicaNames are the rows whose values name replicas: they apply once the
// cluster's size is final, in this order.
var replicaNames = []string{"liveness", "extra-delay", "core"}

// Apply shapes cfg by the override and validates the result: every setting is
// checked against the cluster the override gives.
func (o *Override) Apply(cfg *sim.Config) error {
	for i := range table {
		s := &table[i]
		if s.apply == nil || slices.Contains(replicaNames, s.Key) {
			continue
		}
		if err := s.apply(o, cfg); err != nil {
			return err
		}
	}
	if o.durability != nil && *o.durability == replica.DurabilityMemory && cfg.Storage.Drawn {
		// The seed drew disks for a write-ahead journal; a memory journal
		// asked for instead writes nothing to disk. Disks a setting asked
		// for stay, and the storage setting refuses the pair.
		cfg.Storage = sim.Storage{}
	}
	for _, ns := range o.network {
		ns.Apply(&cfg.Network)
	}
	for _, key := range replicaNames {
		s, _ := row(key)
		if err := s.apply(o, cfg); err != nil {
			return err
		}
	}
	if err := o.validateReplica(cfg); err != nil {
		return err
	}
	if err := cfg.Validate(); err != nil {
		return fmt.Errorf("invalid configuration: %w", err)
	}
	return nil
}

// validateReplica names the setting behind a replica option the replica
// refuses, so a file can point at its line.
func (o *Override) validateReplica(cfg *sim.Config) error {
	opts := cfg.ReplicaOptions(0)
	if err := opts.Validate(); err != nil {
		switch {
		case o.journalSlots != nil:
			return &Error{"journal-slots", err}
		case o.checkpointInterval != nil:
			return &Error{"checkpoint-interval", err}
		}
	}
	net := cfg.Network
	net.Nodes, net.Replicas = cfg.Replicas+cfg.Clients, cfg.Replicas
	if err := net.Validate(); err != nil && len(o.network) > 0 {
		return &Error{o.network[len(o.network)-1].Key, err}
	}
	if cfg.FaultTicks == 0 && cfg.LivenessTicks == 0 && (o.faultTicks != nil || o.livenessTicks != nil || o.livenessOff) {
		return &Error{"ticks", fmt.Errorf("a run needs ticks")}
	}
	return nil
}

// Args is the override as run flags, in table order: what a replay command
// carries. Settings with no flag are left out.
func (o *Override) Args() []string {
	var args []string
	for _, s := range Flags() {
		args = append(args, s.args(o)...)
	}
	return args
}

// setIf applies a plain value: the configuration's field takes it if set.
func setIf[T any](from func(*Override) *T, to func(*sim.Config) *T) func(*Override, *sim.Config) error {
	return func(o *Override, cfg *sim.Config) error {
		if v := from(o); v != nil {
			*to(cfg) = *v
		}
		return nil
	}
}

func applyReplicas(o *Override, cfg *sim.Config) error {
	if o.replicas == nil {
		return nil
	}
	if err := applyCount("replicas", *o.replicas, &cfg.Replicas, vsr.ReplicasMax); err != nil {
		return err
	}
	// The base drew its extra delays for the cluster it drew; a delay
	// naming a replica this cluster lacks would fail for a reason the
	// user never typed.
	cfg.ExtraDelays = slices.DeleteFunc(slices.Clone(cfg.ExtraDelays), func(d sim.ExtraDelay) bool {
		return checkExtraDelay(d, cfg.Replicas) != nil
	})
	if cfg.Replicas < 2 {
		// A partition needs two sides (swarm.Config's own rule).
		cfg.Network.PartitionMode = packetsim.PartitionNone
		cfg.Network.PartitionChance = prng.Ratio{}
	}
	return nil
}

func applyClients(o *Override, cfg *sim.Config) error {
	if o.clients == nil {
		return nil
	}
	return applyCount("clients", *o.clients, &cfg.Clients, vsr.ClientsMax)
}

// applyCount sets a count of the cluster, which must be 1..most.
func applyCount(key string, v int, field *int, most int) error {
	*field = v
	if v < 1 || v > most {
		return &Error{key, fmt.Errorf("must be 1..%d, got %d", most, v)}
	}
	return nil
}

func applyWorkload(o *Override, cfg *sim.Config) error {
	switch o.workload {
	case "steady":
		cfg.ThinkSteady = true
	case "off":
		cfg.WorkloadOff = true
	}
	return nil
}

func applyLiveness(o *Override, cfg *sim.Config) error {
	if o.livenessOff {
		if o.livenessTicks != nil && *o.livenessTicks != 0 {
			return &Error{"liveness", fmt.Errorf("off: the liveness phase is skipped, but liveness-ticks gives it %d ticks", *o.livenessTicks)}
		}
		cfg.LivenessTicks = 0
		cfg.LivenessOff = true
	}
	if o.keepFaults {
		cfg.LivenessKeepFaults = true
	}
	for _, l := range o.livenessCuts {
		if max(l.From, l.To) >= cfg.Replicas {
			return &Error{"liveness", fmt.Errorf("cut %d->%d: no such replica in a cluster of %d", l.From, l.To, cfg.Replicas)}
		}
	}
	if o.livenessCuts != nil {
		cfg.LivenessCuts = slices.Clone(o.livenessCuts)
	}
	for _, r := range o.livenessIsolate {
		if r >= cfg.Replicas {
			return &Error{"liveness", fmt.Errorf("isolate %d: no such replica in a cluster of %d", r, cfg.Replicas)}
		}
	}
	if o.livenessIsolate != nil {
		cfg.LivenessIsolate = slices.Clone(o.livenessIsolate)
	}
	for _, r := range o.livenessHeal {
		if r >= cfg.Replicas {
			return &Error{"liveness", fmt.Errorf("heal %d: no such replica in a cluster of %d", r, cfg.Replicas)}
		}
	}
	if o.livenessHeal != nil {
		cfg.LivenessHeal = slices.Clone(o.livenessHeal)
	}
	return nil
}

func applyExtraDelays(o *Override, cfg *sim.Config) error {
	if !o.extraDelaysSet {
		return nil
	}
	for _, d := range o.extraDelays {
		if err := checkExtraDelay(d, cfg.Replicas); err != nil {
			return &Error{"extra-delay", fmt.Errorf("%s: %v", d, err)}
		}
	}
	cfg.ExtraDelays = slices.Clone(o.extraDelays)
	return nil
}

func applyCore(o *Override, cfg *sim.Config) error {
	if o.core == nil {
		return nil
	}
	for _, i := range o.core {
		if i >= cfg.Replicas {
			return &Error{"core", fmt.Errorf("no replica %d in a cluster of %d", i, cfg.Replicas)}
		}
	}
	cfg.Core = slices.Clone(o.core)
	return nil
}

func checkExtraDelay(d sim.ExtraDelay, replicas int) error {
	for _, node := range []int{d.From, d.To} {
		if node != packetsim.AnyNode && node >= replicas {
			return fmt.Errorf("no replica %d in a cluster of %d (replicas are 0..%d)", node, replicas, replicas-1)
		}
	}
	return nil
}

// flagArgs is a plain value as its flag, if set.
func flagArgs[T any](key string, v func(*Override) *T, format func(T) string) func(*Override) []string {
	return func(o *Override) []string {
		if p := v(o); p != nil {
			return []string{"--" + key, format(*p)}
		}
		return nil
	}
}

func formatUint(v uint64) string { return strconv.FormatUint(v, 10) }

func extraDelayArgs(o *Override) []string {
	var args []string
	if o.extraDelaysSet {
		for _, d := range o.extraDelays {
			args = append(args, "--extra-delay", d.String())
		}
	}
	return args
}
