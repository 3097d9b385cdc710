// Package outcome is the one table of what a run's verdict means outside the
// simulator: how severe it is, whether it is a finding, and the process exit
// code of every vsrsim command (run, sweep, replay, merge, shrink). It
// imports nothing of the simulator: sim names its verdicts with these strings
// (a test pins them equal), and the CLI ranks and exits by this table alone.
package outcome

// Verdict names, as sim.Verdict spells them and the JSON output carries them.
const (
	Pass          = "pass"
	Safety        = "safety"
	Liveness      = "liveness"
	Crash         = "crash"
	Unrecoverable = "unrecoverable"
)

// Liveness judgements of a run, as sim.Result.Liveness spells them.
const (
	LivenessChecked   = "checked"
	LivenessUnchecked = "unchecked"
)

// InvLinearizable is the invariant a failed linearizability check names
// (sim/check's InvLinearizable): a run failing it has a history page to
// write, and is replayed with the check.
const InvLinearizable = "linearizability"

// Exit codes. A failing verdict has its own code so a script can tell a safety
// finding from a stall without parsing output. 64, 65 and 70 are the BSD
// sysexits values, which shells and CI already know. 2 is never used: the Go
// runtime exits 2 on an unrecovered panic, so 2 must keep meaning "the binary
// itself broke".
const (
	ExitPass        = 0   // pass, and unrecoverable: the fault mix, not the protocol, lost the data
	ExitSafety      = 1   // a safety invariant (or linearizability) failed
	ExitDrift       = 1   // replay: a case no longer gives its pinned verdict or trace hash
	ExitLiveness    = 3   // the core did not converge, or committed too little
	ExitCrash       = 4   // a replica assertion fired, or the run exceeded its event bound
	ExitUnchecked   = 5   // run: a pass whose liveness was not judged, which its scenario file did not ask for (liveness off)
	ExitUsage       = 64  // EX_USAGE: bad flags or arguments
	ExitDataErr     = 65  // EX_DATAERR: a malformed input file (scenario file, seed list, records)
	ExitSoftware    = 70  // EX_SOFTWARE: an internal error, a panic, or a failed write
	ExitInterrupted = 130 // the shell's code for SIGINT: a sweep stopped before any finding
)

// Row is one verdict's line of the table.
type Row struct {
	Verdict string
	Failed  bool // a finding
	Exit    int
}

// Table lists every verdict, most severe first: safety, then crash, then
// liveness; the two that are not findings last.
var Table = []Row{
	{Safety, true, ExitSafety},
	{Crash, true, ExitCrash},
	{Liveness, true, ExitLiveness},
	{Unrecoverable, false, ExitPass},
	{Pass, false, ExitPass},
}

func row(verdict string) (Row, bool) {
	for _, r := range Table {
		if r.Verdict == verdict {
			return r, true
		}
	}
	return Row{}, false
}

// Known reports whether verdict is one of the table's.
func Known(verdict string) bool {
	_, ok := row(verdict)
	return ok
}

// ExitCode is a run's exit code for its verdict. A verdict the table lacks is
// a bug between the simulator and the CLI, not a pass: ExitSoftware.
func ExitCode(verdict string) int {
	if r, ok := row(verdict); ok {
		return r.Exit
	}
	return ExitSoftware
}

// RunExitCode is the exit code of one run (vsrsim run): its verdict's,
// except that a pass whose liveness was not judged exits ExitUnchecked
// unless the run asked for no liveness phase (a scenario file's `liveness
// off`, livenessOff): a pass that proves safety alone must not read as one
// that proves the cluster recovers (D50). Unrecoverable is judged by the
// liveness phase, so it is never unchecked.
func RunExitCode(verdict, liveness string, livenessOff bool) int {
	if verdict == Pass && liveness == LivenessUnchecked && !livenessOff {
		return ExitUnchecked
	}
	return ExitCode(verdict)
}

// Worst is the most severe finding count reports any of; false if none.
func Worst(count func(verdict string) uint64) (string, bool) {
	for _, r := range Table {
		if r.Failed && count(r.Verdict) > 0 {
			return r.Verdict, true
		}
	}
	return "", false
}

// Rewrite is one change a run's verdict may undergo after the run loop judged
// it, and why.
type Rewrite struct {
	From, To string
	Why      string
}

// Rewrites lists every change of a verdict after the run loop: the storage
// verdict (sim/storage_verdict.go) and the history check (verify). Nothing
// else turns one verdict into another, so a reader of this table knows every
// way a finding can be excused or a pass fail.
var Rewrites = []Rewrite{
	{Safety, Unrecoverable, "a storage excuse covers what the finding is about (storage-beyond-f, D49)"},
	{Pass, Safety, "the client history is not linearizable"},
	{Unrecoverable, Safety, "the client history of an excused run is not linearizable"},
}

// Rewritten returns to, the verdict from becomes. A rewrite the table lacks
// is a bug between the simulator's parts, never bad input: it panics.
func Rewritten(from, to string) string {
	for _, r := range Rewrites {
		if r.From == from && r.To == to {
			return to
		}
	}
	panic("outcome: no rewrite of " + from + " to " + to)
}
