package main

import (
	"errors"
	"fmt"
	"io"
	"strings"

	"vsrsim/sim"
)

// Exit codes. A failing verdict has its own code so a script can tell a safety
// finding from a stall without parsing output. 64, 65 and 70 are the BSD
// sysexits values, which shells and CI already know. 2 is never used: the Go
// runtime exits 2 on an unrecovered panic, so 2 must keep meaning "the binary
// itself broke".
const (
	exitPass     = 0  // pass, and unrecoverable: the fault mix, not the protocol, lost the data
	exitSafety   = 1  // a safety invariant (or linearizability) failed
	exitLiveness = 3  // the core did not converge, or committed too little
	exitCrash    = 4  // a replica assertion fired, or the run exceeded its event bound
	exitUsage    = 64 // EX_USAGE: bad flags or arguments
	exitDataErr  = 65 // EX_DATAERR: a malformed input file (seed lists)
	exitSoftware = 70 // EX_SOFTWARE: an internal error, a panic, or a failed write
)

// verdictExitCode maps a verdict to the process exit code.
func verdictExitCode(v sim.Verdict) int {
	switch v {
	case sim.VerdictPass, sim.VerdictUnrecoverable:
		return exitPass
	case sim.VerdictSafety:
		return exitSafety
	case sim.VerdictLiveness:
		return exitLiveness
	case sim.VerdictCrash:
		return exitCrash
	}
	// A verdict this binary does not know is a bug between sim and the CLI,
	// not a pass.
	return exitSoftware
}

// exitError carries an exit code out of a command. err nil means the command
// already said everything (a failing verdict): exit quietly.
type exitError struct {
	code int
	err  error
}

func (e *exitError) Error() string {
	if e.err == nil {
		return fmt.Sprintf("exit %d", e.code)
	}
	return e.err.Error()
}

func (e *exitError) Unwrap() error { return e.err }

func usageErrorf(format string, args ...any) error {
	return &exitError{code: exitUsage, err: fmt.Errorf(format, args...)}
}

func internalErrorf(format string, args ...any) error {
	return &exitError{code: exitSoftware, err: fmt.Errorf(format, args...)}
}

func silentExit(code int) error {
	if code == exitPass {
		return nil
	}
	return &exitError{code: code}
}

// reportError prints err as one line and returns its exit code. Errors without
// an exit code come from cobra itself (unknown command, missing required flag,
// stray arguments), all of which are usage errors.
func reportError(err error, stderr io.Writer) int {
	if err == nil {
		return exitPass
	}
	code := exitUsage
	var e *exitError
	if errors.As(err, &e) {
		code = e.code
		if e.err == nil {
			return code
		}
	}
	fmt.Fprintf(stderr, "vsrsim: %s\n", oneLine(err.Error()))
	return code
}

// oneLine keeps an error to the single line the CLI promises.
func oneLine(s string) string {
	s = strings.TrimSpace(s)
	return strings.Join(strings.Fields(strings.ReplaceAll(s, "\n", " ")), " ")
}
