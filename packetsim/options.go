package packetsim

import (
	"fmt"

	"vsrsim/prng"
)

// NodeID names a node: replicas are 0..Replicas-1, clients Replicas..Nodes-1.
type NodeID = int

// AnyNode, passed as from or to to a hook that accepts it, stands for every
// replica (never the clients: a scenario that slows "all links into 0" means
// the cluster's links, not the clients').
const AnyNode NodeID = -1

// PartitionMode is how a random partition splits the replicas.
type PartitionMode uint8

const (
	// PartitionNone never partitions at random (scripted partitions still work).
	PartitionNone PartitionMode = iota
	// UniformSize picks a side size k uniformly in [1, replicas-1], then k
	// random replicas for that side.
	UniformSize
	// UniformPartition puts each replica on a side by a coin flip, redrawing
	// when all land on one side.
	UniformPartition
	// IsolateSingle cuts one random replica off from the rest.
	IsolateSingle
	partitionModeCount
)

var partitionModeNames = [partitionModeCount]string{"none", "uniform-size", "uniform-partition", "isolate-single"}

func (m PartitionMode) String() string {
	if m < partitionModeCount {
		return partitionModeNames[m]
	}
	return fmt.Sprintf("PartitionMode(%d)", uint8(m))
}

// Symmetry says whether a random partition cuts both directions of a link.
type Symmetry uint8

const (
	// Symmetric cuts both directions between the sides.
	Symmetric Symmetry = iota
	// Asymmetric cuts, for each replica pair across the sides, one direction or
	// both, drawn per pair.
	Asymmetric
	symmetryCount
)

func (s Symmetry) String() string {
	switch s {
	case Symmetric:
		return "symmetric"
	case Asymmetric:
		return "asymmetric"
	}
	return fmt.Sprintf("Symmetry(%d)", uint8(s))
}

// Defaults for the zero values of Options.
const (
	LinkCapacityDefault = 64
	QueueLimitDefault   = 1 << 16
	// ticksMax bounds every tick option so that a delivery tick (now plus
	// min delay plus 20*mean plus reorder plus extra) cannot overflow.
	ticksMax = 1 << 32
)

// Options configure a Network. Ratios are integer probabilities; a zero ratio
// is "never" and draws nothing from the PRNG.
type Options struct {
	// Nodes is the number of nodes; ids are 0..Nodes-1.
	Nodes int
	// Replicas is the number of replicas, ids 0..Replicas-1. Only links between
	// replicas are partitioned or clogged at random; clients never are.
	Replicas int

	// DelayMinTicks is the least delay of every packet.
	DelayMinTicks uint64
	// DelayMeanTicks is the mean of an exponential extra delay on top.
	DelayMeanTicks uint64

	// Loss drops a packet. It is drawn at submit and reported at the packet's
	// due tick, so a packet's fate never depends on when others are delivered.
	Loss prng.Ratio
	// Corrupt damages a packet so that the receiver's checksum rejects it:
	// a drop with its own reason, drawn at submit after Loss (only when
	// non-zero, so a network without it draws exactly as before).
	Corrupt prng.Ratio
	// CorruptDelivered delivers a corrupted packet flagged Damaged instead
	// of dropping it, so the receiver decides what the damage breaks (the
	// network knows nothing of its payload). It draws nothing.
	CorruptDelivered bool
	// Replay sends a second copy, with its own delay, flagged Duplicate.
	Replay prng.Ratio
	// Reorder adds a uniform extra delay in [0, ReorderMaxTicks] to a packet.
	Reorder         prng.Ratio
	ReorderMaxTicks uint64

	// LinkCapacity bounds the packets in flight on one directed link; a submit
	// to a full link evicts a random in-flight packet of that link (a Capacity
	// drop). 0 means LinkCapacityDefault.
	LinkCapacity int

	// Clog, per tick and per directed link between two replicas, clogs the link
	// for Exponential(ClogMeanTicks) ticks (at least 1). A clogged link delivers
	// nothing; its packets wait and flow, in order, once it unclogs.
	Clog          prng.Ratio
	ClogMeanTicks uint64

	// PartitionMode and PartitionSymmetry shape random partitions.
	PartitionMode     PartitionMode
	PartitionSymmetry Symmetry
	// PartitionChance is the per-tick chance to partition, once healed for at
	// least HealStabilityTicks.
	PartitionChance prng.Ratio
	// HealChance is the per-tick chance to heal, once partitioned for at least
	// PartitionStabilityTicks.
	HealChance              prng.Ratio
	PartitionStabilityTicks uint64
	HealStabilityTicks      uint64

	// QueueLimit bounds all packets in flight (queued or waiting on a clogged
	// or held link); exceeding it panics. 0 means QueueLimitDefault.
	QueueLimit int
}

// withDefaults fills the zero values that mean "default".
func (o Options) withDefaults() Options {
	if o.LinkCapacity == 0 {
		o.LinkCapacity = LinkCapacityDefault
	}
	if o.QueueLimit == 0 {
		o.QueueLimit = QueueLimitDefault
	}
	return o
}

// Validate reports the first nonsense in o as a one-line error, as New would.
func (o Options) Validate() error { return o.withDefaults().validate() }

// validate reports the first nonsense in o (after defaults) as a one-line
// error. The checks run in a fixed order, so that the error an Options with
// several faults gets does not change.
func (o Options) validate() error {
	checks := [...]func(Options) error{
		Options.checkSizes, Options.checkRatios, Options.checkTicks, Options.checkRateParams, Options.checkPartitions,
	}
	for _, check := range checks {
		if err := check(o); err != nil {
			return err
		}
	}
	return nil
}

// checkSizes checks the node counts and the bounds on packets in flight.
func (o Options) checkSizes() error {
	if o.Nodes < 1 {
		return fmt.Errorf("packetsim: Nodes is %d, want at least 1", o.Nodes)
	}
	if o.Replicas < 1 || o.Replicas > o.Nodes {
		return fmt.Errorf("packetsim: Replicas is %d, want 1..Nodes (%d)", o.Replicas, o.Nodes)
	}
	if o.LinkCapacity < 0 {
		return fmt.Errorf("packetsim: LinkCapacity is %d, want >= 0", o.LinkCapacity)
	}
	if o.QueueLimit < 0 {
		return fmt.Errorf("packetsim: QueueLimit is %d, want >= 0", o.QueueLimit)
	}
	return nil
}

// checkRatios checks that every chance is a probability: no zero
// denominator under a nonzero numerator, and not above 1.
func (o Options) checkRatios() error {
	ratios := [...]struct {
		name string
		r    prng.Ratio
	}{
		{"Loss", o.Loss}, {"Corrupt", o.Corrupt}, {"Replay", o.Replay}, {"Reorder", o.Reorder}, {"Clog", o.Clog},
		{"PartitionChance", o.PartitionChance}, {"HealChance", o.HealChance},
	}
	for _, x := range ratios {
		if x.r.Num > 0 && x.r.Den == 0 {
			return fmt.Errorf("packetsim: %s is %d/0, a zero denominator", x.name, x.r.Num)
		}
		if x.r.Num > x.r.Den {
			return fmt.Errorf("packetsim: %s is %d/%d, above 1", x.name, x.r.Num, x.r.Den)
		}
	}
	return nil
}

// checkTicks checks every duration against ticksMax.
func (o Options) checkTicks() error {
	ticks := [...]struct {
		name string
		v    uint64
	}{
		{"DelayMinTicks", o.DelayMinTicks}, {"DelayMeanTicks", o.DelayMeanTicks},
		{"ReorderMaxTicks", o.ReorderMaxTicks}, {"ClogMeanTicks", o.ClogMeanTicks},
		{"PartitionStabilityTicks", o.PartitionStabilityTicks}, {"HealStabilityTicks", o.HealStabilityTicks},
	}
	for _, x := range ticks {
		if x.v > ticksMax {
			return fmt.Errorf("packetsim: %s is %d, above the limit %d", x.name, x.v, uint64(ticksMax))
		}
	}
	return nil
}

// checkRateParams checks that a fault that is set has the duration it draws
// from: a zero one would make the fault a no-op while it looks on.
func (o Options) checkRateParams() error {
	if !o.Reorder.Zero() && o.ReorderMaxTicks == 0 {
		return fmt.Errorf("packetsim: Reorder is set but ReorderMaxTicks is 0")
	}
	if !o.Clog.Zero() && o.ClogMeanTicks == 0 {
		return fmt.Errorf("packetsim: Clog is set but ClogMeanTicks is 0")
	}
	return nil
}

// checkPartitions checks the partition shape: known mode and symmetry, a
// chance only with a mode, and a mode only with replicas to split.
func (o Options) checkPartitions() error {
	if o.PartitionMode >= partitionModeCount {
		return fmt.Errorf("packetsim: unknown PartitionMode %d", uint8(o.PartitionMode))
	}
	if o.PartitionSymmetry >= symmetryCount {
		return fmt.Errorf("packetsim: unknown PartitionSymmetry %d", uint8(o.PartitionSymmetry))
	}
	if o.PartitionMode == PartitionNone && !o.PartitionChance.Zero() {
		return fmt.Errorf("packetsim: PartitionChance is set but PartitionMode is none")
	}
	if o.PartitionMode != PartitionNone && o.Replicas < 2 {
		return fmt.Errorf("packetsim: PartitionMode %v needs at least 2 replicas, have %d", o.PartitionMode, o.Replicas)
	}
	return nil
}

// String prints every option on one line, so a run can show the fault mix its
// seed drew before it starts.
func (o Options) String() string {
	return fmt.Sprintf("nodes=%d replicas=%d delay_min=%d delay_mean=%d loss=%d/%d corrupt=%d/%d corrupt_delivered=%v replay=%d/%d "+
		"reorder=%d/%d reorder_max=%d link_capacity=%d clog=%d/%d clog_mean=%d "+
		"partition=%v/%v partition_chance=%d/%d heal_chance=%d/%d partition_stability=%d heal_stability=%d queue_limit=%d",
		o.Nodes, o.Replicas, o.DelayMinTicks, o.DelayMeanTicks, o.Loss.Num, o.Loss.Den, o.Corrupt.Num, o.Corrupt.Den, o.CorruptDelivered, o.Replay.Num, o.Replay.Den,
		o.Reorder.Num, o.Reorder.Den, o.ReorderMaxTicks, o.LinkCapacity, o.Clog.Num, o.Clog.Den, o.ClogMeanTicks,
		o.PartitionMode, o.PartitionSymmetry, o.PartitionChance.Num, o.PartitionChance.Den,
		o.HealChance.Num, o.HealChance.Den, o.PartitionStabilityTicks, o.HealStabilityTicks, o.QueueLimit)
}
