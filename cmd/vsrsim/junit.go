package main

import (
	"bytes"
	"encoding/xml"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"strconv"
	"strings"
	"time"

	"vsrsim/sweep"
)

// The JUnit XML shapes CI test-result views read: a suite per sweep, a test
// case per finding, and one for the sweep as a whole.
type junitSuites struct {
	XMLName  xml.Name     `xml:"testsuites"`
	Name     string       `xml:"name,attr"`
	Tests    int          `xml:"tests,attr"`
	Failures int          `xml:"failures,attr"`
	Errors   int          `xml:"errors,attr"`
	Time     string       `xml:"time,attr"`
	Suites   []junitSuite `xml:"testsuite"`
}

type junitSuite struct {
	Name       string          `xml:"name,attr"`
	Tests      int             `xml:"tests,attr"`
	Failures   int             `xml:"failures,attr"`
	Errors     int             `xml:"errors,attr"`
	Time       string          `xml:"time,attr"`
	Properties []junitProperty `xml:"properties>property"`
	Cases      []junitCase     `xml:"testcase"`
}

type junitProperty struct {
	Name  string `xml:"name,attr"`
	Value string `xml:"value,attr"`
}

type junitCase struct {
	Name      string        `xml:"name,attr"`
	Classname string        `xml:"classname,attr"`
	Time      string        `xml:"time,attr"`
	Failure   *junitProblem `xml:"failure,omitempty"`
	Error     *junitProblem `xml:"error,omitempty"`
	SystemOut *junitText    `xml:"system-out,omitempty"`
}

// junitText is element text as CDATA, so trace lines and tables keep their
// line breaks readable in the file.
type junitText struct {
	Text string `xml:",cdata"`
}

type junitProblem struct {
	Message string `xml:"message,attr"`
	Type    string `xml:"type,attr"`
	Text    string `xml:",cdata"`
}

// junitReport collects a sweep's findings for --junit FILE. A nil report
// collects nothing, so the sweep calls it whether or not the flag is set.
type junitReport struct {
	f     *os.File
	cases []junitCase
	// prior holds the suites of the sweeps a resumed sweep goes on from,
	// read from the file before it is rewritten.
	prior []junitSuite
}

// openJUnit creates FILE before the sweep starts, so a path that cannot be
// written fails at once, not after the last seed. With keep (a resumed
// sweep), the suites FILE already holds are kept and this sweep's added
// after them, so the file lists every finding of every part; a file left
// empty by a killed sweep holds none.
func openJUnit(path string, keep bool) (*junitReport, error) {
	if path == "" {
		return nil, nil
	}
	var prior junitSuites
	if keep {
		data, err := os.ReadFile(path)
		if err != nil && !errors.Is(err, fs.ErrNotExist) {
			return nil, internalErrorf("--junit: %v", err)
		}
		if len(bytes.TrimSpace(data)) > 0 {
			if err := xml.Unmarshal(data, &prior); err != nil {
				return nil, dataErrorf("--junit %s: not a JUnit file to add to: %v", path, err)
			}
		}
	}
	f, err := os.Create(path)
	if err != nil {
		return nil, internalErrorf("--junit: %v", err)
	}
	return &junitReport{f: f, prior: prior.Suites}, nil
}

// add records a finding (rec its failure record) or, with rec nil, a seed
// whose run returned an error.
func (j *junitReport) add(out sweep.Outcome, rec *runJSON) {
	if j == nil {
		return
	}
	c := junitCase{Time: junitSeconds(out.Wall)}
	if rec == nil {
		c.Name = fmt.Sprintf("seed %d error", out.Seed)
		c.Error = &junitProblem{Message: oneLine(out.Err.Error()), Type: "error", Text: xmlSafe(out.Err.Error())}
		j.cases = append(j.cases, c)
		return
	}
	c.Name = fmt.Sprintf("seed %d %s", out.Seed, rec.Verdict)
	if rec.Invariant != "" {
		c.Name += " (" + rec.Invariant + ")"
	}
	var body strings.Builder
	fmt.Fprintf(&body, "verdict: %s\ninvariant: %s\nevidence: %s\nreplay: %s\n",
		rec.Verdict, orNone(rec.Invariant), orNone(rec.Evidence), rec.Replay)
	if len(rec.Tail) > 0 {
		body.WriteString("last trace lines:\n")
		for _, line := range rec.Tail {
			fmt.Fprintf(&body, "  %s\n", line)
		}
	}
	c.Failure = &junitProblem{
		Message: oneLine(orNone(rec.Evidence)) + "; replay: " + rec.Replay,
		Type:    string(rec.Verdict),
		Text:    xmlSafe(body.String()),
	}
	j.cases = append(j.cases, c)
}

// finish adds the case of the sweep as a whole, passing unless the sweep was
// interrupted before its range was done, writes the file and closes it.
func (j *junitReport) finish(sum sweep.Summary, rng sweep.Range, jobs int) error {
	if j == nil {
		return nil
	}
	name := "vsrsim sweep"
	if rng.ShardN > 1 {
		name += fmt.Sprintf(" shard %d/%d", rng.Shard, rng.ShardN)
	}
	var table bytes.Buffer
	if err := writeSweepTable(&table, sum, rng, jobs); err != nil {
		j.f.Close()
		return err
	}
	whole := junitCase{
		// A name that stays the same from run to run, so CI can follow it.
		Name:      "sweep summary",
		Time:      junitSeconds(sum.Wall),
		SystemOut: &junitText{xmlSafe(table.String())},
	}
	if sum.Interrupted {
		msg := fmt.Sprintf("interrupted after %d of %d runs", sum.Runs, rng.Len())
		whole.Error = &junitProblem{Message: msg, Type: "interrupted", Text: msg}
	}
	suite := junitSuite{
		Name: name,
		Time: junitSeconds(sum.Wall),
		Properties: []junitProperty{
			{"first", strconv.FormatUint(rng.First, 10)}, {"count", strconv.FormatUint(rng.Count, 10)},
			{"shard", strconv.FormatUint(rng.Shard, 10)}, {"shards", strconv.FormatUint(max(rng.ShardN, 1), 10)},
			{"jobs", strconv.Itoa(jobs)},
			// The indices of the shard's seeds this sweep ran: from..next-1.
			{"from_index", strconv.FormatUint(sum.From, 10)}, {"next_index", strconv.FormatUint(sum.Next, 10)},
		},
		Cases: append(j.cases, whole),
	}
	for i := range suite.Cases {
		c := &suite.Cases[i]
		c.Classname = name
		suite.Tests++
		if c.Failure != nil {
			suite.Failures++
		}
		if c.Error != nil {
			suite.Errors++
		}
	}
	doc := junitSuites{Name: "vsrsim", Time: suite.Time, Suites: append(j.prior, suite)}
	for _, s := range doc.Suites {
		doc.Tests += s.Tests
		doc.Failures += s.Failures
		doc.Errors += s.Errors
	}
	out, err := xml.MarshalIndent(doc, "", "  ")
	if err == nil {
		_, err = j.f.Write(append([]byte(xml.Header), append(out, '\n')...))
	}
	if cerr := j.f.Close(); err == nil {
		err = cerr
	}
	return err
}

func junitSeconds(d time.Duration) string { return strconv.FormatFloat(d.Seconds(), 'f', 3, 64) }

// xmlSafe replaces what XML 1.0 cannot hold, even in CDATA, with U+FFFD:
// evidence quotes replica state, which is not bound to printable text.
func xmlSafe(s string) string {
	return strings.Map(func(r rune) rune {
		switch {
		case r == '\t' || r == '\n' || r == '\r',
			r >= 0x20 && r <= 0xD7FF, r >= 0xE000 && r <= 0xFFFD, r >= 0x10000 && r <= 0x10FFFF:
			return r
		}
		return '\uFFFD'
	}, s)
}
