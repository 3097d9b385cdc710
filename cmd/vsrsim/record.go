package main

import (
	"fmt"
	"os"
	"strings"

	"vsrsim/scenarios"
	"vsrsim/sim"
)

// startRecord arms the run to collect its injected faults when --record is
// given.
func (o *runOptions) startRecord(at *sim.Attach) error {
	if o.record == "" || o.record == "-" {
		if o.changed("record") {
			return usageErrorf("--record: give a file name")
		}
		return nil
	}
	if o.scenario.value != "" || o.scenarioFile.value != "" {
		return usageErrorf("--record: only a swarm run (no --scenario or --scenario-file) can be recorded")
	}
	at.Recording = &sim.Recording{}
	return nil
}

// writeRecord writes the recorded scenario file, with a header that says
// where it came from and how to replay it.
func (o *runOptions) writeRecord(cfg *sim.Config, rec *sim.Recording, seed uint64, res sim.Result) error {
	if rec == nil {
		return nil
	}
	bugs := ""
	for _, b := range cfg.Bugs.Names() {
		bugs += " --bug " + b
	}
	header := append([]string{
		fmt.Sprintf("recorded from: %s", o.replay(seed)),
		fmt.Sprintf("replay: vsrsim run --seed %d%s --scenario-file %s", seed, bugs, shellQuote(o.record)),
	}, verdictHeader(res)...)
	data := scenarios.Record(cfg, rec, header)
	if err := os.WriteFile(o.record, data, 0o644); err != nil {
		return internalErrorf("--record: %v", errUnwrapPath(err))
	}
	return nil
}

// verdictHeader is how a scenario file's comment header states the verdict
// it gave.
func verdictHeader(res sim.Result) []string {
	h := []string{fmt.Sprintf("verdict: %s (invariant %s)", res.Verdict, res.Invariant)}
	if res.Evidence != "" {
		h = append(h, "evidence: "+strings.ReplaceAll(res.Evidence, "\n", " "))
	}
	return h
}
