package sim

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"vsrsim/packetsim"
	"vsrsim/prng"
	"vsrsim/replica"
)

// Override is what a user states about a run on top of its base
// configuration (the seed's swarm draw, a named scenario, or a scenario file's
// defaults). Run flags, scenario-file settings and corpus lines all produce
// one, through Set, so each setting is parsed and checked in one place.
type Override struct {
	Replicas           *int
	Clients            *int
	FaultTicks         *uint64
	Durability         *replica.Durability
	JournalSlots       *int
	Topology           *replica.Topology
	CheckpointInterval *uint64
	LivenessTicks      *uint64
	Think              *uint64
	Burst              *prng.Ratio
	Workload           string // "", "steady" or "off"
	Core               []int  // nil: drawn from the seed
	ExtraDelays        []ExtraDelay
	extraDelaysSet     bool
	Network            []NetSetting // in the order given
	KeepFaults         bool
	LivenessCuts       []Link            // added to by each `liveness cut`
	LivenessIsolate    []int             // added to by each `liveness isolate`
	Protocol           *replica.Protocol // the source mechanisms named, nil: the base's
	RequestQueue       *int
}

// OverrideError is a setting that does not fit the cluster the override
// gives; Key lets a caller point at the line or flag that set it.
type OverrideError struct {
	Key string
	Err error
}

func (e *OverrideError) Error() string { return e.Key + ": " + e.Err.Error() }

// OverrideKeys are the keys Set accepts. The first seven are the run flags;
// the network keys are NetSettingKeys.
var OverrideKeys = append([]string{
	"replicas", "clients", "ticks", "journal", "journal-slots", "topology", "extra-delay",
	"checkpoint-interval", "liveness-ticks", "workload", "think", "core", "liveness", "burst", "protocol",
	"request-queue",
}, NetSettingKeys...)

// FlagKeys are the override keys the run command has flags for, in the order
// a replay command lists them.
var FlagKeys = OverrideKeys[:7]

// Set parses one setting. A repeated key replaces the earlier value, except
// extra-delay and the network settings, which add to it.
func (o *Override) Set(key, value string) error {
	num := func() (uint64, error) {
		v, err := strconv.ParseUint(value, 10, 64)
		if err != nil {
			return 0, fmt.Errorf("%s %q is not a number", key, value)
		}
		return v, nil
	}
	small := func() (int, error) {
		v, err := num()
		if err == nil && v > 1<<30 {
			err = fmt.Errorf("%s %d is too large", key, v)
		}
		return int(v), err
	}
	switch key {
	case "replicas", "clients", "journal-slots", "request-queue":
		v, err := small()
		if err != nil {
			return err
		}
		switch key {
		case "request-queue":
			if v < 1 || v > replica.RequestQueueMax {
				return fmt.Errorf("request-queue %d: must be 1..%d", v, replica.RequestQueueMax)
			}
			o.RequestQueue = &v
		case "replicas":
			o.Replicas = &v
		case "clients":
			o.Clients = &v
		default:
			if v < JournalSlotsMin || v > replica.JournalSlotsMax {
				return fmt.Errorf("journal-slots %d: must be %d..%d", v, JournalSlotsMin, replica.JournalSlotsMax)
			}
			o.JournalSlots = &v
		}
	case "ticks", "checkpoint-interval", "liveness-ticks", "think":
		v, err := num()
		if err != nil {
			return err
		}
		switch key {
		case "ticks":
			if v > TicksMax {
				return fmt.Errorf("ticks %d: must be 0..%d", v, TicksMax)
			}
			o.FaultTicks = &v
		case "checkpoint-interval":
			o.CheckpointInterval = &v
		case "liveness-ticks":
			o.LivenessTicks = &v
		default:
			o.Think = &v
		}
	case "burst":
		r, err := ParseRatio(value)
		if err != nil {
			return fmt.Errorf("burst: %v", err)
		}
		o.Burst = &r
	case "journal":
		d := replica.DurabilityWAL
		switch value {
		case "wal":
		case "memory":
			d = replica.DurabilityMemory
		default:
			return fmt.Errorf("journal %q: want wal or memory", value)
		}
		o.Durability = &d
	case "topology":
		t := replica.TopologyChain
		switch value {
		case "chain":
		case "star":
			t = replica.TopologyStar
		default:
			return fmt.Errorf("topology %q: want chain or star", value)
		}
		o.Topology = &t
	case "workload":
		if value != "steady" && value != "off" {
			return fmt.Errorf("workload %q: want steady or off", value)
		}
		o.Workload = value
	case "liveness":
		// keep-faults, cut FROM->TO.., isolate R.., in any mix (one line of a file).
		const want = "want keep-faults, cut FROM->TO.. or isolate R.."
		w, list, some := strings.Fields(value), "", false
		for _, x := range w {
			switch {
			case x == "keep-faults":
				if list != "" && !some {
					return fmt.Errorf("liveness %q: %s", value, want)
				}
				o.KeepFaults, list = true, ""
			case x == "cut" || x == "isolate":
				if list != "" && !some {
					return fmt.Errorf("liveness %q: %s", value, want)
				}
				list, some = x, false
			case list == "cut":
				l, err := parseLink(x)
				if err != nil {
					return fmt.Errorf("liveness cut: %v", err)
				}
				o.LivenessCuts, some = append(o.LivenessCuts, l), true
			case list == "isolate":
				r, err := strconv.Atoi(x)
				if err != nil || r < 0 {
					return fmt.Errorf("liveness isolate %q: want a replica number", x)
				}
				o.LivenessIsolate, some = append(o.LivenessIsolate, r), true
			default:
				return fmt.Errorf("liveness %q: %s", value, want)
			}
		}
		if len(w) == 0 || (list != "" && !some) {
			return fmt.Errorf("liveness %q: %s", value, want)
		}
	case "protocol":
		p, err := parseProtocol(value)
		if err != nil {
			return err
		}
		if o.Protocol != nil {
			p = mergeProtocol(*o.Protocol, p)
		}
		o.Protocol = &p
	case "core":
		core := []int{}
		for _, w := range strings.Fields(value) {
			n, err := strconv.Atoi(w)
			if err != nil || n < 0 || n >= replica.ReplicasMax {
				return fmt.Errorf("core: %q is not a replica index", w)
			}
			if slices.Contains(core, n) {
				return fmt.Errorf("core: replica %d twice", n)
			}
			core = append(core, n)
		}
		if len(core) == 0 {
			return fmt.Errorf("core: want replica indexes")
		}
		slices.Sort(core)
		o.Core = core
	case "extra-delay":
		for _, part := range strings.Split(value, ",") {
			d, err := ParseExtraDelay(part)
			if err != nil {
				return err
			}
			o.ExtraDelays = append(o.ExtraDelays, d)
		}
		o.extraDelaysSet = true
	default:
		if !slices.Contains(NetSettingKeys, key) {
			return fmt.Errorf("unknown setting %q", key)
		}
		s, err := ParseNetSetting(append([]string{key}, strings.Fields(value)...))
		if err != nil {
			return err
		}
		o.Network = append(o.Network, s)
	}
	return nil
}

// Apply shapes cfg by the override and validates the result: every setting is
// checked against the cluster the override gives.
func (o *Override) Apply(cfg *Config) error {
	if o.Replicas != nil {
		cfg.Replicas = *o.Replicas
		if cfg.Replicas < 1 || cfg.Replicas > replica.ReplicasMax {
			return &OverrideError{"replicas", fmt.Errorf("must be 1..%d, got %d", replica.ReplicasMax, cfg.Replicas)}
		}
		// The base drew its extra delays for the cluster it drew; a delay
		// naming a replica this cluster lacks would fail for a reason the
		// user never typed.
		cfg.ExtraDelays = slices.DeleteFunc(slices.Clone(cfg.ExtraDelays), func(d ExtraDelay) bool {
			return checkExtraDelay(d, cfg.Replicas) != nil
		})
		if cfg.Replicas < 2 {
			// A partition needs two sides (swarm.Config's own rule).
			cfg.Network.PartitionMode = packetsim.PartitionNone
			cfg.Network.PartitionChance = prng.Ratio{}
		}
	}
	if o.Clients != nil {
		cfg.Clients = *o.Clients
		if cfg.Clients < 1 || cfg.Clients > replica.ClientsMax {
			return &OverrideError{"clients", fmt.Errorf("must be 1..%d, got %d", replica.ClientsMax, cfg.Clients)}
		}
	}
	if o.FaultTicks != nil {
		cfg.FaultTicks = *o.FaultTicks
	}
	if o.LivenessTicks != nil {
		cfg.LivenessTicks = *o.LivenessTicks
	}
	if o.Durability != nil {
		cfg.Durability = *o.Durability
	}
	if o.JournalSlots != nil {
		cfg.JournalSlots = *o.JournalSlots
	}
	if o.CheckpointInterval != nil {
		cfg.CheckpointInterval = *o.CheckpointInterval
	}
	if o.Topology != nil {
		cfg.Topology = *o.Topology
	}
	if o.Think != nil {
		cfg.RequestMeanTicks = *o.Think
	}
	if o.Burst != nil {
		cfg.BurstChance = *o.Burst
	}
	switch o.Workload {
	case "steady":
		cfg.ThinkSteady = true
	case "off":
		cfg.WorkloadOff = true
	}
	if o.KeepFaults {
		cfg.LivenessKeepFaults = true
	}
	for _, s := range o.Network {
		s.Apply(&cfg.Network)
	}
	if o.Protocol != nil {
		cfg.Protocol = *o.Protocol
	}
	if o.RequestQueue != nil {
		cfg.RequestQueue = *o.RequestQueue
	}
	for _, l := range o.LivenessCuts {
		if max(l.From, l.To) >= cfg.Replicas {
			return &OverrideError{"liveness", fmt.Errorf("cut %d->%d: no such replica in a cluster of %d", l.From, l.To, cfg.Replicas)}
		}
	}
	if o.LivenessCuts != nil {
		cfg.LivenessCuts = slices.Clone(o.LivenessCuts)
	}
	for _, r := range o.LivenessIsolate {
		if r >= cfg.Replicas {
			return &OverrideError{"liveness", fmt.Errorf("isolate %d: no such replica in a cluster of %d", r, cfg.Replicas)}
		}
	}
	if o.LivenessIsolate != nil {
		cfg.LivenessIsolate = slices.Clone(o.LivenessIsolate)
	}
	if o.extraDelaysSet {
		for _, d := range o.ExtraDelays {
			if err := checkExtraDelay(d, cfg.Replicas); err != nil {
				return &OverrideError{"extra-delay", fmt.Errorf("%s: %v", d, err)}
			}
		}
		cfg.ExtraDelays = slices.Clone(o.ExtraDelays)
	}
	if o.Core != nil {
		for _, i := range o.Core {
			if i >= cfg.Replicas {
				return &OverrideError{"core", fmt.Errorf("no replica %d in a cluster of %d", i, cfg.Replicas)}
			}
		}
		cfg.Core = slices.Clone(o.Core)
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
func (o *Override) validateReplica(cfg *Config) error {
	opts := cfg.replicaOptions(0)
	if err := opts.Validate(); err != nil {
		switch {
		case o.JournalSlots != nil:
			return &OverrideError{"journal-slots", err}
		case o.CheckpointInterval != nil:
			return &OverrideError{"checkpoint-interval", err}
		}
	}
	net := cfg.Network
	net.Nodes, net.Replicas = cfg.Replicas+cfg.Clients, cfg.Replicas
	if err := net.Validate(); err != nil && len(o.Network) > 0 {
		return &OverrideError{o.Network[len(o.Network)-1].Key, err}
	}
	if cfg.FaultTicks == 0 && cfg.LivenessTicks == 0 && (o.FaultTicks != nil || o.LivenessTicks != nil) {
		return &OverrideError{"ticks", fmt.Errorf("a run needs ticks")}
	}
	return nil
}

func checkExtraDelay(d ExtraDelay, replicas int) error {
	for _, node := range []int{d.From, d.To} {
		if node != packetsim.AnyNode && node >= replicas {
			return fmt.Errorf("no replica %d in a cluster of %d (replicas are 0..%d)", node, replicas, replicas-1)
		}
	}
	return nil
}

// Args is the override as run flags, in FlagKeys order: what a replay command
// carries. Settings with no flag are left out.
func (o *Override) Args() []string {
	var args []string
	add := func(key, value string) { args = append(args, "--"+key, value) }
	if o.Replicas != nil {
		add("replicas", strconv.Itoa(*o.Replicas))
	}
	if o.Clients != nil {
		add("clients", strconv.Itoa(*o.Clients))
	}
	if o.FaultTicks != nil {
		add("ticks", strconv.FormatUint(*o.FaultTicks, 10))
	}
	if o.Durability != nil {
		add("journal", o.Durability.String())
	}
	if o.JournalSlots != nil {
		add("journal-slots", strconv.Itoa(*o.JournalSlots))
	}
	if o.Topology != nil {
		add("topology", o.Topology.String())
	}
	if o.extraDelaysSet {
		for _, d := range o.ExtraDelays {
			add("extra-delay", d.String())
		}
	}
	return args
}
