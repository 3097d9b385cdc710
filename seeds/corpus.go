// Package seeds reads the regression corpus: failing runs found once and
// replayed forever. A corpus file holds one case per line in either of two
// forms, which may be mixed:
//
//	# comment
//	SCENARIO SEED BUGS VERDICT TRACE_HASH [KEY=VALUE]...
//	{"seed":..., "verdict":..., "trace_hash":..., "replay":"vsrsim run ..."}
//
// In the text form SCENARIO is a scenario name or "-" for a swarm run, BUGS a
// comma-separated list of bug switches or "-", TRACE_HASH the trace hash or
// "-" (NoHash) where the case pins only its verdict, and each KEY=VALUE a run flag
// without its dashes (replicas=5, journal-slots=64, extra-delay=2:*=600,
// scenario-file=path, relative to the corpus file's directory). The JSON
// form is exactly a line of `vsrsim run -o json` or of a sweep's --failures
// file: its replay command carries every flag.
//
// Parsing yields, per case, the arguments of the `vsrsim run` that reproduces
// it, the run shape they give (parsed here, without the CLI, into the same
// settings.Override the run flags produce), and the verdict and trace hash the run
// must give.
package seeds

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"vsrsim/outcome"
	"vsrsim/prng"
	"vsrsim/sim"
	"vsrsim/sim/settings"
)

// Case is one pinned run.
type Case struct {
	File string
	Line int
	// Args are the flags of `vsrsim run` that reproduce the case, --seed first.
	Args    []string
	Shape   Shape
	Seed    uint64
	Verdict sim.Verdict
	Hash    string // the trace hash the run must give, or NoHash
	JSON    bool   // the line is a JSON record
}

// NoHash in a text case's TRACE_HASH column pins the verdict alone: most
// cases guard a finding, and a trace-format change that moves every hash
// says nothing about them. A hash stays where determinism itself is the point.
const NoHash = "-"

// PinsHash reports whether the case pins a trace hash.
func (c Case) PinsHash() bool { return c.Hash != NoHash }

// Drifts reports whether a run's verdict and trace hash drift from the case.
func (c Case) Drifts(verdict sim.Verdict, hash string) bool {
	return verdict != c.Verdict || (c.PinsHash() && hash != c.Hash)
}

// Where names the case as FILE:LINE.
func (c Case) Where() string { return fmt.Sprintf("%s:%d", c.File, c.Line) }

func parseVerdict(s string) (sim.Verdict, error) {
	if outcome.Known(s) {
		return sim.Verdict(s), nil
	}
	return "", fmt.Errorf("unknown verdict %q (want pass, safety, liveness, crash or unrecoverable)", s)
}

func checkHash(s string) error {
	if len(s) != 16 {
		return fmt.Errorf("trace hash %q: want 16 hex digits", s)
	}
	if _, err := strconv.ParseUint(s, 16, 64); err != nil {
		return fmt.Errorf("trace hash %q: want 16 hex digits", s)
	}
	return nil
}

// Shape is what a case's run flags say about the run besides its seed.
type Shape struct {
	Scenario     string // a named scenario, or ""
	ScenarioFile string
	Bugs         []string
	NoFoci       bool // a swarm seed drawn without its focus slice (--no-foci)
	Override     settings.Override
}

// noFociKey is the one run flag that takes no value: --no-foci.
const noFociKey = "no-foci"

// shapeKeys are the run flags a text line may set with KEY=VALUE.
var shapeKeys = append([]string{"scenario-file", noFociKey}, settings.FlagKeys()...)

// ParseArgs reads the flags of a `vsrsim run` command line (--flag VALUE or
// --flag=VALUE) as the run command would: the seed and the run's shape.
func ParseArgs(args []string) (uint64, Shape, error) {
	var sh Shape
	var seed uint64
	haveSeed := false
	for i := 0; i < len(args); i++ {
		key, value, inline := strings.Cut(strings.TrimPrefix(args[i], "--"), "=")
		if !strings.HasPrefix(args[i], "--") {
			return 0, sh, fmt.Errorf("unexpected argument %q", args[i])
		}
		if key == noFociKey {
			on := true
			if inline {
				var err error
				if on, err = strconv.ParseBool(value); err != nil {
					return 0, sh, fmt.Errorf("--%s=%s: want true or false", key, value)
				}
			}
			sh.NoFoci = on
			continue
		}
		if !inline {
			if i+1 == len(args) {
				return 0, sh, fmt.Errorf("flag --%s needs a value", key)
			}
			i++
			value = args[i]
		}
		var err error
		switch key {
		case "seed":
			seed, err = prng.ParseSeed(value)
			haveSeed = true
		case "scenario":
			sh.Scenario = value
		case "scenario-file":
			sh.ScenarioFile = value
		case "bug":
			sh.Bugs = append(sh.Bugs, value)
		default:
			if !slices.Contains(settings.FlagKeys(), key) {
				return 0, sh, fmt.Errorf("unknown flag --%s", key)
			}
			err = sh.Override.Set(key, value)
		}
		if err != nil {
			return 0, sh, fmt.Errorf("--%s: %v", key, err)
		}
	}
	if !haveSeed {
		return 0, sh, fmt.Errorf("no --seed")
	}
	return seed, sh, nil
}

// LineMax bounds one line of a corpus or failures file. A run record with its
// 40-line tail is a few kilobytes; a line past this is not one.
const LineMax = 64 << 10

// Parse reads a corpus or failures file. The error of a malformed line is one
// line, "FILE:LINE: problem"; a file with no case at all is an error too.
func Parse(name string, r io.Reader) ([]Case, error) {
	var cases []Case
	err := Lines(name, r, func(line int, text string) error {
		if strings.HasPrefix(text, "#") {
			return nil
		}
		var c Case
		var err error
		switch {
		case strings.HasPrefix(text, "{"):
			c, err = parseJSON(text)
		case strings.HasPrefix(text, "[") || text == "null":
			err = fmt.Errorf("%s: want one run record object or corpus case per line, not a JSON array or null", clip(text))
		default:
			c, err = parseText(text)
		}
		if err != nil {
			return err
		}
		c.File, c.Line = name, line
		// A text line's scenario file lives beside the corpus (a recorded
		// run pinned in seeds/recorded/), wherever the replay runs from; a
		// JSON record's path is as its run was given it.
		if f := c.Shape.ScenarioFile; !c.JSON && f != "" && !filepath.IsAbs(f) {
			c.Shape.ScenarioFile = filepath.Join(filepath.Dir(name), f)
		}
		cases = append(cases, c)
		return nil
	})
	if err != nil {
		return nil, err
	}
	if len(cases) == 0 {
		return nil, fmt.Errorf("%s: no cases (an empty corpus proves nothing)", name)
	}
	return cases, nil
}

// Lines calls fn with each line of r that is not blank, without its
// surrounding blanks, and its 1-based number. The first error, fn's or the
// reader's, ends it as one line "NAME:LINE: problem".
func Lines(name string, r io.Reader, fn func(line int, text string) error) error {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 4<<10), LineMax+1)
	line := 0
	for sc.Scan() {
		line++
		text := sc.Text()
		if line == 1 && strings.HasPrefix(text, "\ufeff") {
			return fmt.Errorf("%s:1: starts with a UTF-8 byte order mark; save the file without it", name)
		}
		text = strings.TrimSpace(text)
		if text == "" {
			continue
		}
		if err := fn(line, text); err != nil {
			return fmt.Errorf("%s:%d: %v", name, line, err)
		}
	}
	if err := sc.Err(); err != nil {
		if errors.Is(err, bufio.ErrTooLong) {
			return fmt.Errorf("%s:%d: line longer than %d KiB", name, line+1, LineMax>>10)
		}
		return fmt.Errorf("%s:%d: %v", name, line+1, err)
	}
	return nil
}

func parseText(text string) (Case, error) {
	if i := strings.Index(text, " #"); i >= 0 {
		text = text[:i]
	}
	f := strings.Fields(text)
	if len(f) < 5 {
		return Case{}, fmt.Errorf("want SCENARIO SEED BUGS VERDICT TRACE_HASH [KEY=VALUE]..., got %d fields", len(f))
	}
	seed, err := prng.ParseSeed(f[1])
	if err != nil {
		return Case{}, fmt.Errorf("seed: %v", err)
	}
	c := Case{Seed: seed, Hash: f[4]}
	if c.Verdict, err = parseVerdict(f[3]); err != nil {
		return Case{}, err
	}
	if c.PinsHash() {
		if err := checkHash(c.Hash); err != nil {
			return Case{}, err
		}
	}
	if c.Args, err = textArgs(seed, f); err != nil {
		return Case{}, err
	}
	if _, c.Shape, err = ParseArgs(c.Args); err != nil {
		return Case{}, err
	}
	return c, nil
}

// textArgs turns the columns of a text line (SCENARIO SEED BUGS VERDICT
// TRACE_HASH [KEY=VALUE]...) into the run flags that replay it; "-" in the
// scenario or bugs column means none.
func textArgs(seed uint64, f []string) ([]string, error) {
	args := []string{"--seed", strconv.FormatUint(seed, 10)}
	if f[0] != "-" {
		args = append(args, "--scenario", f[0])
	}
	if f[2] != "-" {
		for _, b := range strings.Split(f[2], ",") {
			if b == "" {
				return nil, fmt.Errorf("empty bug name in %q", f[2])
			}
			args = append(args, "--bug", b)
		}
	}
	for _, kv := range f[5:] {
		k, v, ok := strings.Cut(kv, "=")
		if !ok || !slices.Contains(shapeKeys, k) || v == "" {
			return nil, fmt.Errorf("override %q: want KEY=VALUE with KEY one of %s", kv, strings.Join(shapeKeys, ", "))
		}
		if k == noFociKey {
			args = append(args, "--"+k+"="+v)
			continue
		}
		args = append(args, "--"+k, v)
	}
	return args, nil
}

// clip shortens an input echoed in an error to keep the error one short line.
func clip(s string) string {
	if len(s) > 40 {
		return strconv.Quote(s[:40]) + "..."
	}
	return strconv.Quote(s)
}

// record is the part of a run's JSON object a replay needs.
type record struct {
	Seed      *uint64  `json:"seed"`
	Scenario  string   `json:"scenario"`
	Bugs      []string `json:"bugs"`
	Verdict   string   `json:"verdict"`
	TraceHash string   `json:"trace_hash"`
	Replay    string   `json:"replay"`
}

// ParseRecord parses one run record, a line of `vsrsim run -o json` or of a
// sweep's failures file, as Parse parses its JSON lines.
func ParseRecord(text string) (Case, error) { return parseJSON(text) }

func parseJSON(text string) (Case, error) {
	var rec record
	if err := json.Unmarshal([]byte(text), &rec); err != nil {
		return Case{}, fmt.Errorf("not a run record: %v", err)
	}
	if rec.Seed == nil || rec.Replay == "" {
		return Case{}, fmt.Errorf("not a run record: want seed, verdict, trace_hash and replay")
	}
	c := Case{JSON: true, Hash: rec.TraceHash}
	var err error
	if c.Verdict, err = parseVerdict(rec.Verdict); err != nil {
		return Case{}, err
	}
	if err := checkHash(c.Hash); err != nil {
		return Case{}, err
	}
	words, err := SplitShell(rec.Replay)
	if err != nil {
		return Case{}, fmt.Errorf("replay: %v", err)
	}
	if len(words) < 2 || words[0] != "vsrsim" || words[1] != "run" {
		return Case{}, fmt.Errorf("replay %q: want a vsrsim run command", rec.Replay)
	}
	c.Args = words[2:]
	if err := rec.agrees(c.Args); err != nil {
		return Case{}, err
	}
	// The record's seed is the run's; a JSON reader may have rounded it above
	// 2^53, the replay command never does.
	if c.Seed, c.Shape, err = ParseArgs(c.Args); err != nil {
		return Case{}, fmt.Errorf("replay %q: %v", rec.Replay, err)
	}
	return c, nil
}

// agrees checks that the record's scenario and bugs are the ones its replay
// command runs: a record edited by hand, or cut from another, must not replay
// a different run and call it "ok".
func (rec record) agrees(args []string) error {
	scenario, bugs := "", []string{}
	for i := 0; i+1 < len(args); i++ {
		switch args[i] {
		case "--scenario":
			scenario = args[i+1]
		case "--scenario-file":
			scenario = "file:" // the file's name after it is the scenario package's to choose
		case "--bug":
			bugs = append(bugs, args[i+1])
		}
	}
	if rec.Scenario != scenario && !(scenario == "file:" && strings.HasPrefix(rec.Scenario, scenario)) {
		return fmt.Errorf("scenario %q does not match the replay command's %q", rec.Scenario, scenario)
	}
	if rec.Bugs != nil {
		want, got := slices.Sorted(slices.Values(rec.Bugs)), slices.Sorted(slices.Values(bugs))
		if !slices.Equal(want, got) {
			return fmt.Errorf("bugs %v do not match the replay command's %v", rec.Bugs, bugs)
		}
	}
	return nil
}

// SplitShell splits a command line as a POSIX shell would for the words a
// replay command uses: blanks separate words, single quotes quote literally,
// and '\” inside them is an escaped quote.
func SplitShell(s string) ([]string, error) {
	var words []string
	var cur strings.Builder
	inWord, quoted := false, false
	for i := 0; i < len(s); i++ {
		ch := s[i]
		switch {
		case quoted:
			if ch == '\'' {
				quoted = false
			} else {
				cur.WriteByte(ch)
			}
		case ch == '\'':
			quoted, inWord = true, true
		case ch == '\\' && i+1 < len(s):
			i++
			cur.WriteByte(s[i])
			inWord = true
		case ch == ' ' || ch == '\t':
			if inWord {
				words = append(words, cur.String())
				cur.Reset()
				inWord = false
			}
		default:
			cur.WriteByte(ch)
			inWord = true
		}
	}
	if quoted {
		return nil, fmt.Errorf("unterminated quote")
	}
	if inWord {
		words = append(words, cur.String())
	}
	return words, nil
}

// Format writes a case as a text corpus line. scenario "" is a swarm run;
// overrides are KEY=VALUE words.
func Format(scenario string, seed uint64, bugs []string, verdict sim.Verdict, hash string, overrides ...string) string {
	if scenario == "" {
		scenario = "-"
	}
	b := "-"
	if len(bugs) > 0 {
		b = strings.Join(bugs, ",")
	}
	line := fmt.Sprintf("%s %d %s %s %s", scenario, seed, b, verdict, hash)
	for _, o := range overrides {
		line += " " + o
	}
	return line
}
