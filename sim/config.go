// Package sim is vsrsim's deterministic event loop: virtual time in ticks, the
// cluster harness that drives replicas and clients over the packet simulator,
// fault injection, the trace and its hash, and the run verdict. It is the only
// package that owns time and randomness; nothing here reads a clock or starts a
// goroutine. A run is a Config (data only) and an Attach (what it carries
// besides: a script, an observer, a fault recording, spare memory).
//
// Around it, one job each, importing sim and never imported by it: sim/swarm
// draws a seed's configuration, sim/settings applies what a user states on
// top of one, sim/ndjson writes the trace file; sim/check, below it, is the
// oracle.
package sim

import (
	"errors"
	"fmt"
	"strconv"
	"strings"

	"vsrsim/packetsim"
	"vsrsim/prng"
	"vsrsim/replica"
	"vsrsim/vsr"
)

// Bounds on what a configuration may ask for. A run is virtual time, so nothing
// stops a number from meaning years of ticks; past these a run would only end
// in the event bound after minutes, or overflow tick arithmetic.
const (
	// TicksMax bounds each phase: a hundred times the default fault phase.
	TicksMax = 1_000_000
	// ExtraDelayTicksMax bounds one link's extra delay; the flag and scenario
	// files share it through ParseExtraDelay.
	ExtraDelayTicksMax = 1 << 20
)

// JournalSlotsMin is the smallest journal a replica accepts: the replica's own
// floor, and room for two full pipelines. One number, so every message about
// journal slots names the same minimum.
var JournalSlotsMin = max(vsr.JournalSlotsMin, 2*vsr.PipelineMax)

// ExtraDelay is a directed per-link extra delay. From or To may be
// packetsim.AnyNode. It never draws from the PRNG.
type ExtraDelay struct {
	From, To int
	Ticks    uint64
}

// Config is everything one run needs besides its seed's draws: data only.
// What a run carries besides (a script, observers, memory) is an Attach.
type Config struct {
	Seed     uint64
	Scenario string

	Replicas           int
	Clients            int
	Topology           replica.Topology
	Durability         replica.Durability
	JournalSlots       int
	CheckpointInterval uint64
	Timeouts           replica.Timeouts
	Protocol           replica.Protocol // mechanisms a scenario's source system lacks
	Bugs               replica.Bugs
	// RequestQueue bounds a primary's waiting requests (replica.Options;
	// 0: the default).
	RequestQueue int

	Network     packetsim.Options // Nodes and Replicas are filled in by the harness
	ExtraDelays []ExtraDelay

	// Fault phase.
	FaultTicks       uint64
	CrashChance      prng.Ratio // per live replica per tick
	RestartMeanTicks uint64
	// CrashesUnbounded allows more than f replicas down or amnesiac at once
	// (CrashBeyondF): a scenario file's `crashes beyond-f`.
	CrashesUnbounded bool
	Aimed            AimedFaults

	// Workload.
	RequestMeanTicks   uint64     // mean think time between a reply and the next request
	ThinkSteady        bool       // think exactly RequestMeanTicks: a steady write rate
	BurstChance        prng.Ratio // chance the next request follows at once
	ClientTimeoutTicks uint64
	WorkloadOff        bool // no requests in the fault phase

	// Liveness phase.
	LivenessTicks uint64 // budget for the core to converge
	StableTicks   uint64 // the converged view must hold this long
	Core          []int  // replicas of the core; empty: drawn from the faults stream
	// BareCore: a drawn core is a bare view-change quorum, which must then
	// converge on its own members' votes alone.
	BareCore bool
	// Focus names the swarm focus whose slice the seed fell in
	// (sim/swarm/focus.go), or is empty; it only describes the run.
	Focus       string
	CommitFloor uint64 // a passing run must commit at least this many ops
	// LivenessWorkload keeps clients issuing requests through the liveness
	// phase (scenarios whose defect only bites under sustained writes).
	LivenessWorkload bool
	// LivenessKeepFaults: replicas outside the core keep their scripted
	// cuts, filters, holds and delays through the liveness phase.
	LivenessKeepFaults bool
	// LivenessCuts are links among replicas put down as the liveness phase
	// begins and kept down (a recorded run's cut-offs: sim/faultrecord.go).
	LivenessCuts []Link
	// LivenessIsolate are replicas cut off whole, with the trace note a
	// source protocol's cut-off makes, as the liveness phase begins (a
	// recorded run's source-protocol cut-offs: sim/aimed.go).
	LivenessIsolate []int
	// LivenessHeal are replicas whose kept faults (slow links, kept cuts)
	// are healed where a source protocol's cut-off would have cut them off
	// (a recorded run's heals, D64: sim/heal.go).
	LivenessHeal []int
	// LivenessOff: the run asked for no liveness phase (a scenario file's
	// `liveness off`), so a pass that judged no liveness is what it meant
	// (Result.LivenessOff; the run command exits 0 for it, not 5).
	LivenessOff bool

	EventsMax uint64 // bound on trace lines; past it the run is a crash

	// Expect are progress checks the run makes (sim/expect.go).
	Expect []Expectation

	// Storage puts each replica's journal on a simulated disk
	// (storage_config.go); off, nothing about a run changes.
	Storage Storage

	// SpecOff turns off the step-by-step protocol model (spec/,
	// docs/spec.md), which is on by default; only for speed comparisons.
	// The model only observes: a run's trace and hash are the same either
	// way, unless the model ends it with a finding.
	SpecOff bool
}

// DefaultConfig is `vsrsim run --seed N` with default options: network faults
// and crash/restart on, 3 replicas.
func DefaultConfig(seed uint64) Config {
	return Config{
		Seed:               seed,
		Replicas:           3,
		Clients:            4,
		JournalSlots:       1024,
		CheckpointInterval: 64,
		Timeouts:           replica.DefaultTimeouts(),
		Network: packetsim.Options{
			DelayMinTicks:           1,
			DelayMeanTicks:          3,
			Loss:                    prng.Ratio{Num: 1, Den: 100},
			Replay:                  prng.Ratio{Num: 1, Den: 200},
			Reorder:                 prng.Ratio{Num: 1, Den: 50},
			ReorderMaxTicks:         20,
			LinkCapacity:            64,
			Clog:                    prng.Ratio{Num: 1, Den: 100000},
			ClogMeanTicks:           200,
			PartitionMode:           packetsim.UniformSize,
			PartitionSymmetry:       packetsim.Symmetric,
			PartitionChance:         prng.Ratio{Num: 1, Den: 4000},
			HealChance:              prng.Ratio{Num: 1, Den: 400},
			PartitionStabilityTicks: 200,
			HealStabilityTicks:      1000,
		},
		FaultTicks:         10000,
		CrashChance:        prng.Ratio{Num: 1, Den: 8000},
		RestartMeanTicks:   600,
		RequestMeanTicks:   40,
		BurstChance:        prng.Ratio{Num: 1, Den: 10},
		ClientTimeoutTicks: 300,
		LivenessTicks:      30000,
		StableTicks:        1500,
		CommitFloor:        10,
		EventsMax:          20_000_000,
	}
}

// Validate returns a one-line error for a configuration that cannot run.
func (c *Config) Validate() error {
	for _, check := range []func() error{c.validateShape, c.validateOptions, c.validateLinks, c.validateRun, c.validateStorage} {
		if err := check(); err != nil {
			return err
		}
	}
	return nil
}

// validateShape checks the cluster's size, journal and phases.
func (c *Config) validateShape() error {
	if c.Replicas < 1 || c.Replicas > vsr.ReplicasMax {
		return fmt.Errorf("replicas must be 1..%d, got %d", vsr.ReplicasMax, c.Replicas)
	}
	if c.Clients < 1 || c.Clients > vsr.ClientsMax {
		return fmt.Errorf("clients must be 1..%d, got %d", vsr.ClientsMax, c.Clients)
	}
	if c.JournalSlots < JournalSlotsMin || c.JournalSlots > vsr.JournalSlotsMax {
		return fmt.Errorf("journal slots must be %d..%d, got %d", JournalSlotsMin, vsr.JournalSlotsMax, c.JournalSlots)
	}
	if c.FaultTicks > TicksMax || c.LivenessTicks > TicksMax {
		return fmt.Errorf("ticks must be 0..%d per phase, got %d fault and %d liveness ticks", TicksMax, c.FaultTicks, c.LivenessTicks)
	}
	return nil
}

// validateOptions checks what the replicas and the network are given.
func (c *Config) validateOptions() error {
	o := replica.DefaultOptions(0, c.Replicas)
	o.JournalSlots = c.JournalSlots
	o.CheckpointInterval = c.CheckpointInterval
	o.Timeouts = c.Timeouts
	o.RequestQueue = c.RequestQueue
	if err := o.Validate(); err != nil {
		return err
	}
	net := c.Network
	net.Nodes = c.Replicas + c.Clients
	net.Replicas = c.Replicas
	return net.Validate()
}

// validateLinks checks that the extra delays and the core name replicas the
// cluster has.
func (c *Config) validateLinks() error {
	for _, d := range c.ExtraDelays {
		if err := d.check(); err != nil {
			return err
		}
		if d.From != packetsim.AnyNode && (d.From < 0 || d.From >= c.Replicas) {
			return fmt.Errorf("extra delay from %d: no such replica (have 0..%d)", d.From, c.Replicas-1)
		}
		if d.To != packetsim.AnyNode && (d.To < 0 || d.To >= c.Replicas) {
			return fmt.Errorf("extra delay to %d: no such replica (have 0..%d)", d.To, c.Replicas-1)
		}
	}
	for _, i := range c.Core {
		if i < 0 || i >= c.Replicas {
			return fmt.Errorf("core replica %d out of range", i)
		}
	}
	return nil
}

// validateRun checks the run's expectations and bounds.
func (c *Config) validateRun() error {
	for _, e := range c.Expect {
		if err := e.validate(c.FaultTicks + c.LivenessTicks); err != nil {
			return err
		}
	}
	if c.FaultTicks == 0 && c.LivenessTicks == 0 {
		return fmt.Errorf("a run needs ticks")
	}
	if c.ClientTimeoutTicks == 0 {
		return fmt.Errorf("client timeout must be positive")
	}
	if c.EventsMax == 0 {
		return fmt.Errorf("events max must be positive")
	}
	return nil
}

// ReplicaOptions are the options of replica id in the cluster c gives.
func (c *Config) ReplicaOptions(id int) replica.Options {
	o := replica.DefaultOptions(id, c.Replicas)
	o.Topology = c.Topology
	o.Durability = c.Durability
	o.JournalSlots = c.JournalSlots
	o.CheckpointInterval = c.CheckpointInterval
	o.Timeouts = c.Timeouts
	o.Protocol = c.Protocol
	o.Bugs = c.Bugs
	o.RequestQueue = c.RequestQueue
	o.Storage = c.Storage.On
	if c.Storage.ScrubOff {
		o.Timeouts.ScrubTicks = 0
	}
	return o
}

// Option is one drawn option, for the run's option dump.
type Option struct {
	Name  string `json:"name"`
	Value string `json:"value"`
	// Flag names the command-line flag that set the value; empty when the
	// seed or the scenario chose it.
	Flag string `json:"flag,omitempty"`
}

// ParseExtraDelay reads FROM:TO=TICKS, FROM and TO a replica index or "*" (every
// replica). The CLI's --extra-delay and scenario files share it.
func ParseExtraDelay(s string) (ExtraDelay, error) {
	link, ticksText, ok := strings.Cut(strings.TrimSpace(s), "=")
	if !ok {
		return ExtraDelay{}, fmt.Errorf("%q: want FROM:TO=TICKS", s)
	}
	fromText, toText, ok := strings.Cut(link, ":")
	if !ok {
		return ExtraDelay{}, fmt.Errorf("%q: want FROM:TO=TICKS", s)
	}
	from, err := parseNode(fromText)
	if err != nil {
		return ExtraDelay{}, fmt.Errorf("%q: FROM %w", s, err)
	}
	to, err := parseNode(toText)
	if err != nil {
		return ExtraDelay{}, fmt.Errorf("%q: TO %w", s, err)
	}
	ticks, err := strconv.ParseUint(ticksText, 10, 64)
	if errors.Is(err, strconv.ErrRange) {
		return ExtraDelay{}, fmt.Errorf("%q: %w", s, delayTooLong(ticksText))
	}
	if err != nil {
		return ExtraDelay{}, fmt.Errorf("%q: TICKS %q is not a number of ticks", s, ticksText)
	}
	d := ExtraDelay{From: from, To: to, Ticks: ticks}
	if err := d.check(); err != nil {
		return ExtraDelay{}, fmt.Errorf("%q: %w", s, err)
	}
	return d, nil
}

// check holds the rules of one delay that do not depend on the cluster size;
// ParseExtraDelay and Config.Validate share it so the flag, a scenario file and
// a programmatic config get the same bound and the same words.
func (d ExtraDelay) check() error {
	if d.Ticks > ExtraDelayTicksMax {
		return delayTooLong(strconv.FormatUint(d.Ticks, 10))
	}
	if d.From == d.To && d.From != packetsim.AnyNode {
		return fmt.Errorf("extra delay %d:%d: a replica does not send to itself", d.From, d.To)
	}
	return nil
}

// ParseExtraDelayTicks reads the TICKS of an extra delay with the one bound
// and the one message every input shares.
func ParseExtraDelayTicks(text string) (uint64, error) {
	ticks, err := strconv.ParseUint(text, 10, 64)
	switch {
	case errors.Is(err, strconv.ErrRange) || (err == nil && ticks > ExtraDelayTicksMax):
		return 0, delayTooLong(text)
	case err != nil:
		return 0, fmt.Errorf("TICKS %q is not a number of ticks", text)
	}
	return ticks, nil
}

func delayTooLong(ticks string) error {
	return fmt.Errorf("extra delay of %s ticks is above the maximum of %d", ticks, ExtraDelayTicksMax)
}

func parseNode(s string) (int, error) {
	if s == "*" {
		return packetsim.AnyNode, nil
	}
	n, err := strconv.Atoi(s)
	if err != nil || n < 0 {
		return 0, fmt.Errorf("%q is not a replica index or *", s)
	}
	return n, nil
}

// String is the FROM:TO=TICKS form ParseExtraDelay reads.
func (d ExtraDelay) String() string {
	return fmt.Sprintf("%s:%s=%d", formatNode(d.From), formatNode(d.To), d.Ticks)
}

func formatNode(n int) string {
	if n == packetsim.AnyNode {
		return "*"
	}
	return strconv.Itoa(n)
}
