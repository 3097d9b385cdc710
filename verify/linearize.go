// Package verify runs a simulation and then checks its client history for
// linearizability (sim/check/linearize). It sits outside sim because the
// check searches on goroutines: it runs after the single-threaded run is
// over, on a finished history.
package verify

import (
	"io"
	"sync"

	"vsrsim/sim"
	"vsrsim/sim/check"
	"vsrsim/sim/check/linearize"
)

// spares lends each run the memory earlier runs released (sim.Spare): a
// sweep's workers then recycle their journals, packet pools and traces
// instead of making garbage.
var spares = sync.Pool{New: func() any { return new(sim.Spare) }}

// Run executes one simulation and, if it passed, checks linearizability. A
// history the search cannot settle leaves the verdict as it is and says so.
func Run(cfg sim.Config, trace io.Writer) (sim.Result, error) {
	spare := spares.Get().(*sim.Spare)
	res, err := sim.RunFrom(cfg, trace, spare)
	spares.Put(spare)
	if err != nil || res.Verdict != sim.VerdictPass {
		return res, err
	}
	verdict, why := linearize.Check(res.History)
	res.Linearizability = verdict
	switch verdict {
	case linearize.NotLinearizable:
		res.Verdict = sim.VerdictSafety
		res.Invariant = check.InvLinearizable
		res.Evidence = why
	case linearize.Unknown:
		res.LinearizabilityDetail = why
	}
	return res, nil
}
