// Command vsrsim runs the deterministic Viewstamped Replication simulator: one
// seed per run, a verdict per run, and an exit code per verdict class. It holds
// no simulation logic; it turns flags into a sim.Config and a sim.Result into
// output.
package main

import (
	"fmt"
	"io"
	"os"
	"runtime/debug"

	"github.com/spf13/cobra"
)

func main() {
	// A run's garbage is short-lived and small (under 1 MB a run): collecting
	// a quarter as often buys about a tenth more runs per second in a sweep.
	// Nothing a run does depends on it; GOGC in the environment still rules.
	if os.Getenv("GOGC") == "" {
		debug.SetGCPercent(400)
	}
	os.Exit(execute(os.Args[1:], os.Stdout, os.Stderr))
}

// execute runs the CLI and returns the exit code. It never lets a panic escape:
// a stack trace would break the one-line error promise, and the runtime's exit 2
// would hide that the fault is ours.
func execute(args []string, stdout, stderr io.Writer) int {
	return guard(stderr, func() int {
		root := newRootCmd(stdout, stderr)
		root.SetArgs(args)
		return reportError(root.Execute(), stderr)
	})
}

// guard runs fn and turns a panic into one line on stderr and exit 70.
func guard(stderr io.Writer, fn func() int) (code int) {
	defer func() {
		if p := recover(); p != nil {
			fmt.Fprintf(stderr, "vsrsim: internal error: %s\n", oneLine(fmt.Sprint(p)))
			code = exitSoftware
		}
	}()
	return fn()
}

func newRootCmd(stdout, stderr io.Writer) *cobra.Command {
	root := &cobra.Command{
		Use:   "vsrsim",
		Short: "Deterministic Viewstamped Replication cluster simulator",
		Long: `vsrsim runs a simulated Viewstamped Replication cluster under network faults,
crashes and restarts, one seed per run. The same seed always replays the same
run, down to the trace hash.

Exit codes: 0 pass (or unrecoverable), 1 safety, 3 liveness, 4 crash,
64 bad flags or arguments, 65 malformed input file, 70 internal error.`,
		// Errors are printed once, as one line, by reportError; cobra's own
		// "Error:" line and usage dump would bury it.
		SilenceUsage:  true,
		SilenceErrors: true,
	}
	root.SetOut(stdout)
	root.SetErr(stderr)
	root.SetFlagErrorFunc(func(c *cobra.Command, err error) error {
		return usageErrorf("%v (see '%s --help')", err, c.CommandPath())
	})
	root.AddCommand(newRunCmd(), newListCmd(), newSweepCmd(), newReplayCmd(), newMergeCmd(), newShrinkCmd(), newFuzzCmd())
	return root
}
