// Package verify runs a simulation and then checks its client history for
// linearizability (sim/check/linearize). It sits outside sim because the
// check is the oracle's judgement of a finished history, made after the run
// is over: it moves no trace hash.
package verify

import (
	"sync"

	"vsrsim/outcome"
	"vsrsim/sim"
	"vsrsim/sim/check"
	"vsrsim/sim/check/linearize"
)

// spares lends each run the memory earlier runs released (sim.Spare): a
// sweep's workers then recycle their journals, packet pools and traces
// instead of making garbage. It is a plain free list, not a sync.Pool: a pool
// drops what it holds at every other collection, and a sweep collects every
// few runs, so most runs found it empty. It never holds more spares than
// runs were ever under way at once.
var spares struct {
	sync.Mutex
	free []*sim.Spare
}

func takeSpare() *sim.Spare {
	spares.Lock()
	defer spares.Unlock()
	if k := len(spares.free); k > 0 {
		s := spares.free[k-1]
		spares.free = spares.free[:k-1]
		return s
	}
	return new(sim.Spare)
}

func putSpare(s *sim.Spare) {
	spares.Lock()
	defer spares.Unlock()
	spares.free = append(spares.free, s)
}

// Run executes one simulation and, if it passed or was unrecoverable, checks
// linearizability. A history the search cannot settle leaves the verdict as
// it is and says so. The run is lent a spare unless at brings one.
func Run(cfg sim.Config, at sim.Attach) (sim.Result, error) {
	if at.Spare == nil {
		at.Spare = takeSpare()
		defer putSpare(at.Spare)
	}
	res, err := sim.Run(cfg, at)
	if err != nil {
		return res, err
	}
	judge(&res)
	return res, nil
}

// judge checks the history of a run that passed or was unrecoverable. An
// unrecoverable run lost data to its fault mix, and may stall for it, but what
// its clients were told must still be linearizable: if not, it fails too.
func judge(res *sim.Result) {
	if res.Verdict != sim.VerdictPass && res.Verdict != sim.VerdictUnrecoverable {
		return
	}
	verdict, why := linearize.Check(res.History)
	res.Linearizability = verdict
	switch verdict {
	case linearize.NotLinearizable:
		if res.Verdict == sim.VerdictUnrecoverable {
			why += " (in a run unrecoverable by rule " + res.Rule + ")"
			res.Rule, res.Excuse = "", nil
		}
		res.Verdict = sim.Verdict(outcome.Rewritten(string(res.Verdict), outcome.Safety))
		res.Invariant = check.InvLinearizable
		res.Evidence = why
	case linearize.Unknown:
		res.LinearizabilityDetail = why
	}
}
