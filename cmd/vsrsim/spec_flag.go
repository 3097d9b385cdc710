package main

import (
	"github.com/spf13/cobra"

	"vsrsim/sim"
)

// The --spec flag of run, sweep, fuzz, replay and shrink: the protocol model
// (spec/, docs/spec.md) judges every step of every run unless it is off,
// which only a speed comparison wants. It lives in its own file so the
// commands' files each gain a line, not a block.

// specOff is the flag's value. Every command that takes the flag registers
// a specFlag that writes it; registering resets it, so a test that builds
// commands in turn never inherits an earlier command line's setting (flags
// are parsed after every command is built).
var specOff bool

// specFlag is --spec as a flag value: "on" or "off".
type specFlag struct{}

func (specFlag) String() string {
	if specOff {
		return "off"
	}
	return "on"
}

func (specFlag) Type() string { return "on|off" }

func (specFlag) Set(s string) error {
	e := newEnumFlag("on", "on", "off")
	if err := e.Set(s); err != nil {
		return err
	}
	specOff = e.value == "off"
	return nil
}

// addSpecFlag registers --spec on cmd.
func addSpecFlag(cmd *cobra.Command) {
	specOff = false
	cmd.Flags().Var(specFlag{}, "spec", "check every step against the protocol model (docs/spec.md); off only to compare speed")
	_ = cmd.RegisterFlagCompletionFunc("spec", cobra.FixedCompletions([]string{"on", "off"}, cobra.ShellCompDirectiveNoFileComp))
}

// applySpec sets the run's model switch from the flag.
func applySpec(cfg *sim.Config) { cfg.SpecOff = specOff }

// specRun wraps a runner so every run it makes, including those a search
// or a shrink builds from its own configurations, follows the flag.
func specRun(run func(sim.Config, sim.Attach) (sim.Result, error)) func(sim.Config, sim.Attach) (sim.Result, error) {
	return func(cfg sim.Config, at sim.Attach) (sim.Result, error) {
		applySpec(&cfg)
		return run(cfg, at)
	}
}
