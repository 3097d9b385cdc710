package sweep

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
)

// CursorVersion is the cursor format this build writes and reads.
const CursorVersion = 1

// Cursor is where a sweep stopped, so a later sweep can go on from there
// (`vsrsim sweep --cursor FILE`, `--resume FILE`): the seeds before NextIndex
// of the range's shard are done, with the counts they gave. Its JSON field
// names are a contract.
type Cursor struct {
	Version int `json:"version"`
	// Command is the run command of the range's first seed, every flag that
	// shapes a run included: a cursor resumes only the sweep that wrote it.
	Command   string  `json:"command"`
	Range     Range   `json:"range"`
	NextIndex uint64  `json:"next_index"`
	NextSeed  *uint64 `json:"next_seed"` // null once the range is done
	Done      bool    `json:"done"`
	// FindingsWritten and ExcusedWritten count the lines the sweeps so far
	// appended to their --failures and --excused files.
	FindingsWritten uint64 `json:"findings_written"`
	ExcusedWritten  uint64 `json:"excused_written"`
	Counts          State  `json:"counts"`
}

// NewCursor is the cursor after sum, a sweep of rng run by command.
func NewCursor(command string, rng Range, sum *Summary, findings, excused uint64) Cursor {
	c := Cursor{
		Version: CursorVersion, Command: command, Range: rng, NextIndex: sum.Next,
		Done: sum.Next >= rng.Len(), FindingsWritten: findings, ExcusedWritten: excused, Counts: sum.State(),
	}
	if !c.Done {
		seed := rng.Seed(sum.Next)
		c.NextSeed = &seed
	}
	return c
}

// ReadCursor reads a cursor file strictly: an unknown field, another
// version, or counts that do not match the seeds done are errors.
func ReadCursor(path string) (Cursor, error) {
	var c Cursor
	data, err := os.ReadFile(path)
	if err != nil {
		return c, err
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&c); err != nil {
		return c, fmt.Errorf("not a sweep cursor: %v", err)
	}
	return c, c.validate()
}

func (c *Cursor) validate() error {
	if c.Version != CursorVersion {
		return fmt.Errorf("cursor version %d; this build reads version %d", c.Version, CursorVersion)
	}
	if err := c.Range.Validate(); err != nil {
		return fmt.Errorf("range: %v", err)
	}
	n := c.Range.Len()
	switch {
	case c.Command == "":
		return errors.New("no command")
	case c.NextIndex > n:
		return fmt.Errorf("next_index %d is past the shard's %d seeds", c.NextIndex, n)
	case c.Done != (c.NextIndex == n):
		return fmt.Errorf("done is %v at next_index %d of %d", c.Done, c.NextIndex, n)
	case c.Done != (c.NextSeed == nil):
		return errors.New("next_seed must be null exactly when done")
	case c.NextSeed != nil && *c.NextSeed != c.Range.Seed(c.NextIndex):
		return fmt.Errorf("next_seed %d is not the seed at next_index %d", *c.NextSeed, c.NextIndex)
	case c.Counts.Runs != c.NextIndex:
		return fmt.Errorf("counts.runs %d, but next_index %d seeds are done", c.Counts.Runs, c.NextIndex)
	}
	return c.Counts.Validate()
}

// WriteCursor writes c to path whole or not at all (a temporary file
// renamed over it), so a sweep killed while writing leaves the previous
// cursor intact.
func WriteCursor(path string, c Cursor) error {
	data, err := json.MarshalIndent(c, "", "  ")
	if err != nil {
		return err
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), filepath.Base(path)+".tmp*")
	if err != nil {
		return err
	}
	_, err = tmp.Write(append(data, '\n'))
	if err == nil {
		err = tmp.Chmod(0o644) // as the sweep's other files
	}
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp.Name(), path)
	}
	if err != nil {
		os.Remove(tmp.Name())
	}
	return err
}
