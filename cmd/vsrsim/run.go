package main

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"vsrsim/prng"
	"vsrsim/replica"
	"vsrsim/scenarios"
	"vsrsim/sim"
	"vsrsim/sim/settings"
	"vsrsim/sim/swarm"
)

// runOptions are the flags that shape a run. A sweep builds the same options
// and calls config and replay once per seed.
type runOptions struct {
	seed         onceFlag
	scenario     onceFlag
	scenarioFile onceFlag
	bugs         []string
	// noFoci draws a swarm seed without its focus slice (D31): the blind
	// swarm with no hand-made focus, which docs/fuzz.md measures the foci by.
	noFoci bool
	// override holds the cluster flags the user gave; settings.Override parses
	// and checks them, as it does scenario-file settings and corpus lines.
	override  settings.Override
	trace     string
	record    string
	output    *enumFlag
	artifacts artifactPaths

	// flags answers Changed: the option dump marks values the user set.
	flags *pflag.FlagSet
}

func newRunOptions() *runOptions {
	return &runOptions{output: newEnumFlag("table", "table", "json")}
}

func newRunCmd() *cobra.Command { return newRunCmdWith(newRunOptions()) }

// newRunCmdWith builds the run command over o; replay uses it to parse a
// recorded command line into the same options a user's flags would give.
func newRunCmdWith(o *runOptions) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "run --seed SEED [flags]",
		Short: "Run one seed and report its verdict",
		Long: `Run one simulation. Without --scenario the seed draws the whole configuration
(cluster shape, journal, network faults, crash rates, extra delays, workload);
with --scenario the named scenario shapes the run and the seed varies timing.
Flags given explicitly override either.

Exit codes: the verdict's, 0 pass or unrecoverable, 1 safety, 3 liveness,
4 crash; 5 a pass whose liveness was not judged (no liveness phase, or one
too short) that the scenario file did not ask for with liveness off; or 64
bad flags or arguments, 65 a malformed scenario file, 70 an internal error
(including a failed trace write).`,
		Example: `  vsrsim run --seed 42
  vsrsim run --seed 42 --scenario hollow-op --bug narrow-repair-under-commit-lag
  vsrsim run --seed 0x2a --replicas 5 --extra-delay '*:0=40' -o json
  vsrsim run --seed "$(git rev-parse HEAD)" --trace run.ndjson
  vsrsim run --scenario-file recorded.vsr   # the seed its seed line names`,
		Args:              cobra.NoArgs,
		ValidArgsFunction: cobra.NoFileCompletions,
		RunE: func(cmd *cobra.Command, _ []string) error {
			o.flags = cmd.Flags()
			return o.run(cmd.OutOrStdout(), cmd.ErrOrStderr())
		},
	}
	f := cmd.Flags()
	f.Var(&o.seed, "seed", "run seed: decimal u64, 0x hex u64, or a 40-hex commit hash (required unless --scenario-file has a seed line)")
	o.addShapeFlags(cmd)
	f.StringVar(&o.trace, "trace", "", "write the NDJSON trace to `FILE` (- for stdout; the report then goes to stderr)")
	o.artifacts.addFlags(cmd)
	f.StringVar(&o.record, "record", "", "write the run's faults as a scenario file to `FILE` (a swarm run only; docs/triage.md)")
	f.VarP(o.output, "output", "o", "output format")
	_ = cmd.RegisterFlagCompletionFunc("output", cobra.FixedCompletions(o.output.allowed, cobra.ShellCompDirectiveNoFileComp))
	_ = cmd.RegisterFlagCompletionFunc("seed", cobra.NoFileCompletions)
	return cmd
}

// addShapeFlags registers the flags that shape a run (scenario, bugs, cluster
// overrides), shared by run and sweep.
func (o *runOptions) addShapeFlags(cmd *cobra.Command) {
	f := cmd.Flags()
	f.Var(&o.scenario, "scenario", "named scenario to run (see vsrsim list)")
	f.Var(&o.scenarioFile, "scenario-file", "run the timed script in `FILE` (docs/scenario-files.md)")
	f.StringArrayVar(&o.bugs, "bug", nil, "turn on a bug switch (repeatable; see vsrsim list)")
	f.BoolVar(&o.noFoci, "no-foci", false, "draw a swarm seed without its focus slice (docs/fuzz.md); not with a scenario")
	addSpecFlag(cmd)
	for _, fl := range settings.Flags() {
		f.Var(&overrideFlag{o: &o.override, key: fl.Key, typ: fl.Form}, fl.Key, fl.Usage)
	}

	_ = cmd.RegisterFlagCompletionFunc("scenario", completeScenarios)
	_ = cmd.RegisterFlagCompletionFunc("bug", completeBugs)
	_ = cmd.RegisterFlagCompletionFunc("journal", cobra.FixedCompletions([]string{"wal", "memory"}, cobra.ShellCompDirectiveNoFileComp))
	_ = cmd.RegisterFlagCompletionFunc("topology", cobra.FixedCompletions([]string{"chain", "star"}, cobra.ShellCompDirectiveNoFileComp))
	for _, name := range []string{"replicas", "clients", "ticks", "extra-delay", "journal-slots"} {
		_ = cmd.RegisterFlagCompletionFunc(name, cobra.NoFileCompletions)
	}
}

// runSeed is the seed a run takes: --seed, else the `seed N` line of the
// --scenario-file; missing is the usage error when neither gives one.
func (o *runOptions) runSeed(missing string) (uint64, error) {
	if o.seed.set {
		seed, err := prng.ParseSeed(o.seed.value)
		if err != nil {
			return 0, usageErrorf("--seed: %v", err)
		}
		return seed, nil
	}
	if o.scenarioFile.value == "" {
		return 0, usageErrorf("%s", missing)
	}
	file, err := readScenarioFile(o.scenarioFile.value)
	if err != nil {
		return 0, err
	}
	if seed, ok := file.Seed(); ok {
		return seed, nil
	}
	return 0, usageErrorf("%s (%s has no seed line)", missing, o.scenarioFile.value)
}

func (o *runOptions) changed(name string) bool {
	return o.flags != nil && o.flags.Changed(name)
}

func (o *runOptions) run(stdout, stderr io.Writer) error {
	seed, err := o.runSeed(`required flag(s) "seed" not set`)
	if err != nil {
		return err
	}
	cfg, at, err := o.config(seed)
	if err != nil {
		return err
	}
	if err := o.startRecord(&at); err != nil {
		return err
	}
	if err := outputPath("trace", o.trace, o.changed("trace")); err != nil {
		return err
	}
	if err := o.artifacts.check(o.flags, o.trace); err != nil {
		return err
	}
	outs, err := o.artifacts.open(o.trace, stdout)
	if err != nil {
		return err
	}
	// The trace on stdout owns it; the report moves to stderr so the two
	// never interleave.
	report := stdout
	if o.trace == "-" {
		report = stderr
	}
	options := o.describe(cfg)
	asJSON := o.output.value == "json"
	if !asJSON {
		// Before the run, as VOPR does: a reader sees the fault mix even if
		// the run is interrupted.
		writeOptions(report, seed, options)
	}
	res, err := outs.simulate(cfg, at, options)
	if err != nil {
		return err
	}
	replay := o.replay(seed)
	if err := o.writeRecord(&cfg, at.Recording, seed, res); err != nil {
		return err
	}
	if asJSON {
		err = writeJSON(report, newRunJSON(res, options, replay))
	} else {
		err = writeRunTable(report, res, replay)
	}
	if err != nil {
		return internalErrorf("writing output: %v", err)
	}
	return silentExit(runExitCode(res))
}

// optionFlags names the flag behind each option of the dump that a flag can
// set.
var optionFlags = map[string]string{
	"replicas": "replicas", "clients": "clients", "topology": "topology", "journal": "journal",
	"journal_slots": "journal-slots", "ticks": "ticks", "extra_delay": "extra-delay", "bugs": "bug",
}

// describe is the option dump of cfg with each value a flag set marked, so a
// reader can tell the seed's draw from the user's override.
func (o *runOptions) describe(cfg sim.Config) []sim.Option {
	options := settings.Describe(&cfg)
	for i := range options {
		if name := optionFlags[options[i].Name]; name != "" && o.changed(name) {
			options[i].Flag = "--" + name
		}
	}
	return options
}

// config builds the run's configuration: the scenario's or the seed's swarm
// draw, then every flag the user set; and what the run attaches: a
// scenario's script. A malformed scenario file is a data error; any other
// error is a usage error.
func (o *runOptions) config(seed uint64) (sim.Config, sim.Attach, error) {
	if o.scenario.value != "" && o.scenarioFile.value != "" {
		return sim.Config{}, sim.Attach{}, usageErrorf("--scenario and --scenario-file do not go together")
	}
	if o.noFoci && (o.scenario.value != "" || o.scenarioFile.value != "") {
		return sim.Config{}, sim.Attach{}, usageErrorf("--no-foci draws a swarm seed: not with --scenario or --scenario-file")
	}
	cfg, at, file, err := o.baseConfig(seed)
	if err != nil {
		return sim.Config{}, sim.Attach{}, err
	}
	bugs, err := replica.ParseBugs(o.bugs)
	if err != nil {
		return sim.Config{}, sim.Attach{}, usageErrorf("--bug: %v", err)
	}
	cfg.Bugs = bugs
	applySpec(&cfg)

	if err := o.override.Apply(&cfg); err != nil {
		return sim.Config{}, sim.Attach{}, usageErrorf("%s", flagError(err))
	}
	if file != nil {
		if err := file.CheckDisks(&cfg); err != nil {
			return sim.Config{}, sim.Attach{}, dataErrorf("%v", err)
		}
	}
	return cfg, at, nil
}

// baseConfig is the configuration before any flag: a scenario file's, a
// named scenario's (each with its script), or the seed's swarm draw. The
// scenario file is returned too, because its disks are checked only once
// the flags have had their say.
func (o *runOptions) baseConfig(seed uint64) (sim.Config, sim.Attach, *scenarios.File, error) {
	var at sim.Attach
	switch {
	case o.scenarioFile.value != "":
		file, err := readScenarioFile(o.scenarioFile.value)
		if err != nil {
			return sim.Config{}, sim.Attach{}, nil, err
		}
		cfg := sim.DefaultConfig(seed)
		if at.Script, err = file.Apply(&cfg); err != nil {
			return sim.Config{}, sim.Attach{}, nil, dataErrorf("%v", err)
		}
		return cfg, at, file, nil
	case o.scenario.value != "":
		s, err := scenarios.Lookup(o.scenario.value)
		if err != nil {
			return sim.Config{}, sim.Attach{}, nil, usageErrorf("--scenario: %v", err)
		}
		cfg := sim.DefaultConfig(seed)
		at.Script = s.Apply(&cfg)
		return cfg, at, nil, nil
	case o.noFoci:
		return swarm.Unfocused(seed), at, nil, nil
	default:
		return swarm.Config(seed), at, nil, nil
	}
}

// replay is the command line that reproduces the run: the seed in canonical
// decimal, the scenario, the bugs, and every override the user set. Output
// flags (-o, --trace) do not change the run and are left out.
func (o *runOptions) replay(seed uint64) string {
	args := []string{"vsrsim", "run", "--seed", strconv.FormatUint(seed, 10)}
	if o.scenario.value != "" {
		args = append(args, "--scenario", o.scenario.value)
	}
	if o.scenarioFile.value != "" {
		args = append(args, "--scenario-file", o.scenarioFile.value)
	}
	if o.noFoci {
		args = append(args, "--no-foci")
	}
	bugs, _ := replica.ParseBugs(o.bugs)
	for _, name := range bugs.Names() {
		args = append(args, "--bug", name)
	}
	args = append(args, o.override.Args()...)
	for i, a := range args {
		args[i] = shellQuote(a)
	}
	return strings.Join(args, " ")
}

func completeScenarios(*cobra.Command, []string, string) ([]cobra.Completion, cobra.ShellCompDirective) {
	var out []cobra.Completion
	for _, s := range scenarios.All() {
		out = append(out, cobra.CompletionWithDesc(s.Name, s.Description))
	}
	return out, cobra.ShellCompDirectiveNoFileComp
}

func completeBugs(*cobra.Command, []string, string) ([]cobra.Completion, cobra.ShellCompDirective) {
	var out []cobra.Completion
	for _, b := range replica.BugCatalog {
		out = append(out, cobra.CompletionWithDesc(b.Name, b.Description))
	}
	return out, cobra.ShellCompDirectiveNoFileComp
}

// writeOptions prints the option dump: "seed N options:" and one aligned
// "name  value" line per option.
func writeOptions(w io.Writer, seed uint64, options []sim.Option) {
	width := 0
	for _, opt := range options {
		width = max(width, len(opt.Name))
	}
	fmt.Fprintf(w, "seed %d (%s) options:\n", seed, seedHex(seed))
	for _, opt := range options {
		if opt.Flag != "" {
			fmt.Fprintf(w, "  %-*s  %s  (set by %s)\n", width, opt.Name, opt.Value, opt.Flag)
			continue
		}
		fmt.Fprintf(w, "  %-*s  %s\n", width, opt.Name, opt.Value)
	}
	fmt.Fprintln(w)
}

// readScenarioFile parses a scenario file; a missing or malformed file is a
// data error (exit 65) naming the file and line.
func readScenarioFile(path string) (*scenarios.File, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, dataErrorf("%s: %v", path, errUnwrapPath(err))
	}
	if err := checkTextLines(path, data); err != nil {
		return nil, err
	}
	file, err := scenarios.ParseFile(path, bytes.NewReader(data))
	if err != nil {
		return nil, dataErrorf("%v", err)
	}
	return file, nil
}

// scenarioLineMax bounds a scenario file's line; a script line is a few words.
const scenarioLineMax = 64 << 10

// checkTextLines refuses what a line scanner would report in its own terms: a
// byte order mark, and a line too long to be a script line.
func checkTextLines(path string, data []byte) error {
	if bytes.HasPrefix(data, []byte("\ufeff")) {
		return dataErrorf("%s:1: starts with a UTF-8 byte order mark; save the file without it", path)
	}
	for n, line := range bytes.Split(data, []byte("\n")) {
		if len(line) > scenarioLineMax {
			return dataErrorf("%s:%d: line longer than %d KiB", path, n+1, scenarioLineMax>>10)
		}
	}
	return nil
}
