package scenarios

import (
	"fmt"
	"strings"

	"vsrsim/packetsim"
	"vsrsim/prng"
	"vsrsim/replica"
	"vsrsim/scenarios/vsrfile"
	"vsrsim/sim"
	"vsrsim/sim/settings"
)

// Record writes a swarm run as an explicit scenario file: the settings the
// seed drew, and every fault the run injected at random or aimed (rec) as a
// timed action (crashes, restarts, cuts of replicas' and clients' links,
// clogs as holds), so the file runs with no random or aimed fault of its own.
// The network's per-packet faults (loss, replay, reorder, corruption) have no
// action form and stay as rates under the same seed; the source protocol, the
// disks (storage settings: their faults replay from the seed) and the links
// the liveness phase began with down are settings. header lines are
// written first, as comments, then the run's seed. The file is built as a
// vsrfile tree and formatted.
//
// The network draws partitions, clogs and packet fates from one stream, so a
// run whose seed drew random partitions or clogs replays with other packet
// fates; crashes, restarts, aimed faults and the liveness core replay exactly.
func Record(cfg *sim.Config, rec *sim.Recording, header []string) []byte {
	f := &vsrfile.File{}
	f.SetComments(header)
	f.SetSeed(cfg.Seed)
	for _, s := range recordSettings(cfg, rec) {
		f.Header = append(f.Header, &s)
	}
	for _, d := range cfg.ExtraDelays {
		f.Actions = append(f.Actions, vsrfile.Action{At: 0, Verb: vsrfile.ExtraDelay,
			Delay: [2]vsrfile.Target{delayEnd(d.From), delayEnd(d.To)}, Ticks: d.Ticks})
	}
	f.Actions = append(f.Actions, recordFaults(cfg, rec.Faults)...)
	return vsrfile.Format(f)
}

// recordSettings are the settings the seed drew, each set once.
func recordSettings(cfg *sim.Config, rec *sim.Recording) []vsrfile.Setting {
	var out []vsrfile.Setting
	set := func(key string, value any) {
		out = append(out, vsrfile.Setting{Key: key, Args: strings.Fields(fmt.Sprint(value))})
	}
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
	if lv := recordLiveness(rec); lv != nil {
		set("liveness", strings.Join(lv, " "))
	}
	if cfg.RequestQueue != 0 {
		set("request-queue", cfg.RequestQueue)
	}
	if cfg.Protocol != (replica.Protocol{}) {
		set("protocol", settings.Protocol(cfg.Protocol))
	}
	// The disks draw from streams of their own, so the same settings under
	// the same seed fault them as the run did.
	for _, v := range settings.StorageValues(&cfg.Storage) {
		out = append(out, vsrfile.Setting{Key: vsrfile.StorageKey, Args: strings.Fields(v)})
	}
	return append(out, recordNetwork(&cfg.Network)...)
}

// recordLiveness is the one liveness line (a setting is set once): the links
// the liveness phase began with down, and the replicas it cut off.
func recordLiveness(rec *sim.Recording) []string {
	var liveness []string
	if len(rec.LivenessCuts) > 0 {
		liveness = append(liveness, "cut")
		for _, l := range rec.LivenessCuts {
			liveness = append(liveness, fmt.Sprintf("%d->%d", l.From, l.To))
		}
	}
	if len(rec.Isolated) > 0 {
		liveness = append(liveness, "isolate", strings.Trim(fmt.Sprint(rec.Isolated), "[]"))
	}
	if len(rec.Healed) > 0 {
		liveness = append(liveness, "heal", strings.Trim(fmt.Sprint(rec.Healed), "[]"))
	}
	return liveness
}

// recordNetwork are the network's settings, its random clogs off (the
// recording holds the clogs the run drew).
func recordNetwork(n *packetsim.Options) []vsrfile.Setting {
	var out []vsrfile.Setting
	set := func(key string, args ...string) {
		out = append(out, vsrfile.Setting{Network: true, Key: key, Args: args})
	}
	set("delay", fmt.Sprintf("min=%d", n.DelayMinTicks), fmt.Sprintf("mean=%d", n.DelayMeanTicks))
	set("loss", ratio(n.Loss))
	set("replay", ratio(n.Replay))
	set("reorder", ratio(n.Reorder), fmt.Sprintf("max=%d", max(n.ReorderMaxTicks, 1)))
	set("link-capacity", fmt.Sprint(n.LinkCapacity))
	if !n.Corrupt.Zero() && n.CorruptDelivered {
		set("corrupt", ratio(n.Corrupt), "delivered")
	} else if !n.Corrupt.Zero() {
		set("corrupt", ratio(n.Corrupt))
	}
	set("clog", "off")
	return out
}

// recordFaults are the faults a run injected as actions: one line for the
// links a fault took from one node at one tick.
func recordFaults(cfg *sim.Config, faults []sim.RecordedFault) []vsrfile.Action {
	node := func(i int) vsrfile.Target {
		if i >= cfg.Replicas {
			return vsrfile.Target{Kind: vsrfile.Client, N: i - cfg.Replicas}
		}
		return vsrfile.Target{Kind: vsrfile.Replica, N: i}
	}
	verbs := map[string]vsrfile.Verb{"cut": vsrfile.Cut, "uncut": vsrfile.Uncut, "clog": vsrfile.Hold, "unclog": vsrfile.Release}
	var out []vsrfile.Action
	for i := 0; i < len(faults); {
		f := faults[i]
		switch f.Verb {
		case "note":
			out = append(out, vsrfile.Action{At: f.Tick, Verb: vsrfile.Note, Text: f.Text})
			i++
			continue
		case "crash", "restart":
			out = append(out, vsrfile.Action{At: f.Tick, Verb: vsrfile.Verb(f.Verb), Targets: []vsrfile.Target{node(f.Node)}})
			i++
			continue
		}
		a := vsrfile.Action{At: f.Tick, Verb: verbs[f.Verb], From: []vsrfile.Target{node(f.From)}}
		j := i
		for ; j < len(faults) && faults[j].Tick == f.Tick && faults[j].Verb == f.Verb && faults[j].From == f.From; j++ {
			a.To = append(a.To, node(faults[j].To))
		}
		out = append(out, a)
		i = j
	}
	return out
}

func ratio(r prng.Ratio) string {
	if r.Zero() {
		return "0"
	}
	return fmt.Sprintf("%d/%d", min(r.Num, r.Den), r.Den)
}

func delayEnd(i int) vsrfile.Target {
	if i == packetsim.AnyNode {
		return vsrfile.Target{Kind: vsrfile.AllReplicas}
	}
	return vsrfile.Target{Kind: vsrfile.Replica, N: i}
}

// RecordRun runs a swarm configuration with a recording and returns its
// result and the recorded file (header lines first). run is the simulation
// to use (sim.Run, or one that adds the linearizability check).
func RecordRun(cfg sim.Config, header []string, run func(sim.Config, sim.Attach) (sim.Result, error)) (sim.Result, []byte, error) {
	if cfg.Scenario != "" {
		return sim.Result{}, nil, fmt.Errorf("only a swarm run (no scenario) can be recorded, not %q", cfg.Scenario)
	}
	rec := &sim.Recording{}
	res, err := run(cfg, sim.Attach{Recording: rec})
	if err != nil {
		return res, nil, err
	}
	return res, Record(&cfg, rec, header), nil
}
