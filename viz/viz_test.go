package viz_test

import (
	"bytes"
	"encoding/json"
	"encoding/xml"
	"io"
	"sort"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"vsrsim/prng"
	"vsrsim/sim"
	"vsrsim/viz"
)

// busyRun is a run with crashes, drops and view changes, watched by a
// collector.
func busyRun(t *testing.T) (*viz.Collector, sim.Result) {
	t.Helper()
	cfg := sim.DefaultConfig(9)
	cfg.CrashChance = prng.Ratio{Num: 1, Den: 1500}
	cfg.Network.Loss = prng.Ratio{Num: 1, Den: 20}
	col := viz.NewCollector(cfg.Replicas, cfg.Clients)
	res, err := sim.Run(cfg, sim.Attach{Observer: col})
	require.NoError(t, err)
	require.NotZero(t, res.Stats.Crashes, "the test needs a crash to draw")
	require.NotZero(t, res.Stats.ViewChanges, "the test needs a view change to draw")
	return col, res
}

type perfettoEvent struct {
	Name string         `json:"name"`
	Cat  string         `json:"cat"`
	Ph   string         `json:"ph"`
	Ts   uint64         `json:"ts"`
	Dur  *uint64        `json:"dur"`
	Pid  int            `json:"pid"`
	Tid  int            `json:"tid"`
	ID   uint64         `json:"id"`
	Bp   string         `json:"bp"`
	S    string         `json:"s"`
	Args map[string]any `json:"args"`
}

func TestPerfettoStructure(t *testing.T) {
	col, res := busyRun(t)
	var buf bytes.Buffer
	require.NoError(t, viz.WritePerfetto(&buf, col, &res))
	var file struct {
		DisplayTimeUnit string          `json:"displayTimeUnit"`
		OtherData       map[string]any  `json:"otherData"`
		TraceEvents     []perfettoEvent `json:"traceEvents"`
	}
	require.NoError(t, json.Unmarshal(buf.Bytes(), &file))
	assert.Equal(t, "ms", file.DisplayTimeUnit)
	assert.Equal(t, res.TraceHash, file.OtherData["trace_hash"])

	type track struct{ pid, tid int }
	names := map[track]string{}
	status := map[int][]perfettoEvent{}
	messageSlices := map[track]map[uint64]bool{}
	flowStart, flowEnd := map[uint64]perfettoEvent{}, map[uint64]perfettoEvent{}
	var counters, crashes, drops, clientOps int
	for _, e := range file.TraceEvents {
		tr := track{e.Pid, e.Tid}
		switch {
		case e.Ph == "M" && e.Name == "thread_name":
			names[tr] = e.Args["name"].(string)
		case e.Ph == "X" && e.Cat == "status":
			require.Equal(t, 1, e.Pid, e.Name)
			require.NotNil(t, e.Dur, e.Name)
			status[e.Tid] = append(status[e.Tid], e)
		case e.Ph == "X" && e.Cat == "message":
			if messageSlices[tr] == nil {
				messageSlices[tr] = map[uint64]bool{}
			}
			messageSlices[tr][e.Ts] = true
			if strings.HasPrefix(e.Name, "drop ") {
				drops++
				assert.Equal(t, 3, e.Pid, "drops go on the network track")
			}
		case e.Ph == "s":
			require.NotContains(t, flowStart, e.ID, "flow id %d starts twice", e.ID)
			flowStart[e.ID] = e
		case e.Ph == "f":
			require.NotContains(t, flowEnd, e.ID, "flow id %d ends twice", e.ID)
			assert.Equal(t, "e", e.Bp, "a flow ends on the slice that encloses it")
			flowEnd[e.ID] = e
		case e.Ph == "C":
			counters++
			assert.LessOrEqual(t, e.Args["commit_min"].(float64), e.Args["commit_max"].(float64))
		case e.Ph == "i" && e.Name == "crash":
			crashes++
		case e.Ph == "X" && e.Cat == "client":
			clientOps++
			assert.Equal(t, 2, e.Pid)
		}
	}
	for i := 0; i < col.Replicas; i++ {
		assert.Equal(t, col.Node(i), names[track{1, i}], "replica %d has a named track", i)
		spans := status[i]
		require.NotEmpty(t, spans, "replica %d has status slices", i)
		sort.Slice(spans, func(a, b int) bool { return spans[a].Ts < spans[b].Ts })
		for k := 1; k < len(spans); k++ {
			assert.GreaterOrEqual(t, spans[k].Ts, spans[k-1].Ts+*spans[k-1].Dur, "status slices of r%d never overlap", i)
		}
	}
	for j := 0; j < col.Clients; j++ {
		assert.Contains(t, names[track{2, j}], "operations")
	}
	require.NotEmpty(t, flowStart)
	assert.Len(t, flowEnd, len(flowStart), "every flow that starts ends")
	for id, s := range flowStart {
		f, ok := flowEnd[id]
		require.True(t, ok, "flow %d has no end", id)
		assert.LessOrEqual(t, s.Ts, f.Ts, "a message arrives after it is sent")
		assert.True(t, messageSlices[track{s.Pid, s.Tid}][s.Ts], "flow %d starts on a message slice", id)
		assert.True(t, messageSlices[track{f.Pid, f.Tid}][f.Ts], "flow %d ends on a message slice", id)
	}
	assert.NotZero(t, counters)
	assert.Equal(t, int(res.Stats.Crashes), crashes)
	assert.NotZero(t, drops)
	assert.Equal(t, len(res.History), clientOps)
}

func TestTimelineSVG(t *testing.T) {
	col, res := busyRun(t)
	var buf bytes.Buffer
	require.NoError(t, viz.WriteTimeline(&buf, col, &res))

	dec := xml.NewDecoder(&buf)
	var root string
	elements := map[string]int{}
	groups := map[string]int{}
	for {
		tok, err := dec.Token()
		if err == io.EOF {
			break
		}
		require.NoError(t, err, "the SVG is well-formed XML")
		if se, ok := tok.(xml.StartElement); ok {
			if root == "" {
				root = se.Name.Local
				assert.Equal(t, "http://www.w3.org/2000/svg", se.Name.Space)
			}
			elements[se.Name.Local]++
			for _, a := range se.Attr {
				if a.Name.Local == "class" {
					groups[a.Value]++
				}
			}
		}
	}
	assert.Equal(t, "svg", root)
	assert.Equal(t, col.Replicas, groups["replica"], "one group per replica")
	assert.Equal(t, 1, groups["drops"])
	assert.Equal(t, 2*col.Replicas, elements["polyline"], "commit_min and commit_max per replica")
	assert.Greater(t, elements["rect"], col.Replicas, "status bands")
	assert.GreaterOrEqual(t, elements["path"], int(res.Stats.Crashes+res.Stats.Restarts), "crash and restart markers")
}
