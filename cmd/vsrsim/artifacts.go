package main

import (
	"bufio"
	"io"
	"os"
	"strconv"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"vsrsim/sim"
	"vsrsim/sim/ndjson"
	"vsrsim/verify"
	"vsrsim/viz"
)

// artifactPaths are the files a run can leave behind for triage besides its
// report. The NDJSON trace has its own --trace flag on run and replay alike.
type artifactPaths struct {
	traceFilter []string
	perfetto    string
	timeline    string
	linHTML     string
}

// pictureFlags are the artifact flags that name a file; none may be stdout,
// which the report (or the trace) owns.
func (a *artifactPaths) pictureFlags() []struct{ name, path string } {
	return []struct{ name, path string }{
		{"perfetto", a.perfetto}, {"timeline", a.timeline}, {"linearizability-html", a.linHTML},
	}
}

func (a *artifactPaths) addFlags(cmd *cobra.Command) {
	f := cmd.Flags()
	f.StringArrayVar(&a.traceFilter, "trace-filter", nil,
		"write only matching trace lines: kind=send,status,-timeout; replica=0,2; op=10-20 (repeatable; the hash still covers every line)")
	f.StringVar(&a.perfetto, "perfetto", "", "write a Chrome/Perfetto trace-event JSON of the run to `FILE` (open in ui.perfetto.dev)")
	f.StringVar(&a.timeline, "timeline", "", "draw the run's per-replica status, view and commit over time as an SVG `FILE`")
	f.StringVar(&a.linHTML, "linearizability-html", "", "write porcupine's visualisation of the client history to an HTML `FILE`")
	_ = cmd.RegisterFlagCompletionFunc("trace-filter", cobra.NoFileCompletions)
}

// check refuses bad artifact flags before anything runs.
func (a *artifactPaths) check(flags *pflag.FlagSet, trace string) error {
	if len(a.traceFilter) > 0 && trace == "" {
		return usageErrorf("--trace-filter needs --trace")
	}
	if _, err := ndjson.ParseFilter(a.traceFilter); err != nil {
		return usageErrorf("--trace-filter %v", err)
	}
	for _, p := range a.pictureFlags() {
		if err := outputPath(p.name, p.path, flags.Changed(p.name)); err != nil {
			return err
		}
		if p.path == "-" {
			return usageErrorf("--%s: give a file name; stdout carries the report", p.name)
		}
	}
	return nil
}

// output is one opened destination: a file, or stdout for "-".
type output struct {
	name  string
	file  *os.File // nil for stdout, which is never closed
	w     *bufio.Writer
	close bool
}

// openOutput opens path for writing before the run starts, so a bad path
// fails alone rather than after a long run. "" opens nothing.
func openOutput(path string, stdout io.Writer) (*output, error) {
	if path == "" {
		return nil, nil
	}
	if path == "-" {
		return &output{name: "stdout", w: bufio.NewWriterSize(stdout, 1<<16)}, nil
	}
	f, err := os.Create(path)
	if err != nil {
		return nil, internalErrorf("%s: %v", path, errUnwrapPath(err))
	}
	return &output{name: path, file: f, w: bufio.NewWriterSize(f, 1<<16)}, nil
}

// finish flushes and closes the output; err is the first failure so far.
func (o *output) finish(err error) error {
	if o == nil {
		return err
	}
	if ferr := o.w.Flush(); err == nil {
		err = ferr
	}
	if o.file != nil {
		if cerr := o.file.Close(); err == nil {
			err = cerr
		}
	}
	return err
}

// opened holds what one run writes, opened up front.
type opened struct {
	trace    *output
	filter   ndjson.Filter
	perfetto *output
	timeline *output
	linHTML  *output
}

func (a *artifactPaths) open(tracePath string, stdout io.Writer) (*opened, error) {
	filter, err := ndjson.ParseFilter(a.traceFilter)
	if err != nil {
		return nil, usageErrorf("--trace-filter %v", err)
	}
	op := &opened{filter: filter}
	for _, o := range []struct {
		to   **output
		path string
	}{{&op.trace, tracePath}, {&op.perfetto, a.perfetto}, {&op.timeline, a.timeline}, {&op.linHTML, a.linHTML}} {
		if *o.to, err = openOutput(o.path, stdout); err != nil {
			return nil, err
		}
	}
	return op, nil
}

// sinks hands each trace record to every sink in turn.
type sinks []sim.Sink

func (s sinks) Record(r *sim.Record) error {
	for _, k := range s {
		if err := k.Record(r); err != nil {
			return err
		}
	}
	return nil
}

// simulate runs cfg through verify.Run and writes every opened output; options
// is the run's option dump, for the trace header. Output I/O failures are
// internal errors: the run itself was fine, its record was not.
func (op *opened) simulate(cfg sim.Config, at sim.Attach, options []sim.Option) (sim.Result, error) {
	var all sinks
	var nd *ndjson.Writer
	var err error
	if op.trace != nil {
		nd = ndjson.New(op.trace.w, op.filter)
		all = append(all, nd)
		err = nd.Header(&cfg, options)
	}
	var col *viz.Collector
	if op.perfetto != nil || op.timeline != nil {
		col = viz.NewCollector(cfg.Replicas, cfg.Clients)
		all = append(all, col)
	}
	if len(all) > 0 {
		at.Observer = all
	}
	var res sim.Result
	if err == nil {
		res, err = verify.Run(cfg, at)
	}
	if nd != nil {
		// The trailer has the verdict after the linearizability check, which
		// the run itself cannot know.
		if err == nil {
			err = nd.Trailer(&res)
		}
		if err = op.trace.finish(err); err != nil {
			return res, internalErrorf("trace %s: %v", op.trace.name, err)
		}
	}
	if err != nil {
		return res, internalErrorf("run: %v", err)
	}
	return res, op.writePictures(col, &res)
}

// writePictures writes the artifacts drawn from a finished run.
func (op *opened) writePictures(col *viz.Collector, res *sim.Result) error {
	for _, p := range []struct {
		out   *output
		write func(io.Writer) error
	}{
		{op.perfetto, func(w io.Writer) error { return viz.WritePerfetto(w, col, res) }},
		{op.timeline, func(w io.Writer) error { return viz.WriteTimeline(w, col, res) }},
		{op.linHTML, func(w io.Writer) error {
			_, err := verify.WriteLinearizabilityHTML(w, res.History)
			return err
		}},
	} {
		if p.out == nil {
			continue
		}
		if err := p.out.finish(p.write(p.out.w)); err != nil {
			return internalErrorf("%s: %v", p.out.name, err)
		}
	}
	return nil
}

// seedHex is the seed as the string field seed_hex carries: JSON readers
// round a bare 64-bit number, a string stays exact.
func seedHex(seed uint64) string { return "0x" + strconv.FormatUint(seed, 16) }
