package main

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"

	"github.com/spf13/cobra"

	"vsrsim/prng"
	"vsrsim/replica"
	"vsrsim/scenarios"
	"vsrsim/sim"
	"vsrsim/verify"
)

// runOptions are the flags that shape a run. A sweep builds the same options
// and calls config and replay once per seed.
type runOptions struct {
	seed         string
	scenario     string
	scenarioFile string
	bugs         []string
	// override holds the cluster flags the user gave; sim.Override parses
	// and checks them, as it does scenario-file settings and corpus lines.
	override sim.Override
	trace    string
	output   *enumFlag
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

The exit code is the verdict: 0 pass or unrecoverable, 1 safety, 3 liveness,
4 crash.`,
		Example: `  vsrsim run --seed 42
  vsrsim run --seed 42 --scenario hollow-op --bug narrow-repair-under-commit-lag
  vsrsim run --seed 0x2a --replicas 5 --extra-delay '*:0=40' -o json
  vsrsim run --seed "$(git rev-parse HEAD)" --trace run.ndjson`,
		Args:              cobra.NoArgs,
		ValidArgsFunction: cobra.NoFileCompletions,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return o.run(cmd.OutOrStdout())
		},
	}
	f := cmd.Flags()
	f.StringVar(&o.seed, "seed", "", "run seed: decimal u64, 0x hex u64, or a 40-hex commit hash (required)")
	o.addShapeFlags(cmd)
	f.StringVar(&o.trace, "trace", "", "write the NDJSON trace to `FILE`")
	f.VarP(o.output, "output", "o", "output format")
	_ = cmd.MarkFlagRequired("seed")
	_ = cmd.RegisterFlagCompletionFunc("output", cobra.FixedCompletions(o.output.allowed, cobra.ShellCompDirectiveNoFileComp))
	_ = cmd.RegisterFlagCompletionFunc("seed", cobra.NoFileCompletions)
	return cmd
}

// addShapeFlags registers the flags that shape a run (scenario, bugs, cluster
// overrides), shared by run and sweep.
func (o *runOptions) addShapeFlags(cmd *cobra.Command) {
	f := cmd.Flags()
	f.StringVar(&o.scenario, "scenario", "", "named scenario to run (see vsrsim list)")
	f.StringVar(&o.scenarioFile, "scenario-file", "", "run the timed script in `FILE` (docs/scenario-files.md)")
	f.StringArrayVar(&o.bugs, "bug", nil, "turn on a bug switch (repeatable; see vsrsim list)")
	for _, fl := range []struct{ key, typ, usage string }{
		{"replicas", "int", "number of replicas (overrides the seed's draw)"},
		{"clients", "int", "number of clients (overrides the seed's draw)"},
		{"ticks", "uint", "ticks of the fault phase (the liveness phase follows)"},
		{"extra-delay", "FROM:TO=TICKS", "extra delay on a directed link, FROM and TO a replica or * (repeatable; replaces the drawn ones)"},
		{"journal", "wal|memory", "journal durability: wal survives a restart, memory comes back empty"},
		{"journal-slots", "int", "journal capacity in ops"},
		{"topology", "chain|star", "how the primary replicates prepares"},
	} {
		f.Var(&overrideFlag{o: &o.override, key: fl.key, typ: fl.typ}, fl.key, fl.usage)
	}

	_ = cmd.RegisterFlagCompletionFunc("scenario", completeScenarios)
	_ = cmd.RegisterFlagCompletionFunc("bug", completeBugs)
	_ = cmd.RegisterFlagCompletionFunc("journal", cobra.FixedCompletions([]string{"wal", "memory"}, cobra.ShellCompDirectiveNoFileComp))
	_ = cmd.RegisterFlagCompletionFunc("topology", cobra.FixedCompletions([]string{"chain", "star"}, cobra.ShellCompDirectiveNoFileComp))
	for _, name := range []string{"replicas", "clients", "ticks", "extra-delay", "journal-slots"} {
		_ = cmd.RegisterFlagCompletionFunc(name, cobra.NoFileCompletions)
	}
}

func (o *runOptions) run(stdout io.Writer) error {
	seed, err := prng.ParseSeed(o.seed)
	if err != nil {
		return usageErrorf("--seed: %v", err)
	}
	cfg, err := o.config(seed)
	if err != nil {
		return err
	}
	// Open the trace before printing anything: a bad path should fail
	// alone, not after half a report.
	var trace *os.File
	if o.trace != "" {
		if trace, err = os.Create(o.trace); err != nil {
			return internalErrorf("trace: %v", err)
		}
	}
	options := cfg.Describe()
	asJSON := o.output.value == "json"
	if !asJSON {
		// Before the run, as VOPR does: a reader sees the fault mix even if
		// the run is interrupted.
		writeOptions(stdout, seed, options)
	}

	res, err := simulate(cfg, trace)
	if err != nil {
		return err
	}
	replay := o.replay(seed)
	if asJSON {
		err = writeJSON(stdout, newRunJSON(res, options, replay))
	} else {
		err = writeRunTable(stdout, res, replay)
	}
	if err != nil {
		return internalErrorf("writing output: %v", err)
	}
	return silentExit(verdictExitCode(res.Verdict))
}

// config builds the run's configuration: the scenario's or the seed's swarm
// draw, then every flag the user set. A malformed scenario file is a data
// error; any other error is a usage error.
func (o *runOptions) config(seed uint64) (sim.Config, error) {
	var cfg sim.Config
	if o.scenario != "" && o.scenarioFile != "" {
		return sim.Config{}, usageErrorf("--scenario and --scenario-file do not go together")
	}
	if o.scenarioFile != "" {
		file, err := readScenarioFile(o.scenarioFile)
		if err != nil {
			return sim.Config{}, err
		}
		cfg = sim.DefaultConfig(seed)
		if err := file.Apply(&cfg); err != nil {
			return sim.Config{}, dataErrorf("%v", err)
		}
	} else if o.scenario != "" {
		s, err := scenarios.Lookup(o.scenario)
		if err != nil {
			return sim.Config{}, usageErrorf("--scenario: %v", err)
		}
		cfg = sim.DefaultConfig(seed)
		s.Apply(&cfg)
	} else {
		cfg = sim.SwarmConfig(seed)
	}
	bugs, err := replica.ParseBugs(o.bugs)
	if err != nil {
		return sim.Config{}, usageErrorf("--bug: %v", err)
	}
	cfg.Bugs = bugs

	if err := o.override.Apply(&cfg); err != nil {
		return sim.Config{}, usageErrorf("%s", flagError(err))
	}
	return cfg, nil
}

// simulate runs cfg through verify.Run, writing the trace to file if it is
// not nil, and closes file. Trace I/O failures are internal errors: the run
// itself was fine, its record was not.
func simulate(cfg sim.Config, file *os.File) (sim.Result, error) {
	if file == nil {
		res, err := verify.Run(cfg, nil)
		if err != nil {
			return res, internalErrorf("run: %v", err)
		}
		return res, nil
	}
	w := bufio.NewWriterSize(file, 1<<16)
	res, err := verify.Run(cfg, w)
	if err == nil {
		err = w.Flush()
	}
	if closeErr := file.Close(); err == nil {
		err = closeErr
	}
	if err != nil {
		return res, internalErrorf("trace %s: %v", file.Name(), err)
	}
	return res, nil
}

// replay is the command line that reproduces the run: the seed in canonical
// decimal, the scenario, the bugs, and every override the user set. Output
// flags (-o, --trace) do not change the run and are left out.
func (o *runOptions) replay(seed uint64) string {
	args := []string{"vsrsim", "run", "--seed", strconv.FormatUint(seed, 10)}
	if o.scenario != "" {
		args = append(args, "--scenario", o.scenario)
	}
	if o.scenarioFile != "" {
		args = append(args, "--scenario-file", o.scenarioFile)
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
	fmt.Fprintf(w, "seed %d options:\n", seed)
	for _, opt := range options {
		fmt.Fprintf(w, "  %-*s  %s\n", width, opt.Name, opt.Value)
	}
	fmt.Fprintln(w)
}

// readScenarioFile parses a scenario file; a missing or malformed file is a
// data error (exit 65) naming the file and line.
func readScenarioFile(path string) (*scenarios.File, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, dataErrorf("%s: %v", path, errUnwrapPath(err))
	}
	defer f.Close()
	file, err := scenarios.ParseFile(path, f)
	if err != nil {
		return nil, dataErrorf("%v", err)
	}
	return file, nil
}
