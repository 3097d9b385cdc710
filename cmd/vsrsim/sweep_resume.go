package main

import (
	"errors"
	"fmt"
	"io/fs"
	"os"

	"vsrsim/sweep"
)

// resumeFrom reads --resume FILE and fits the sweep to it: the range is the
// cursor's (range flags, if given, must name the same one), the run flags
// must give the same run command, and the sweep starts at the cursor's next
// seed with its counts. Without --resume it leaves rng as the flags gave it.
func (o *sweepOptions) resumeFrom(rng sweep.Range) (sweep.Range, error) {
	if err := o.resumeCursorFile(); err != nil {
		return rng, err
	}
	if o.resume == "" {
		return rng, nil
	}
	c, err := sweep.ReadCursor(o.resume)
	if errors.Is(err, fs.ErrNotExist) {
		return rng, dataErrorf("--resume %s: no such file", o.resume)
	}
	if err != nil {
		return rng, dataErrorf("--resume %s: %v", o.resume, errUnwrapPath(err))
	}
	if o.rangeFlagsGiven() && rng != c.Range {
		return rng, usageErrorf("--resume %s: the cursor is of the range %s, the flags name %s",
			o.resume, rangeText(c.Range), rangeText(rng))
	}
	if cmd := o.run.replay(c.Range.First); cmd != c.Command {
		return rng, usageErrorf("--resume %s: the cursor's sweep runs `%s`, these flags run `%s`", o.resume, c.Command, cmd)
	}
	o.cursor0 = c
	return c.Range, nil
}

// resumeCursorFile turns --resume-cursor into --resume of the --cursor
// file when that file exists: a pod or job rerun with the same arguments
// goes on from where its previous run stopped.
func (o *sweepOptions) resumeCursorFile() error {
	if !o.resumeCursor {
		return nil
	}
	if o.cursor == "" || o.resume != "" {
		return usageErrorf("--resume-cursor: give --cursor FILE, and no --resume")
	}
	if _, err := os.Stat(o.cursor); err == nil {
		o.resume = o.cursor
	}
	return nil
}

// rangeFlagsGiven reports whether any flag that names the range was set.
func (o *sweepOptions) rangeFlagsGiven() bool {
	for _, name := range []string{"seeds", "count", "start", "shard"} {
		if o.flags.Changed(name) {
			return true
		}
	}
	return false
}

func rangeText(r sweep.Range) string {
	return fmt.Sprintf("%d seeds from %d, shard %d/%d", r.Count, r.First, r.Shard, max(r.ShardN, 1))
}

// cursorPath is where the sweep writes its cursor: --cursor, else the file
// it resumed from, so `--resume FILE` alone keeps FILE current.
func (o *sweepOptions) cursorPath() string {
	if o.cursor != "" {
		return o.cursor
	}
	return o.resume
}

// writeCursor records where the sweep stopped, with the counts of every
// sweep so far and the lines written to --failures and --excused.
func (o *sweepOptions) writeCursor(rng sweep.Range, sum *sweep.Summary, sink *sweepSink) error {
	path := o.cursorPath()
	if path == "" {
		return nil
	}
	c := sweep.NewCursor(o.run.replay(rng.First), rng, sum,
		o.cursor0.FindingsWritten+sink.findingsWritten, o.cursor0.ExcusedWritten+sink.excusedWritten)
	if err := sweep.WriteCursor(path, c); err != nil {
		return internalErrorf("--cursor: %v", errUnwrapPath(err))
	}
	return nil
}
