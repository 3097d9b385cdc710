package main

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/olekukonko/tablewriter"
	"github.com/olekukonko/tablewriter/tw"

	"vsrsim/packetsim"
	"vsrsim/sim"
)

// runJSON is the JSON shape of one run: exactly one object per run, from
// `vsrsim run -o json` and, per failure, from a sweep. The names of seed,
// scenario, bugs, replicas, verdict, invariant, evidence, ticks, events,
// trace_hash and replay are a contract; the rest may grow.
type runJSON struct {
	Seed      uint64      `json:"seed"`
	SeedHex   string      `json:"seed_hex"` // the seed exactly, where a JSON reader rounds seed
	Scenario  string      `json:"scenario"` // empty for a swarm run
	Bugs      []string    `json:"bugs"`     // never null
	Replicas  int         `json:"replicas"`
	Verdict   sim.Verdict `json:"verdict"`
	Invariant string      `json:"invariant"`
	Evidence  string      `json:"evidence"`
	Ticks     uint64      `json:"ticks"`
	Events    uint64      `json:"events"`
	TraceHash string      `json:"trace_hash"`
	// Replay is the shell command that reproduces the run. Its --seed is
	// exact even where a JSON reader rounds seed to a float64.
	Replay    string       `json:"replay"`
	ExitCode  int          `json:"exit_code"`
	Committed uint64       `json:"committed"`
	Options   []sim.Option `json:"options"`
	Stats     statsJSON    `json:"stats"`
	Tail      []string     `json:"tail,omitempty"` // last trace lines of a failing run
	// Rule names the recoverability rule behind an unrecoverable verdict
	// (docs/checkers.md); empty otherwise.
	Rule string `json:"rule"`
	// Excuse says what an unrecoverable verdict excuses: its rule, the ops
	// and replicas its proof covers, the proof from the harness's record,
	// the tick since which it held; absent for every other verdict.
	Excuse *sim.Excuse `json:"excuse,omitempty"`
	// Linearizability is the history check's word: linearizable, not
	// linearizable, unknown (with the reason in linearizability_detail), or
	// empty when the run failed before the check.
	Linearizability       string `json:"linearizability"`
	LinearizabilityDetail string `json:"linearizability_detail,omitempty"`
	// Liveness is checked when the liveness phase judged the run, unchecked
	// when it was skipped or too short to judge (a pass proves safety only).
	Liveness string `json:"liveness"`
	// LivenessOff: the scenario file asked for no liveness phase (`liveness
	// off`), so an unchecked pass exits 0; without it, 5.
	LivenessOff bool `json:"liveness_off"`
	// RecoveryTicks: ticks from the start of the liveness phase to the
	// core's convergence (0 if it did not converge or was not judged).
	RecoveryTicks uint64 `json:"recovery_ticks"`
	// Assists lists every intervention of the harness in the run (never
	// null): a pass with assists was helped, and says how.
	Assists []sim.Assist `json:"assists"`
	// CrashesBeyondF: the scenario file said `crashes beyond-f`, so its
	// scripted crashes could leave more replicas down or amnesiac than the
	// protocol survives (stats.crashes_skipped counts those a run without
	// it skipped).
	CrashesBeyondF bool `json:"crashes_beyond_f"`
	// Disks: the replicas journaled to simulated disks; StorageFaults is
	// how many faults the disks injected (docs/storage.md).
	Disks         bool `json:"disks"`
	StorageFaults int  `json:"storage_faults"`
	// Marks counts the coverage marks the run reached, name -> count
	// (docs/marks.md); marks it never reached are left out.
	Marks map[string]uint64 `json:"marks"`
}

type statsJSON struct {
	Requests       uint64      `json:"requests"`
	Replies        uint64      `json:"replies"`
	Crashes        uint64      `json:"crashes"`
	Restarts       uint64      `json:"restarts"`
	ViewChanges    uint64      `json:"view_changes"`
	Repairs        uint64      `json:"repairs"`
	StateTransfers uint64      `json:"state_transfers"`
	OffersRefused  uint64      `json:"offers_refused"`
	Checkpoints    uint64      `json:"checkpoints"`
	Timeouts       uint64      `json:"timeouts"`
	DirectedCuts   uint64      `json:"directed_cuts"`
	CrashesSkipped uint64      `json:"crashes_skipped"`
	Network        networkJSON `json:"network"`
}

type networkJSON struct {
	Sent       uint64 `json:"sent"`
	Delivered  uint64 `json:"delivered"`
	Dropped    uint64 `json:"dropped"`
	Duplicated uint64 `json:"duplicated"`
	// DroppedBy splits Dropped by reason (loss, partition, capacity, filter,
	// crashed); encoding/json sorts the keys, so output stays deterministic.
	DroppedBy  map[string]uint64 `json:"dropped_by"`
	InFlight   int               `json:"in_flight"`
	Clogs      uint64            `json:"clogs"`
	Partitions uint64            `json:"partitions"`
	Heals      uint64            `json:"heals"`
}

// newRunJSON shapes a result for JSON output. options is the run's
// cfg.Describe(), replay its reproducing command.
func newRunJSON(res sim.Result, options []sim.Option, replay string) runJSON {
	bugs := append([]string{}, res.Bugs...)
	if options == nil {
		options = []sim.Option{}
	}
	n := res.Stats.Network
	droppedBy := make(map[string]uint64)
	for reason, count := range n.Dropped {
		if count > 0 {
			droppedBy[packetsim.DropReason(reason).String()] = count
		}
	}
	var tail []string
	if res.Verdict.Failed() {
		tail = res.Tail
	}
	return runJSON{
		Seed:      res.Seed,
		SeedHex:   seedHex(res.Seed),
		Scenario:  res.Scenario,
		Bugs:      bugs,
		Replicas:  res.Replicas,
		Verdict:   res.Verdict,
		Invariant: res.Invariant,
		Evidence:  res.Evidence,
		Ticks:     res.Ticks,
		Events:    res.Events,
		TraceHash: res.TraceHash,
		Replay:    replay,
		ExitCode:  runExitCode(res),
		Committed: res.Committed,
		Options:   options,
		Rule:      res.Rule,
		Excuse:    res.Excuse,
		Marks:     res.Marks.Map(),

		Linearizability:       res.Linearizability,
		LinearizabilityDetail: res.LinearizabilityDetail,
		Liveness:              res.Liveness,
		LivenessOff:           res.LivenessOff,
		RecoveryTicks:         res.RecoveryTicks,
		Assists:               append([]sim.Assist{}, res.Assists...),
		CrashesBeyondF:        res.CrashesBeyondF,
		Disks:                 res.Disks,
		StorageFaults:         res.StorageFaults,
		Stats: statsJSON{
			Requests:       res.Stats.Requests,
			Replies:        res.Stats.Replies,
			Crashes:        res.Stats.Crashes,
			Restarts:       res.Stats.Restarts,
			ViewChanges:    res.Stats.ViewChanges,
			Repairs:        res.Stats.Repairs,
			StateTransfers: res.Stats.StateTransfers,
			OffersRefused:  res.Stats.OffersRefused,
			Checkpoints:    res.Stats.Checkpoints,
			Timeouts:       res.Stats.Timeouts,
			DirectedCuts:   res.Stats.DirectedCuts,
			CrashesSkipped: res.Stats.CrashesSkipped,
			Network: networkJSON{
				Sent:       n.Sent,
				Delivered:  n.Delivered,
				Dropped:    n.DroppedTotal(),
				Duplicated: n.Duplicated,
				DroppedBy:  droppedBy,
				InFlight:   n.InFlight,
				Clogs:      n.Clogs,
				Partitions: n.Partitions,
				Heals:      n.Heals,
			},
		},
		Tail: tail,
	}
}

// writeJSON writes v as one compact line: one run, one line, so a sweep's
// output is NDJSON that grep and jq can take line by line.
func writeJSON(w io.Writer, v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	_, err = w.Write(append(b, '\n'))
	return err
}

// evidenceWidthMax wraps long evidence inside its cell instead of letting one
// line stretch the table past a terminal.
const evidenceWidthMax = 72

// newTable upper-cases its header labels itself: the library's own header
// formatting also splits and spaces them, which turned "seed 1 (0x1)" into
// "SEED 1 ( 0 X 1 )". Values such as hex seeds keep their case (see runTableHeader).
func newTable(w io.Writer, header ...string) *tablewriter.Table {
	t := tablewriter.NewTable(w,
		tablewriter.WithRowMaxWidth(evidenceWidthMax),
		tablewriter.WithRowAutoWrap(tw.WrapNormal),
		tablewriter.WithHeaderAlignment(tw.AlignLeft),
		tablewriter.WithHeaderAutoFormat(tw.Off),
	)
	labels := make([]string, len(header))
	for i, h := range header {
		labels[i] = strings.ToUpper(h)
	}
	t.Header(labels)
	return t
}

// runTableHeader names the run with its seed in both exact forms, as typed.
func runTableHeader(seed uint64) []string {
	return []string{"RUN", fmt.Sprintf("SEED %d (%s)", seed, seedHex(seed))}
}

// storageText is the run table's storage row.
func storageText(res sim.Result) string {
	if !res.Disks {
		return "off (journals survive restarts as written)"
	}
	return fmt.Sprintf("on disks, %d faults injected", res.StorageFaults)
}

// crashesText is the run table's crashes row: crashes and restarts, and
// what the f bound did to the script's crashes.
func crashesText(res sim.Result) string {
	text := fmt.Sprintf("%d / %d", res.Stats.Crashes, res.Stats.Restarts)
	switch {
	case res.CrashesBeyondF:
		text += " (crashes beyond-f: the f bound is lifted)"
	case res.Stats.CrashesSkipped > 0:
		text += fmt.Sprintf(" (%d scripted crashes skipped: beyond f)", res.Stats.CrashesSkipped)
	}
	return text
}

// writeRunTable prints the human summary of one run, the replay command and,
// for a failing run, the last trace lines.
func writeRunTable(w io.Writer, res sim.Result, replay string) error {
	scenario := res.Scenario
	if scenario == "" {
		scenario = "none (swarm)"
	}
	net := res.Stats.Network
	rows := [][]string{
		{"scenario", scenario},
		{"bugs", orNone(strings.Join(res.Bugs, ", "))},
		{"verdict", string(res.Verdict)},
		{"invariant", orNone(res.Invariant)},
		{"evidence", orNone(res.Evidence)},
		{"liveness", livenessText(res)},
		{"assists", assistsText(res.Assists)},
		{"storage", storageText(res)},
		{"ticks", fmt.Sprint(res.Ticks)},
		{"events", fmt.Sprint(res.Events)},
		{"trace hash", res.TraceHash},
		{"ops committed", fmt.Sprint(res.Committed)},
		{"view changes", fmt.Sprint(res.Stats.ViewChanges)},
		{"repairs", fmt.Sprint(res.Stats.Repairs)},
		{"state transfers", fmt.Sprint(res.Stats.StateTransfers)},
		{"crashes / restarts", crashesText(res)},
		{"requests / replies", fmt.Sprintf("%d / %d", res.Stats.Requests, res.Stats.Replies)},
		{"packets sent / delivered / dropped / duplicated",
			fmt.Sprintf("%d / %d / %d / %d", net.Sent, net.Delivered, net.DroppedTotal(), net.Duplicated)},
	}
	t := newTable(w)
	t.Header(runTableHeader(res.Seed))
	if err := t.Bulk(rows); err != nil {
		return err
	}
	if err := t.Render(); err != nil {
		return err
	}
	var b strings.Builder
	fmt.Fprintf(&b, "\nreplay: %s\n", replay)
	if res.Verdict.Failed() && len(res.Tail) > 0 {
		b.WriteString("\nlast trace lines:\n")
		for _, line := range res.Tail {
			fmt.Fprintf(&b, "  %s\n", line)
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// livenessText is the run table's liveness cell: the judgement and, for a
// core that converged, how long it took.
func livenessText(res sim.Result) string {
	switch {
	case res.RecoveryTicks > 0:
		return fmt.Sprintf("%s (converged %d ticks into the phase)", res.Liveness, res.RecoveryTicks)
	case res.Liveness == sim.LivenessUnchecked && res.LivenessOff:
		return res.Liveness + " (the file asked for it: liveness off)"
	case res.Liveness == sim.LivenessUnchecked && res.Verdict == sim.VerdictPass:
		return fmt.Sprintf("%s (not asked for: exit %d; a file that means it says liveness off)", res.Liveness, exitUnchecked)
	}
	return orNone(res.Liveness)
}

// assistsText is the run table's one cell for the harness's interventions.
func assistsText(as []sim.Assist) string {
	if len(as) == 0 {
		return "none"
	}
	parts := make([]string, len(as))
	for i, a := range as {
		parts[i] = fmt.Sprintf("t=%d r%d %s (%s)", a.Tick, a.Replica, a.Rule, a.Cause)
	}
	return strings.Join(parts, "; ")
}

func orNone(s string) string {
	if s == "" {
		return "-"
	}
	return s
}
