package settings

import (
	"fmt"
	"strings"

	"vsrsim/packetsim"
	"vsrsim/prng"
	"vsrsim/replica"
	"vsrsim/sim"
	"vsrsim/vsr"
)

// Describe lists the options a run drew, one "name value" per field, in a fixed
// order, so a reader sees the fault mix without re-running. A fault that is off
// reads "off" alone: its other parameters do nothing in this run.
func Describe(c *sim.Config) []sim.Option {
	n := &c.Network
	links, aimedCrash := aimedString(&c.Aimed)
	opts := []sim.Option{
		{Name: "replicas", Value: fmt.Sprint(c.Replicas)},
		{Name: "clients", Value: fmt.Sprint(c.Clients)},
		{Name: "topology", Value: c.Topology.String()},
		{Name: "journal", Value: c.Durability.String()},
		{Name: "journal_slots", Value: fmt.Sprint(c.JournalSlots)},
		{Name: "checkpoint_interval", Value: fmt.Sprint(replica.CheckpointEvery(c.CheckpointInterval, c.JournalSlots))},
		// The network adds an exponential draw to the minimum, so "mean" is
		// the mean above it, not of the whole delay.
		{Name: "delay", Value: fmt.Sprintf("%d + exponential(mean %d) ticks", n.DelayMinTicks, n.DelayMeanTicks)},
		{Name: "loss", Value: ratioString(n.Loss)},
		{Name: "replay", Value: ratioString(n.Replay)},
		{Name: "reorder", Value: onOff(n.Reorder, fmt.Sprintf(" up to +%d ticks", n.ReorderMaxTicks))},
		{Name: "link_capacity", Value: fmt.Sprint(n.LinkCapacity)},
		{Name: "clog", Value: onOff(n.Clog, fmt.Sprintf(" mean=%d ticks", n.ClogMeanTicks))},
		{Name: "partition", Value: partitionString(n)},
		{Name: "crash", Value: onOff(c.CrashChance, fmt.Sprintf(" restart_mean=%d ticks", c.RestartMeanTicks))},
		{Name: "corrupt", Value: corruptString(n)},
		{Name: "link_faults", Value: links},
		{Name: "aimed_crash", Value: aimedCrash},
		{Name: "liveness_keep_faults", Value: fmt.Sprint(c.LivenessKeepFaults)},
		{Name: "bare_core", Value: fmt.Sprint(c.BareCore)},
		{Name: "protocol", Value: Protocol(c.Protocol)},
		{Name: "workload", Value: fmt.Sprintf("think_mean=%d burst=%s", c.RequestMeanTicks, ratioString(c.BurstChance))},
		{Name: "request_queue", Value: requestQueueString(c.RequestQueue)},
		{Name: "ticks", Value: fmt.Sprintf("faults=%d liveness=%d", c.FaultTicks, c.LivenessTicks)},
	}
	var extra []string
	for _, d := range c.ExtraDelays {
		extra = append(extra, fmt.Sprintf("%s:%s=%d", nodeOrAny(d.From), nodeOrAny(d.To), d.Ticks))
	}
	if len(extra) == 0 {
		extra = []string{"none"}
	}
	opts = append(opts, sim.Option{Name: "extra_delay", Value: strings.Join(extra, ",")})
	// Only when on: the dump of a run without disks is as it always was.
	if c.Storage.On {
		opts = append(opts, storageString(&c.Storage)...)
	}
	// Only when lifted: a run within the f bound dumps as it always did.
	if c.CrashesUnbounded {
		opts = append(opts, sim.Option{Name: "crashes", Value: "beyond-f"})
	}
	if c.Focus != "" {
		opts = append(opts, sim.Option{Name: "focus", Value: c.Focus})
	}
	bugs := c.Bugs.Names()
	if len(bugs) == 0 {
		bugs = []string{"none"}
	}
	return append(opts, sim.Option{Name: "bugs", Value: strings.Join(bugs, ",")})
}

func onOff(r prng.Ratio, params string) string {
	if r.Zero() {
		return "off"
	}
	return ratioString(r) + params
}

func partitionString(n *packetsim.Options) string {
	if n.PartitionMode == packetsim.PartitionNone || n.PartitionChance.Zero() {
		return "off"
	}
	return fmt.Sprintf("%s %s chance=%s heal=%s", n.PartitionMode, n.PartitionSymmetry, ratioString(n.PartitionChance), ratioString(n.HealChance))
}

func ratioString(r prng.Ratio) string {
	if r.Zero() {
		return "off"
	}
	return fmt.Sprintf("%d/%d", r.Num, r.Den)
}

func nodeOrAny(id int) string {
	if id == packetsim.AnyNode {
		return "*"
	}
	return fmt.Sprint(id)
}

// corruptString describes corruption for the option dump: delivered damaged
// packets reach the replicas' checksums, dropped ones never do.
func corruptString(n *packetsim.Options) string {
	if n.CorruptDelivered && !n.Corrupt.Zero() {
		return ratioString(n.Corrupt) + " delivered"
	}
	return ratioString(n.Corrupt)
}

func requestQueueString(q int) string {
	if q == 0 {
		q = vsr.RequestQueueMax
	}
	return fmt.Sprint(q)
}

// aimedString describes the link faults for the option dump.
func aimedString(a *sim.AimedFaults) (links, crash string) {
	links = "off"
	if !a.LinkChance.Zero() {
		links = fmt.Sprintf("%s mean=%d ticks", ratioString(a.LinkChance), a.LinkMeanTicks)
		if a.ClientLinks {
			links += " clients"
		}
		if a.AimPrimary {
			links += " aim-primary"
		}
	}
	return links, ratioString(a.CrashChance)
}
