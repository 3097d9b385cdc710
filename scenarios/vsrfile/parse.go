package vsrfile

import (
	"bufio"
	"bytes"
	"cmp"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"vsrsim/outcome"
	"vsrsim/prng"
)

// Error is a malformed line: Line counts from 1; 0 is the file as a whole.
type Error struct {
	Line int
	Err  error
}

func (e *Error) Error() string {
	if e.Line == 0 {
		return e.Err.Error()
	}
	return fmt.Sprintf("line %d: %v", e.Line, e.Err)
}

func (e *Error) Unwrap() error { return e.Err }

// ErrEmpty is a file with no line but comments.
var ErrEmpty = errors.New("no settings or actions")

// MaxLine bounds one line: a scenario file is written by hand.
const MaxLine = 64 << 10

// Grammar is what the simulator says of the lines the syntax leaves open: the
// setting keys, their values, message kinds, network settings and the ticks
// of an extra delay. A nil list or check accepts anything of the right shape.
type Grammar struct {
	SettingKeys []string // keys a setting line may have (network keys included)
	NetworkKeys []string // keys after "network"
	// Value checks a setting once its key is known and set once.
	Value func(s *Setting) error
	// NetSetting checks the words of `at T network SETTING`, key first.
	NetSetting func(words []string) error
	// Kind checks a message kind of drop and pass.
	Kind func(kind string) error
	// DelayTicks reads the TICKS of `extra-delay FROM:TO=TICKS`; nil: a
	// decimal u64.
	DelayTicks func(text string) (uint64, error)
}

// Parse reads a file by its syntax alone (Grammar{}): every key, kind and
// network setting of the right shape is taken.
func Parse(data []byte) (*File, error) { return ParseWith(data, Grammar{}) }

// ParseWith reads a file, checking what g knows of it as each line is read,
// so the error is the first bad line's. An error is an *Error of one line.
func ParseWith(data []byte, g Grammar) (*File, error) {
	p := &parser{g: g, f: &File{}}
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 4096), MaxLine)
	line := 0
	for sc.Scan() {
		line++
		if err := p.line(line, sc.Text()); err != nil {
			return nil, &Error{Line: line, Err: err}
		}
	}
	if err := sc.Err(); err != nil {
		return nil, &Error{Line: line + 1, Err: err}
	}
	if len(p.f.Header) == 0 && len(p.f.Actions) == 0 {
		return nil, &Error{Err: ErrEmpty}
	}
	// Stable: actions at one tick keep their file order.
	slices.SortStableFunc(p.f.Actions, func(a, b Action) int { return cmp.Compare(a.At, b.At) })
	return p.f, nil
}

type parser struct {
	g     Grammar
	f     *File
	begun bool           // a line other than a comment was read
	keys  map[string]int // line of each key set, "seed" included
}

func (p *parser) line(n int, text string) error {
	body, comment, hasComment := strings.Cut(text, "#")
	w := strings.Fields(body)
	if len(w) == 0 {
		if hasComment && !p.begun {
			p.f.Comments = append(p.f.Comments, strings.TrimRight(comment, "\r"))
		}
		return nil
	}
	p.begun = true
	switch w[0] {
	case "at":
		return p.action(n, w[1:])
	case "expect":
		return p.expect(n, w[1:])
	case "seed":
		return p.seed(n, w[1:])
	}
	return p.setting(n, w)
}

// once refuses a key set before.
func (p *parser) once(n int, key string) error {
	if first, ok := p.keys[key]; ok {
		return fmt.Errorf("%s is set twice (first on line %d)", key, first)
	}
	if p.keys == nil {
		p.keys = map[string]int{}
	}
	p.keys[key] = n
	return nil
}

func (p *parser) seed(n int, w []string) error {
	if err := p.once(n, "seed"); err != nil {
		return err
	}
	if len(w) != 1 {
		return fmt.Errorf("want: seed N (decimal, 0x hex or a 40-hex commit hash)")
	}
	v, err := prng.ParseSeed(w[0])
	if err != nil {
		return fmt.Errorf("seed: %v", err)
	}
	p.f.Header = append(p.f.Header, &Seed{Line: n, Value: v})
	return nil
}

func keyList(keys []string) string {
	if keys == nil {
		return ""
	}
	return " (" + strings.Join(keys, ", ") + ")"
}

func (p *parser) setting(n int, w []string) error {
	s := &Setting{Line: n}
	switch {
	case w[0] == "network":
		if len(w) < 2 {
			return fmt.Errorf("want: network SETTING%s", keyList(p.g.NetworkKeys))
		}
		s.Network, w = true, w[1:]
		if p.g.NetworkKeys != nil && !slices.Contains(p.g.NetworkKeys, w[0]) {
			return fmt.Errorf("unknown network setting %q (want %s)", w[0], strings.Join(p.g.NetworkKeys, ", "))
		}
	case p.g.SettingKeys != nil && !slices.Contains(p.g.SettingKeys, w[0]):
		return fmt.Errorf("unknown line %q (want at, expect, network, seed, or a setting: %s)", w[0], strings.Join(p.g.SettingKeys, ", "))
	}
	s.Key, s.Args = w[0], slices.Clone(w[1:])
	if err := p.once(n, s.Name()); err != nil {
		return err
	}
	if p.g.Value != nil {
		if err := p.g.Value(s); err != nil {
			return err
		}
	}
	p.f.Header = append(p.f.Header, s)
	return nil
}

const expectForms = "want: expect pass|safety|liveness|crash, expect served T1 T2 >= N, expect view-change T1 T2, or expect view-changes T1 T2 <= N"

// expectVerdicts are the verdicts a file may expect.
var expectVerdicts = []string{outcome.Pass, outcome.Safety, outcome.Liveness, outcome.Crash}

func (p *parser) expect(n int, w []string) error {
	if len(w) == 0 {
		return errors.New(expectForms)
	}
	switch w[0] {
	case "served":
		return p.expectServed(n, w)
	case "view-change":
		if len(w) != 3 {
			return fmt.Errorf("want: expect view-change T1 T2")
		}
		t1, t2, err := window(w[1], w[2])
		if err != nil {
			return err
		}
		p.f.Header = append(p.f.Header, &ExpectViewChange{Line: n, From: t1, To: t2})
		return nil
	case "view-changes":
		return p.expectViewChanges(n, w)
	}
	if len(w) != 1 {
		return errors.New(expectForms)
	}
	if !slices.Contains(expectVerdicts, w[0]) {
		return fmt.Errorf("unknown verdict %q (%s)", w[0], expectForms)
	}
	if first, ok := p.keys["expect"]; ok {
		return fmt.Errorf("a second expected verdict (first on line %d)", first)
	}
	_ = p.once(n, "expect")
	p.f.Header = append(p.f.Header, &ExpectVerdict{Line: n, Verdict: w[0]})
	return nil
}

// expectViewChanges reads `expect view-changes T1 T2 <= N`.
func (p *parser) expectViewChanges(n int, w []string) error {
	t1, t2, most, err := windowCount(w, "<=", "view-changes", "a count")
	if err == nil {
		p.f.Header = append(p.f.Header, &ExpectViewChanges{Line: n, From: t1, To: t2, Max: most})
	}
	return err
}

func (p *parser) expectServed(n int, w []string) error {
	t1, t2, least, err := windowCount(w, ">=", "served", "a number of replies")
	if err == nil {
		p.f.Header = append(p.f.Header, &ExpectServed{Line: n, From: t1, To: t2, Min: least})
	}
	return err
}

// windowCount reads `KIND T1 T2 OP N`, the shape of the counting
// expectations.
func windowCount(w []string, op, kind, what string) (t1, t2, count uint64, err error) {
	if len(w) != 5 || w[3] != op {
		return 0, 0, 0, fmt.Errorf("want: expect %s T1 T2 %s N", kind, op)
	}
	if t1, t2, err = window(w[1], w[2]); err != nil {
		return 0, 0, 0, err
	}
	if count, err = strconv.ParseUint(w[4], 10, 64); err != nil {
		return 0, 0, 0, fmt.Errorf("%s: %q is not %s", kind, w[4], what)
	}
	return t1, t2, count, nil
}

// window reads the ticks T1 T2 of an expectation.
func window(a, b string) (uint64, uint64, error) {
	t1, err1 := strconv.ParseUint(a, 10, 64)
	t2, err2 := strconv.ParseUint(b, 10, 64)
	if err1 != nil || err2 != nil {
		return 0, 0, fmt.Errorf("window %s %s: want two ticks", a, b)
	}
	if t1 > t2 {
		return 0, 0, fmt.Errorf("window %d %d ends before it starts", t1, t2)
	}
	return t1, t2, nil
}
