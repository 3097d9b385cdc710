package sweep

import (
	"fmt"
	"maps"
	"slices"
	"time"

	"vsrsim/marks"
	"vsrsim/outcome"
	"vsrsim/sim"
)

// State is a Summary as a resumed sweep needs it: every count, in a form
// JSON holds (a cursor file carries it). A sweep started with a State as its
// Options.Prior ends with the Summary one sweep over both parts would have
// given, bar the wall-clock figures, which add up instead.
type State struct {
	Runs                   uint64            `json:"runs"`
	Passed                 uint64            `json:"passed"`
	Unrecoverable          uint64            `json:"unrecoverable"`
	UnrecoverableRules     map[string]uint64 `json:"unrecoverable_rules,omitempty"`
	Assisted               uint64            `json:"assisted"`
	Unchecked              uint64            `json:"unchecked"`
	Failed                 map[string]uint64 `json:"failed,omitempty"`
	Errors                 uint64            `json:"errors"`
	Events                 uint64            `json:"events"`
	Committed              uint64            `json:"committed"`
	LinearizabilityUnknown uint64            `json:"linearizability_unknown"`
	Coverage               Coverage          `json:"coverage"`
	// RecoveryTicks is every converged run's recovery, in seed order: the
	// percentiles need them all.
	RecoveryTicks []uint64 `json:"recovery_ticks,omitempty"`
	// Marks and MarksFirst are by mark name; a mark this build lacks is an
	// error, as the cursor is from another build.
	Marks      map[string]uint64 `json:"marks,omitempty"`
	MarksFirst map[string]uint64 `json:"marks_first,omitempty"`
	// FirstFailure is the first finding's index and seed; nil if none.
	FirstFailure *SeedAt `json:"first_failure,omitempty"`
	Slowest      SeedAt  `json:"slowest"`
	SlowestWall  int64   `json:"slowest_wall_ns"`
	Wall         int64   `json:"wall_ns"`
}

// SeedAt is a seed and its index in the shard's seed order.
type SeedAt struct {
	Index uint64 `json:"index"`
	Seed  uint64 `json:"seed"`
}

// State is the summary's counts, for a cursor.
func (s *Summary) State() State {
	st := State{
		Runs: s.Runs, Passed: s.Passed, Unrecoverable: s.Unrecoverable, UnrecoverableRules: maps.Clone(s.UnrecoverableRules),
		Assisted: s.Assisted, Unchecked: s.Unchecked, Errors: s.Errors, Events: s.Events, Committed: s.Committed,
		LinearizabilityUnknown: s.LinearizabilityUnknown, Coverage: s.Coverage,
		RecoveryTicks: slices.Clone(s.Recovery.ticks), Failed: map[string]uint64{},
		Marks: map[string]uint64{}, MarksFirst: map[string]uint64{},
		Slowest: SeedAt{s.Slowest.Index, s.Slowest.Seed}, SlowestWall: int64(s.Slowest.Wall), Wall: int64(s.Wall),
	}
	for v, n := range s.Failed {
		st.Failed[string(v)] = n
	}
	for m := marks.Mark(0); m < marks.Count; m++ {
		if s.Marks[m] > 0 {
			st.Marks[m.String()] = s.Marks[m]
		}
		if seed, ok := s.MarksFirst.First(m); ok {
			st.MarksFirst[m.String()] = seed
		}
	}
	if f := s.FirstFailure; f != nil {
		st.FirstFailure = &SeedAt{f.Index, f.Seed}
	}
	return st
}

// Validate reports a state no sweep could have written: an unknown verdict
// or mark, or counts that do not add up.
func (st *State) Validate() error {
	var failed uint64
	for v, n := range st.Failed {
		if !outcome.Known(v) || !sim.Verdict(v).Failed() {
			return fmt.Errorf("failed: %q is not a failing verdict", v)
		}
		failed += n
	}
	if st.Passed+failed+st.Errors != st.Runs {
		return fmt.Errorf("passed %d, failed %d and errors %d do not add up to runs %d", st.Passed, failed, st.Errors, st.Runs)
	}
	var rules uint64
	for _, n := range st.UnrecoverableRules {
		rules += n
	}
	if rules != st.Unrecoverable || st.Unrecoverable > st.Passed {
		return fmt.Errorf("unrecoverable %d: its rules count %d, of %d passed", st.Unrecoverable, rules, st.Passed)
	}
	if (st.FirstFailure != nil) != (failed > 0) {
		return fmt.Errorf("first_failure must be given exactly when a run failed")
	}
	for _, names := range []map[string]uint64{st.Marks, st.MarksFirst} {
		for name := range names {
			if _, err := marks.Parse(name); err != nil {
				return err
			}
		}
	}
	return nil
}

// summary is the Summary a sweep resumed from st starts from. st must be
// valid (Validate).
func (st *State) summary() Summary {
	s := Summary{
		Runs: st.Runs, Passed: st.Passed, Unrecoverable: st.Unrecoverable, UnrecoverableRules: map[string]uint64{},
		Assisted: st.Assisted, Unchecked: st.Unchecked, Errors: st.Errors, Events: st.Events, Committed: st.Committed,
		LinearizabilityUnknown: st.LinearizabilityUnknown, Coverage: st.Coverage,
		Recovery: Recovery{ticks: slices.Clone(st.RecoveryTicks)}, Failed: map[sim.Verdict]uint64{},
		Slowest: Outcome{Index: st.Slowest.Index, Seed: st.Slowest.Seed, Wall: time.Duration(st.SlowestWall)},
		Wall:    time.Duration(st.Wall),
	}
	for rule, n := range st.UnrecoverableRules {
		s.UnrecoverableRules[rule] = n
	}
	for v, n := range st.Failed {
		s.Failed[sim.Verdict(v)] = n
	}
	for name, n := range st.Marks {
		if m, err := marks.Parse(name); err == nil {
			s.Marks[m] = n
		}
	}
	for name, seed := range st.MarksFirst {
		if m, err := marks.Parse(name); err == nil {
			var reached marks.Counts
			reached.Hit(m)
			s.MarksFirst.Add(seed, &reached)
		}
	}
	if f := st.FirstFailure; f != nil {
		s.FirstFailure = &Outcome{Index: f.Index, Seed: f.Seed}
	}
	return s
}
