package scenarios

import (
	"fmt"
	"strings"

	"vsrsim/packetsim"
	"vsrsim/prng"
	"vsrsim/replica"
	"vsrsim/sim"
)

// Record writes a swarm run as an explicit scenario file: the settings the
// seed drew, and every fault the run injected at random or aimed (rec) as a
// timed action (crashes, restarts, cuts of replicas' and clients' links,
// clogs as holds), so the file runs with no random or aimed fault of its own.
// The network's per-packet faults (loss, replay, reorder, corruption) have no
// action form and stay as rates under the same seed; the source protocol and
// the links the liveness phase began with down are settings. header lines are
// written first, as comments.
//
// The network draws partitions, clogs and packet fates from one stream, so a
// run whose seed drew random partitions or clogs replays with other packet
// fates; crashes, restarts, aimed faults and the liveness core replay exactly.
func Record(cfg *sim.Config, rec *sim.Recording, header []string) []byte {
	var b strings.Builder
	for _, h := range header {
		fmt.Fprintf(&b, "# %s\n", h)
	}
	n := &cfg.Network
	set := func(key string, value any) { fmt.Fprintf(&b, "%s %v\n", key, value) }
	set("replicas", cfg.Replicas)
	set("clients", cfg.Clients)
	set("topology", cfg.Topology)
	set("journal", cfg.Durability)
	set("journal-slots", cfg.JournalSlots)
	set("checkpoint-interval", cfg.CheckpointInterval)
	set("ticks", cfg.FaultTicks)
	set("liveness-ticks", cfg.LivenessTicks)
	set("think", cfg.RequestMeanTicks)
	set("burst", ratio(cfg.BurstChance))
	if cfg.ThinkSteady {
		set("workload", "steady")
	}
	if rec.Core != nil {
		set("core", strings.Trim(fmt.Sprint(rec.Core), "[]"))
	}
	var liveness []string // one line: a setting is set once
	if len(rec.LivenessCuts) > 0 {
		liveness = append(liveness, "cut")
		for _, l := range rec.LivenessCuts {
			liveness = append(liveness, fmt.Sprintf("%d->%d", l.From, l.To))
		}
	}
	if len(rec.Isolated) > 0 {
		liveness = append(liveness, "isolate", strings.Trim(fmt.Sprint(rec.Isolated), "[]"))
	}
	if liveness != nil {
		set("liveness", strings.Join(liveness, " "))
	}
	if cfg.RequestQueue != 0 {
		set("request-queue", cfg.RequestQueue)
	}
	if cfg.Protocol != (replica.Protocol{}) {
		set("protocol", sim.ProtocolSetting(cfg.Protocol))
	}
	set("network delay", fmt.Sprintf("min=%d mean=%d", n.DelayMinTicks, n.DelayMeanTicks))
	set("network loss", ratio(n.Loss))
	set("network replay", ratio(n.Replay))
	set("network reorder", fmt.Sprintf("%s max=%d", ratio(n.Reorder), max(n.ReorderMaxTicks, 1)))
	set("network link-capacity", n.LinkCapacity)
	if !n.Corrupt.Zero() && n.CorruptDelivered {
		set("network corrupt", ratio(n.Corrupt)+" delivered")
	} else if !n.Corrupt.Zero() {
		set("network corrupt", ratio(n.Corrupt))
	}
	set("network clog", "off")
	for _, d := range cfg.ExtraDelays {
		fmt.Fprintf(&b, "at 0 extra-delay %s:%s=%d\n", delayEnd(d.From), delayEnd(d.To), d.Ticks)
	}
	node := func(i int) string {
		if i >= cfg.Replicas {
			return fmt.Sprintf("c%d", i-cfg.Replicas)
		}
		return fmt.Sprint(i)
	}
	verbs := map[string]string{"cut": "cut", "uncut": "uncut", "clog": "hold", "unclog": "release"}
	faults := rec.Faults
	for i := 0; i < len(faults); {
		f := faults[i]
		if f.Verb == "note" {
			fmt.Fprintf(&b, "at %d note %s\n", f.Tick, f.Text)
			i++
			continue
		}
		if f.Verb == "crash" || f.Verb == "restart" {
			fmt.Fprintf(&b, "at %d %s %d\n", f.Tick, f.Verb, f.Node)
			i++
			continue
		}
		// One line for the links a fault took from one replica at one tick.
		var to []string
		j := i
		for ; j < len(faults) && faults[j].Tick == f.Tick && faults[j].Verb == f.Verb && faults[j].From == f.From; j++ {
			to = append(to, node(faults[j].To))
		}
		fmt.Fprintf(&b, "at %d %s %s -> %s\n", f.Tick, verbs[f.Verb], node(f.From), strings.Join(to, " "))
		i = j
	}
	return []byte(b.String())
}

func ratio(r prng.Ratio) string {
	if r.Zero() {
		return "0"
	}
	return fmt.Sprintf("%d/%d", min(r.Num, r.Den), r.Den)
}

func delayEnd(i int) string {
	if i == packetsim.AnyNode {
		return "*"
	}
	return fmt.Sprint(i)
}

// RecordRun runs a swarm configuration with a recording and returns its
// result and the recorded file (header lines first). run is the simulation
// to use (sim.Run, or one that adds the linearizability check).
func RecordRun(cfg sim.Config, header []string, run func(sim.Config) (sim.Result, error)) (sim.Result, []byte, error) {
	if cfg.Scenario != "" || cfg.Script != nil {
		return sim.Result{}, nil, fmt.Errorf("only a swarm run (no scenario) can be recorded, not %q", cfg.Scenario)
	}
	cfg.Recording = &sim.Recording{}
	res, err := run(cfg)
	if err != nil {
		return res, nil, err
	}
	return res, Record(&cfg, cfg.Recording, header), nil
}
