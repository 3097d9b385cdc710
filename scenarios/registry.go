// Package scenarios holds vsrsim's named scenarios: data (the cluster a
// scenario needs, its workload and timeouts) plus a small script over virtual
// time. Each replays one failure shape of a real VSR implementation; its bug
// switch brings the defect back.
package scenarios

import (
	"fmt"
	"strings"

	"vsrsim/sim"
)

// Scenario is one named scenario.
type Scenario struct {
	Name        string
	Description string
	// Bug is the CLI name of the switch whose defect this scenario replays;
	// empty for a liveness scenario, which plants no defect.
	Bug string
	// Expect is the verdict with Bug on; with it off the scenario must pass.
	Expect sim.Verdict
	// ServedAfter: a liveness scenario's clients must get replies after this
	// tick of the fault phase, when the fault it replays is in force or over.
	ServedAfter uint64
	// Configure shapes the run: cluster, timeouts, workload, faults off.
	Configure func(cfg *sim.Config)
	// NewScript returns a fresh script for one run.
	NewScript func() sim.Script
}

var registry []Scenario

func register(s Scenario) { registry = append(registry, s) }

// All returns every scenario in a fixed order.
func All() []Scenario {
	out := make([]Scenario, len(registry))
	copy(out, registry)
	return out
}

// Lookup finds a scenario by name; the error names the known ones.
func Lookup(name string) (Scenario, error) {
	for _, s := range registry {
		if s.Name == name {
			return s, nil
		}
	}
	names := make([]string, len(registry))
	for i, s := range registry {
		names[i] = s.Name
	}
	return Scenario{}, fmt.Errorf("unknown scenario %q (known: %s)", name, strings.Join(names, ", "))
}

// Apply shapes cfg for scenario s and returns a fresh script for the run
// (sim.Attach.Script), nil if s has none. Flags the user gave afterwards may
// still override fields.
func (s Scenario) Apply(cfg *sim.Config) sim.Script {
	cfg.Scenario = s.Name
	if s.Configure != nil {
		s.Configure(cfg)
	}
	if s.NewScript != nil {
		return s.NewScript()
	}
	return nil
}
