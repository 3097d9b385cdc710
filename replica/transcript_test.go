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
	"vsrsim/vsr"

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
	// 18 for the protocol as issue 24 left it, six for the five mechanisms
	// added since (issue 36): a transcript lost in a move fails here.
	require.GreaterOrEqual(t, len(files), 24, "the transcripts cover the protocol")
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
	// hide names the event kinds the command being run leaves out, and
	// hidden counts what it left out of each.
	hide   map[string]bool
	hidden map[string]int
}

// hiding runs a tick or run command with hide=KIND[,KIND...]: events of
// those kinds are counted rather than printed, and a last line says how
// many went. A long stretch of retransmits repeats one line (an ack per
// retransmitted prepare) that would bury the few lines a transcript is
// about; the count keeps them in the diff.
func (s *transcript) hiding(a map[string]string, run func() []string) []string {
	kinds, ok := a["hide"]
	if !ok {
		return run()
	}
	s.hide, s.hidden = map[string]bool{}, map[string]int{}
	for _, k := range strings.Split(kinds, ",") {
		s.hide[k] = true
	}
	out := run()
	var counts []string
	for _, k := range strings.Split(kinds, ",") {
		counts = append(counts, fmt.Sprintf("%d %s", s.hidden[k], k))
	}
	s.hide, s.hidden = nil, nil
	return append(out, "  (hidden: "+strings.Join(counts, ", ")+")")
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
		return s.hiding(a, func() []string { return s.tick(argInt(s.t, a, "n", 1), false) })
	case "run":
		return s.hiding(a, func() []string { return s.tick(argInt(s.t, a, "ticks", 1), true) })
	case "crash":
		s.c.crash(argInt(s.t, a, "r", -1))
		return nil
	case "restart":
		s.c.restart(argInt(s.t, a, "r", -1))
		return nil
	case "isolate", "rejoin":
		s.isolate(argInt(s.t, a, "r", -1), words[0] == "isolate")
		return nil
	case "cut", "heal":
		// One direction of one link: a peer that hears another but is not
		// heard by it, the shape a relayed view answers.
		from, to := argInt(s.t, a, "from", -1), argInt(s.t, a, "to", -1)
		if words[0] == "cut" {
			s.c.cutLink(from, to)
		} else {
			s.c.healLink(from, to)
		}
		return nil
	case "drop":
		return s.drop(a)
	case "inject":
		require.GreaterOrEqual(s.t, len(words), 2, "inject COMMAND from= to= v= ...")
		s.c.inject(s.injected(words[1], a))
		return nil
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
		if words, ok := a["protocol"]; ok {
			o.Protocol = transcriptProtocol(s.t, words)
		}
	})
	return s.status()
}

// transcriptProtocolWords are the `protocol` words a transcript may name
// (sim/settings' words, which this package cannot import): a transcript of
// a mechanism runs it once as built and once with its option, so the file
// shows what the mechanism changes.
var transcriptProtocolWords = map[string]func(p *Protocol) *bool{
	"abdication-off":       func(p *Protocol) *bool { return &p.AbdicationOff },
	"abdicate-by-hearing":  func(p *Protocol) *bool { return &p.AbdicateByHearing },
	"backup-replies-off":   func(p *Protocol) *bool { return &p.BackupRepliesOff },
	"relay-start-view-off": func(p *Protocol) *bool { return &p.RelayStartViewOff },
	"backoff-reset-off":    func(p *Protocol) *bool { return &p.BackoffResetOff },
}

// transcriptProtocol reads protocol=WORD[,WORD...].
func transcriptProtocol(t *testing.T, words string) Protocol {
	var p Protocol
	for _, w := range strings.Split(words, ",") {
		field, ok := transcriptProtocolWords[w]
		require.True(t, ok, "protocol word %q", w)
		*field(&p) = true
	}
	return p
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
		line := string(vsr.AppendMessage(nil, &m, s.c.n))
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
		if e.Kind == vsr.EvTimeout {
			continue
		}
		if kind := e.Kind.String(); s.hide[kind] {
			s.hidden[kind]++
			continue
		}
		out = append(out, "  "+e.String())
	}
	s.c.lastEvents = len(s.c.events)
	if sends {
		for _, m := range s.c.sentLog[s.c.lastSent:] {
			out = append(out, "  "+string(vsr.AppendMessage(nil, &m, s.c.n)))
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
		s.c.filters = map[int]func(m *vsr.Message) bool{}
		return nil
	}
	from, to := argInt(s.t, a, "from", -1), argInt(s.t, a, "to", -1)
	name := a["cmd"]
	s.c.dropIf(func(m *vsr.Message) bool {
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

// injected builds the message an inject command names, for a transcript
// whose state no short exchange of this cluster reaches (a vote from a
// replica with an unsure slot): it is queued as if its sender had sent it,
// and deliver prints it in its canonical form like any other.
//
//	inject StartViewChange from=F to=T v=V
//	inject StartView from=F to=T v=V op=N headers-of=R
//	inject DoViewChange from=F to=T v=V log_view=L op=N [suffix=OP:KIND,...] headers-of=R
//
// A StartView's suffix is header-only entries of ops N down to 1; a vote's
// entries are KIND header (header only), present, unsure or nack. Headers
// come from replica R's journal, so an injected log names ops the cluster
// really prepared.
func (s *transcript) injected(command string, a map[string]string) vsr.Message {
	from, to, view := argInt(s.t, a, "from", -1), argInt(s.t, a, "to", -1), uint64(argInt(s.t, a, "v", 0))
	op := uint64(argInt(s.t, a, "op", 0))
	header := func(op uint64) vsr.Header {
		h, ok := s.c.r(argInt(s.t, a, "headers-of", -1)).headerAt(op)
		require.True(s.t, ok, "replica %s holds no header of op %d", a["headers-of"], op)
		return h
	}
	switch command {
	case "StartViewChange":
		return *msg(vsr.StartViewChange{}, from, to, view)
	case "StartView":
		var suffix []vsr.SuffixEntry
		for k := op; k >= 1; k-- {
			suffix = append(suffix, vsr.SuffixEntry{Header: header(k)})
		}
		return *msg(vsr.StartView{LogView: view, Op: op, Suffix: suffix}, from, to, view)
	case "DoViewChange":
		var suffix []vsr.SuffixEntry
		if list := a["suffix"]; list != "" {
			for _, e := range strings.Split(list, ",") {
				opText, kind, _ := strings.Cut(e, ":")
				k, err := strconv.ParseUint(opText, 10, 64)
				require.NoError(s.t, err, "suffix entry %q", e)
				entry := vsr.SuffixEntry{Header: header(k)}
				switch kind {
				case "header":
				case "present":
					entry.Present = true
				case "unsure":
					entry.Unsure = true
				case "nack":
					entry = vsr.SuffixEntry{Header: vsr.Header{Op: k}, Nack: true}
				default:
					require.Failf(s.t, "suffix entry kind", "%q: want header, present, unsure or nack", kind)
				}
				suffix = append(suffix, entry)
			}
		}
		vote := vsr.DoViewChange{LogView: uint64(argInt(s.t, a, "log_view", 0)), Op: op, Suffix: suffix}
		return *msg(vote, from, to, view)
	}
	require.Failf(s.t, "unknown injected command", "%q", command)
	return vsr.Message{}
}
