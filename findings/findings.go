// Package findings reads the failure records that sweeps write, one
// `vsrsim run -o json` object per line, and merges the files of many shards
// into one set: every line validated, one record per run, in seed order.
package findings

import (
	"cmp"
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strings"

	"vsrsim/seeds"
	"vsrsim/sim"
)

// Record is one run record as a failures file holds it.
type Record struct {
	File      string
	Line      int
	Seed      uint64
	Scenario  string
	Bugs      []string
	Verdict   sim.Verdict
	Invariant string
	Rule      string // an unrecoverable run's rule (an --excused file's records)
	Evidence  string
	TraceHash string
	Replay    string
	// Text is the line as read, less surrounding blanks: a merge writes it
	// back unchanged, every field the writer knew included.
	Text string
	// key is the replay command's arguments, the seed and every flag: two
	// records with the same key are the same run.
	key string
}

// Where names the record as FILE:LINE.
func (r Record) Where() string { return fmt.Sprintf("%s:%d", r.File, r.Line) }

// extras are the fields a summary reads that a replay does not need.
type extras struct {
	Seed      *uint64  `json:"seed"`
	Scenario  string   `json:"scenario"`
	Bugs      []string `json:"bugs"`
	Invariant string   `json:"invariant"`
	Rule      string   `json:"rule"`
	Evidence  string   `json:"evidence"`
	Replay    string   `json:"replay"`
}

// Read parses every line of a failures file; a blank line is skipped, and any
// other line that is not a run record is an error "NAME:LINE: problem". An
// empty file has no records and is no error: a shard that found nothing
// leaves one.
func Read(name string, r io.Reader) ([]Record, error) {
	var recs []Record
	err := seeds.Lines(name, r, func(line int, text string) error {
		rec, err := parse(text)
		if err != nil {
			return err
		}
		rec.File, rec.Line = name, line
		recs = append(recs, rec)
		return nil
	})
	if err != nil {
		return nil, err
	}
	return recs, nil
}

func parse(text string) (Record, error) {
	if !strings.HasPrefix(text, "{") {
		return Record{}, fmt.Errorf("not a run record: want one JSON object per line")
	}
	c, err := seeds.ParseRecord(text)
	if err != nil {
		return Record{}, err
	}
	var x extras
	if err := json.Unmarshal([]byte(text), &x); err != nil {
		return Record{}, fmt.Errorf("not a run record: %v", err)
	}
	if *x.Seed != c.Seed {
		return Record{}, fmt.Errorf("seed %d, but its replay command runs seed %d", *x.Seed, c.Seed)
	}
	return Record{
		Seed: c.Seed, Scenario: x.Scenario, Bugs: x.Bugs, Verdict: c.Verdict,
		Invariant: x.Invariant, Rule: x.Rule, Evidence: x.Evidence, TraceHash: c.Hash, Replay: x.Replay,
		Text: text, key: strings.Join(c.Args, " "),
	}, nil
}

// Conflict is a run found twice with different outcomes: the same seed and
// flags gave another verdict or trace hash. Within one build that breaks
// determinism; across builds the code changed between the two.
type Conflict struct {
	Kept, Dropped Record
}

// Merged is the result of merging the records of several files.
type Merged struct {
	Records    []Record // one per run, by seed, then by flags
	Read       int      // records read, duplicates included
	Duplicates int      // records dropped as a run already kept
	Conflicts  []Conflict
}

// Merge keeps the first record of each run (same seed and flags) in the order
// given, and orders the kept records by seed, then by flags.
func Merge(recs []Record) Merged {
	m := Merged{Read: len(recs)}
	// Looked up only, never ranged over: the output order is the sort's.
	kept := map[string]int{}
	for _, r := range recs {
		if i, ok := kept[r.key]; ok {
			m.Duplicates++
			if first := m.Records[i]; first.Verdict != r.Verdict || first.TraceHash != r.TraceHash {
				m.Conflicts = append(m.Conflicts, Conflict{Kept: first, Dropped: r})
			}
			continue
		}
		kept[r.key] = len(m.Records)
		m.Records = append(m.Records, r)
	}
	slices.SortStableFunc(m.Records, func(a, b Record) int {
		if c := cmp.Compare(a.Seed, b.Seed); c != 0 {
			return c
		}
		return strings.Compare(a.key, b.key)
	})
	return m
}
