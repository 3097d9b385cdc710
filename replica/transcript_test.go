package replica

import (
	"bufio"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Transcript tests, in the style of etcd's datadriven interaction tests:
// each testdata/*.txt file is a list of commands, each followed by "----"
// and the output it printed, in the canonical forms of format.go. A change
// in behaviour shows as a diff of these files. `go test ./replica -run
// TestTranscripts -rewrite` regenerates them; read the diff before
// committing it.

var rewrite = flag.Bool("rewrite", false, "rewrite replica/testdata/*.txt transcripts with the current output")

// transcriptCase is one command of a transcript and the output it printed.
type transcriptCase struct {
	line   int
	cmd    string
	output []string
}

func TestTranscripts(t *testing.T) {
	files, err := filepath.Glob("testdata/*.txt")
	require.NoError(t, err)
	require.GreaterOrEqual(t, len(files), 15, "the transcripts cover the protocol")
	for _, file := range files {
		t.Run(strings.TrimSuffix(filepath.Base(file), ".txt"), func(t *testing.T) {
			cases, header := readTranscript(t, file)
			s := &transcript{t: t}
			var got []transcriptCase
			for _, tc := range cases {
				out := s.run(tc.cmd)
				if len(out) == 0 {
					out = []string{"ok"}
				}
				got = append(got, transcriptCase{line: tc.line, cmd: tc.cmd, output: out})
				if !*rewrite {
					assert.Equal(t, strings.Join(tc.output, "\n"), strings.Join(out, "\n"), "%s:%d: %s", file, tc.line, tc.cmd)
				}
			}
			if *rewrite {
				writeTranscript(t, file, header, got)
			}
		})
	}
}

// readTranscript parses a file: leading comment lines (the header), then
// blocks of "command", "----", output lines, a blank line.
func readTranscript(t *testing.T, file string) ([]transcriptCase, []string) {
	f, err := os.Open(file)
	require.NoError(t, err)
	defer f.Close()
	var cases []transcriptCase
	var header []string
	var cur *transcriptCase
	inOutput := false
	sc := bufio.NewScanner(f)
	for n := 1; sc.Scan(); n++ {
		line := sc.Text()
		switch {
		case cur == nil && (strings.HasPrefix(line, "#") || line == "") && len(cases) == 0:
			header = append(header, line)
		case cur == nil && line == "":
		case cur == nil:
			cases = append(cases, transcriptCase{line: n, cmd: line})
			cur = &cases[len(cases)-1]
		case !inOutput:
			require.Equal(t, "----", line, "%s:%d: a command is followed by ----", file, n)
			inOutput = true
		case line == "":
			cur, inOutput = nil, false
		default:
			cur.output = append(cur.output, line)
		}
	}
	require.NoError(t, sc.Err())
	require.NotEmpty(t, cases, "%s holds no commands", file)
	return cases, header
}

func writeTranscript(t *testing.T, file string, header []string, cases []transcriptCase) {
	var b strings.Builder
	for _, h := range header {
		if h != "" {
			b.WriteString(h + "\n")
		}
	}
	for _, tc := range cases {
		fmt.Fprintf(&b, "\n%s\n----\n%s\n", tc.cmd, strings.Join(tc.output, "\n"))
	}
	require.NoError(t, os.WriteFile(file, []byte(b.String()), 0o644))
}

// transcript is the state one file drives: a test cluster and what it has
// printed.
type transcript struct {
	t *testing.T
	c *testCluster
}

// transcriptArgs parses "key=value" words; a bare word is a flag.
func transcriptArgs(words []string) map[string]string {
	a := map[string]string{}
	for _, w := range words {
		k, v, _ := strings.Cut(w, "=")
		a[k] = v
	}
	return a
}

func argInt(t *testing.T, a map[string]string, key string, def int) int {
	v, ok := a[key]
	if !ok {
		return def
	}
	n, err := strconv.Atoi(v)
	require.NoError(t, err, "%s=%s", key, v)
	return n
}

func (s *transcript) run(cmd string) []string {
	words := strings.Fields(cmd)
	require.NotEmpty(s.t, words)
	a := transcriptArgs(words[1:])
	if words[0] != "cluster" {
		require.NotNil(s.t, s.c, "the transcript starts with cluster")
	}
	switch words[0] {
	case "cluster":
		return s.cluster(a)
	case "request":
		return s.request(a)
	case "deliver":
		return s.deliver(argInt(s.t, a, "max", deliverStepsMax))
	case "tick":
		return s.tick(argInt(s.t, a, "n", 1), false)
	case "run":
		return s.tick(argInt(s.t, a, "ticks", 1), true)
	case "crash":
		s.c.crash(argInt(s.t, a, "r", -1))
		return nil
	case "restart":
		s.c.restart(argInt(s.t, a, "r", -1))
		return nil
	case "isolate", "rejoin":
		s.isolate(argInt(s.t, a, "r", -1), words[0] == "isolate")
		return nil
	case "drop":
		return s.drop(a)
	case "status":
		return s.status()
	case "commit-requests":
		// Requests committed out of sight: the setup a transcript is not about.
		s.c.commitRequests(argInt(s.t, a, "to", 0), uint64(argInt(s.t, a, "first", 1)), uint64(argInt(s.t, a, "last", 1)))
		s.c.lastEvents, s.c.lastSent = len(s.c.events), len(s.c.sentLog)
		return s.status()
	}
	require.Failf(s.t, "unknown transcript command", "%q", words[0])
	return nil
}

func (s *transcript) cluster(a map[string]string) []string {
	n := argInt(s.t, a, "n", 3)
	s.c = newTestCluster(s.t, n, func(o *Options) {
		switch a["journal"] {
		case "memory":
			o.Durability = DurabilityMemory
		case "wal":
			o.Durability = DurabilityWAL
		}
		if a["topology"] == "star" {
			o.Topology = TopologyStar
		}
		if slots := argInt(s.t, a, "slots", 0); slots != 0 {
			o.JournalSlots = slots
		}
	})
	return s.status()
}

func (s *transcript) request(a map[string]string) []string {
	k, v, _ := strings.Cut(a["put"], ",")
	key, err := strconv.ParseUint(k, 10, 32)
	require.NoError(s.t, err)
	value, err := strconv.ParseUint(v, 10, 64)
	require.NoError(s.t, err)
	s.c.request(argInt(s.t, a, "to", 0), argInt(s.t, a, "client", 0), uint64(argInt(s.t, a, "req", 1)), put(uint32(key), value))
	return nil
}

// deliver delivers queued messages in order, printing each with what its
// step produced (indented): events, then messages sent.
func (s *transcript) deliver(limit int) []string {
	var out []string
	for k := 0; k < limit && len(s.c.queue) > 0; k++ {
		m := s.c.queue[0]
		line := string(AppendMessage(nil, &m, s.c.n))
		if s.c.lost(&m) {
			s.c.queue = s.c.queue[1:]
			s.c.dropped = append(s.c.dropped, m)
			out = append(out, line+" (lost)")
			continue
		}
		out = append(out, line)
		s.c.deliverOne()
		out = append(out, s.stepOutput(true)...)
	}
	return out
}

// stepOutput prints the last step's effects: events (not timeouts, which
// say only what the next lines show) and, with sends, its messages.
func (s *transcript) stepOutput(sends bool) []string {
	var out []string
	for _, e := range s.c.events[s.seenEvents():] {
		if e.Kind != EvTimeout {
			out = append(out, "  "+e.String())
		}
	}
	s.c.lastEvents = len(s.c.events)
	if sends {
		for _, m := range s.c.sentLog[s.c.lastSent:] {
			out = append(out, "  "+string(AppendMessage(nil, &m, s.c.n)))
		}
	}
	s.c.lastSent = len(s.c.sentLog)
	return out
}

func (s *transcript) seenEvents() int { return s.c.lastEvents }

// tick advances every live replica n ticks. Alone it prints each tick's
// effects and leaves the messages queued; run delivers after every tick and
// prints only events, for the long stretches of a view change.
func (s *transcript) tick(n int, deliver bool) []string {
	var out []string
	for k := 0; k < n; k++ {
		for _, r := range s.c.replicas {
			if r != nil {
				r.Tick(&s.c.out)
				s.c.collect()
			}
		}
		out = append(out, s.stepOutput(!deliver)...)
		if deliver {
			s.c.deliverAll()
			out = append(out, s.stepOutput(false)...)
		}
	}
	return out
}

// isolate cuts (or heals) every link to and from replica i.
func (s *transcript) isolate(i int, cut bool) {
	for j := 0; j < s.c.n; j++ {
		if j == i {
			continue
		}
		if cut {
			s.c.cutLink(i, j)
			s.c.cutLink(j, i)
		} else {
			s.c.healLink(i, j)
			s.c.healLink(j, i)
		}
	}
}

// drop installs a filter for messages of a command (and optional sender and
// receiver); "drop clear" removes every filter.
func (s *transcript) drop(a map[string]string) []string {
	if _, ok := a["clear"]; ok {
		s.c.filters = map[int]func(m *Message) bool{}
		return nil
	}
	from, to := argInt(s.t, a, "from", -1), argInt(s.t, a, "to", -1)
	name := a["cmd"]
	s.c.dropIf(func(m *Message) bool {
		return m.Command.String() == name && (from < 0 || m.From == from) && (to < 0 || m.To == to)
	})
	return nil
}

func (s *transcript) status() []string {
	var out []string
	for i, r := range s.c.replicas {
		if r == nil {
			out = append(out, fmt.Sprintf("r%d crashed", i))
			continue
		}
		in := r.Info()
		role := "backup"
		if in.Primary {
			role = "primary"
		}
		out = append(out, fmt.Sprintf("r%d %s %s v=%d log_view=%d op=%d commit=%d/%d journal_head=%d",
			i, in.Status, role, in.View, in.LogView, in.Sequencer, in.CommitMin, in.CommitMax, in.JournalHead))
	}
	return out
}
