package main

import (
	"errors"
	"fmt"
	"io"
	"strings"

	"vsrsim/outcome"
	"vsrsim/sim"
)

// Exit codes: outcome's table, the one every command exits by.
const (
	exitPass        = outcome.ExitPass
	exitSafety      = outcome.ExitSafety
	exitLiveness    = outcome.ExitLiveness
	exitCrash       = outcome.ExitCrash
	exitUnchecked   = outcome.ExitUnchecked
	exitUsage       = outcome.ExitUsage
	exitDataErr     = outcome.ExitDataErr
	exitSoftware    = outcome.ExitSoftware
	exitDrift       = outcome.ExitDrift
	exitInterrupted = outcome.ExitInterrupted
)

// verdictExitCode maps a verdict to the process exit code.
func verdictExitCode(v sim.Verdict) int { return outcome.ExitCode(string(v)) }

// runExitCode is one run's exit code: its verdict's, or exitUnchecked for a
// pass whose liveness was not judged when the run did not ask for that
// (a scenario file's `liveness off`).
func runExitCode(res sim.Result) int {
	return outcome.RunExitCode(string(res.Verdict), res.Liveness, res.LivenessOff)
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
