package ndjson_test

import (
	"bufio"
	"bytes"
	"encoding/json"
	"io"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"vsrsim/sim"
	"vsrsim/sim/ndjson"
	"vsrsim/sim/swarm"
)

// traceLine is the structured part of an NDJSON event line.
type traceLine struct {
	Tick     uint64  `json:"tick"`
	Kind     string  `json:"kind"`
	Line     string  `json:"line"`
	Replica  *int    `json:"replica"`
	Peer     *int    `json:"peer"`
	Client   *int    `json:"client"`
	Msg      string  `json:"msg"`
	Event    string  `json:"event"`
	View     *uint64 `json:"view"`
	Op       *uint64 `json:"op"`
	Commit   *uint64 `json:"commit"`
	Checksum string  `json:"checksum"`
	Parent   string  `json:"parent"`
	Packet   uint64  `json:"packet"`
	Reason   string  `json:"reason"`
	Dup      bool    `json:"dup"`
}

func decodeTrace(t *testing.T, data []byte) []traceLine {
	t.Helper()
	var out []traceLine
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var l traceLine
		require.NoError(t, json.Unmarshal(sc.Bytes(), &l), "line %q", sc.Text())
		out = append(out, l)
	}
	require.NoError(t, sc.Err())
	return out
}

// TestTraceStructuredFields: every event line carries the fields its kind has,
// and each delivery or drop names the packet id of an earlier send of the
// same message, so a send can be followed to its fate.
func TestTraceStructuredFields(t *testing.T) {
	var buf bytes.Buffer
	res, err := sim.Run(sim.DefaultConfig(3), sim.Attach{Observer: ndjson.New(&buf, ndjson.Filter{})})
	require.NoError(t, err)
	lines := decodeTrace(t, buf.Bytes())
	require.Len(t, lines, int(res.Events))

	sends := map[uint64]traceLine{}
	kinds := map[string]int{}
	for _, l := range lines {
		kinds[l.Kind]++
		switch l.Kind {
		case "send":
			require.NotZero(t, l.Packet, l.Line)
			_, seen := sends[l.Packet]
			require.False(t, seen, "packet id %d sent twice", l.Packet)
			sends[l.Packet] = l
		case "recv", "drop":
			s, ok := sends[l.Packet]
			require.True(t, ok, "%s names packet %d, never sent", l.Line, l.Packet)
			assert.Equal(t, s.Msg, l.Msg, l.Line)
			assert.LessOrEqual(t, s.Tick, l.Tick, l.Line)
			if l.Kind == "drop" {
				assert.NotEmpty(t, l.Reason, l.Line)
			}
		case "event":
			require.NotNil(t, l.Replica, l.Line)
			assert.NotEmpty(t, l.Event, l.Line)
			assert.Contains(t, l.Line, " event r"+strconv.Itoa(*l.Replica)+" "+l.Event, l.Line)
		case "crash", "restart":
			assert.NotNil(t, l.Replica, l.Line)
		}
		if l.Msg == "Prepare" && l.Kind != "event" {
			require.NotNil(t, l.Op, l.Line)
			require.NotNil(t, l.View, l.Line)
			require.Len(t, l.Checksum, 16, l.Line)
			require.Len(t, l.Parent, 16, l.Line)
			// The canonical line shows the checksum's last 4 digits.
			assert.Contains(t, l.Line, "csum="+l.Checksum[12:], l.Line)
		}
		if l.Event == "commit" {
			require.NotNil(t, l.Op, l.Line)
			assert.Len(t, l.Parent, 16, l.Line)
		}
	}
	for _, k := range []string{"send", "recv", "drop", "event"} {
		assert.NotZero(t, kinds[k], "seed 3 has no %s line", k)
	}
}

// recorder keeps the kinds of the records it sees.
type recorder struct{ kinds []string }

func (r *recorder) Record(rec *sim.Record) error {
	r.kinds = append(r.kinds, rec.Kind)
	return nil
}

// tee hands a record to two sinks.
type tee [2]sim.Sink

func (s tee) Record(r *sim.Record) error {
	if err := s[0].Record(r); err != nil {
		return err
	}
	return s[1].Record(r)
}

// TestTraceObserverKeepsHash: a trace file, an observer, or both see the same
// run; the hash covers the run, not how it is watched.
func TestTraceObserverKeepsHash(t *testing.T) {
	plain, err := sim.Run(swarm.Config(11), sim.Attach{})
	require.NoError(t, err)
	cfg := swarm.Config(11)
	rec := &recorder{}
	var buf bytes.Buffer
	watched, err := sim.Run(cfg, sim.Attach{Observer: tee{ndjson.New(&buf, ndjson.Filter{}), rec}})
	require.NoError(t, err)
	assert.Equal(t, plain.TraceHash, watched.TraceHash)
	assert.Equal(t, plain.Verdict, watched.Verdict)
	assert.Len(t, rec.kinds, int(plain.Events))
	assert.Equal(t, int(plain.Events), bytes.Count(buf.Bytes(), []byte("\n")))
}

func TestTraceFilter(t *testing.T) {
	var buf bytes.Buffer
	_, err := sim.Run(sim.DefaultConfig(3), sim.Attach{Observer: ndjson.New(&buf, ndjson.Filter{})})
	require.NoError(t, err)
	all := decodeTrace(t, buf.Bytes())

	tests := []struct {
		terms []string
		keep  func(l traceLine) bool
	}{
		{[]string{"kind=send,crash"}, func(l traceLine) bool { return l.Kind == "send" || l.Kind == "crash" }},
		{[]string{"kind=-timeout,-Commit"}, func(l traceLine) bool { return l.Event != "timeout" && l.Msg != "Commit" }},
		{[]string{"kind=status"}, func(l traceLine) bool { return l.Event == "status" }},
		{[]string{"replica=1"}, func(l traceLine) bool {
			return l.Kind == "phase" || l.Kind == "note" || (l.Replica != nil && *l.Replica == 1) || (l.Peer != nil && *l.Peer == 1)
		}},
		{[]string{"op=5-7", "kind=event"}, func(l traceLine) bool {
			return l.Kind == "event" && l.Op != nil && *l.Op >= 5 && *l.Op <= 7
		}},
	}
	for _, tt := range tests {
		t.Run(strings.Join(tt.terms, " "), func(t *testing.T) {
			f, err := ndjson.ParseFilter(tt.terms)
			require.NoError(t, err)
			var out bytes.Buffer
			cfg := sim.DefaultConfig(3)
			_, err = sim.Run(cfg, sim.Attach{Observer: ndjson.New(&out, f)})
			require.NoError(t, err)
			var want []string
			for _, l := range all {
				if tt.keep(l) {
					want = append(want, l.Line)
				}
			}
			var got []string
			for _, l := range decodeTrace(t, out.Bytes()) {
				got = append(got, l.Line)
			}
			require.NotEmpty(t, want, "the filter must keep something for the test to mean anything")
			assert.Less(t, len(want), len(all))
			assert.Equal(t, want, got)
		})
	}
}

func TestParseTraceFilterErrors(t *testing.T) {
	for _, tc := range []struct{ term, want string }{
		{"kind", "want kind=LIST"},
		{"kind=sned", `unknown kind "sned"`},
		{"replica=x", `"x" is not a replica index`},
		{"replica=12", "not a replica index"},
		{"op=9-3", "A <= B"},
		{"view=3", `unknown key "view"`},
	} {
		_, err := ndjson.ParseFilter([]string{tc.term})
		require.Error(t, err, tc.term)
		assert.Contains(t, err.Error(), tc.want)
	}
}

// TestTracedRunAllocations: writing the trace adds no allocation per event;
// a traced run allocates about what an untraced one does.
func TestTracedRunAllocations(t *testing.T) {
	cfg := sim.DefaultConfig(5)
	run := func(w io.Writer) func() {
		return func() {
			var at sim.Attach
			if w != nil {
				at.Observer = ndjson.New(w, ndjson.Filter{})
			}
			_, err := sim.Run(cfg, at)
			require.NoError(t, err)
		}
	}
	plain := testing.AllocsPerRun(3, run(nil))
	traced := testing.AllocsPerRun(3, run(io.Discard))
	res, err := sim.Run(cfg, sim.Attach{})
	require.NoError(t, err)
	require.Greater(t, res.Events, uint64(1000))
	assert.LessOrEqual(t, traced, plain+10, "allocations: %v untraced, %v traced over %d events", plain, traced, res.Events)
}

// TestTraceTailIsTheLastLines: a failed run's tail, formatted on demand from
// the trace's ring of records, is the text of the run's last lines exactly as
// the written trace has them.
func TestTraceTailIsTheLastLines(t *testing.T) {
	for _, seed := range []uint64{1, 2} {
		cfg := sim.DefaultConfig(seed)
		cfg.CommitFloor = 1 << 40 // unreachable: the run fails and reports its tail
		var buf bytes.Buffer
		res, err := sim.Run(cfg, sim.Attach{Observer: ndjson.New(&buf, ndjson.Filter{})})
		require.NoError(t, err)
		require.True(t, res.Verdict.Failed(), "seed %d: %s", seed, res.Verdict)
		lines := decodeTrace(t, buf.Bytes())
		require.Greater(t, len(lines), 40)
		var want []string
		for _, l := range lines[len(lines)-40:] {
			want = append(want, l.Line)
		}
		assert.Equal(t, want, res.Tail, "seed %d", seed)
	}
}
