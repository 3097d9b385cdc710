package shrink

import (
	"bytes"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"vsrsim/scenarios/vsrfile"
	"vsrsim/sim"
)

// storageLines are the storage settings of a file, as written.
func storageLines(f *vsrfile.File) []string {
	var out []string
	for _, st := range f.Settings(vsrfile.StorageKey) {
		out = append(out, string(bytes.TrimSuffix(vsrfile.Format(&vsrfile.File{Header: []vsrfile.Item{st}}), []byte("\n"))))
	}
	return out
}

const diskSrc = "replicas 3\nticks 3000\nliveness-ticks 0\njournal-slots 64\n" +
	"storage torn 1/2\nstorage latency min=1 mean=2\nstorage write-fault 1/300\n" +
	"at 100 corrupt 0 op 3 body\nat 500 misdirect 2 op 5 -> op 6\nat 900 crash 1\nat 1000 corrupt 2 superblock\n"

// TestShrinkDropsStorage: a failure that needs no disk loses the storage
// actions like any action, then the disks altogether.
func TestShrinkDropsStorage(t *testing.T) {
	out, err := Shrink(parse(t, diskSrc), Options{Seed: 1, MaxRuns: 500, Run: crashOf})
	require.NoError(t, err)
	require.Len(t, out.Script.Actions, 1)
	assert.Equal(t, "crash 1", body(out.Script.Actions[0]))
	assert.Empty(t, storageLines(out.Script), "%s", vsrfile.Format(out.Script))
}

// scriptedCorruptOf fails a run iff a scripted corruption of replica 0's
// prepare for op 3 lands: a stand-in for a bug only a disk fault shows.
func scriptedCorruptOf(cfg sim.Config, at sim.Attach) (sim.Result, error) {
	seen := &noteSink{want: []byte("r0 corrupted prepares/3 scripted")}
	at.Observer = seen
	res, err := sim.Run(cfg, at)
	if err == nil && seen.seen {
		res.Verdict, res.Invariant = sim.VerdictSafety, "stand-in"
	}
	return res, err
}

type noteSink struct {
	want []byte
	seen bool
}

func (n *noteSink) Record(r *sim.Record) error {
	if r.Kind == "note" && bytes.Contains(r.Line, n.want) {
		n.seen = true
	}
	return nil
}

// TestShrinkKeepsScriptedFault: a failure that needs one scripted fault keeps
// that action and disks with no random fault: each storage line goes on its
// own, and `storage on` takes the last one's place.
func TestShrinkKeepsScriptedFault(t *testing.T) {
	out, err := Shrink(parse(t, diskSrc), Options{Seed: 1, MaxRuns: 500, Run: scriptedCorruptOf})
	require.NoError(t, err)
	require.Len(t, out.Script.Actions, 1, "%s", vsrfile.Format(out.Script))
	assert.Equal(t, "corrupt 0 op 3 body", body(out.Script.Actions[0]))
	assert.Equal(t, []string{"storage on"}, storageLines(out.Script))
	assert.False(t, out.BudgetExceeded)
}

// TestDiskCandidates: the run without disks is offered only when no action
// needs a disk, each line goes on its own with `storage on` taking the last
// one's place, and an off line stays.
func TestDiskCandidates(t *testing.T) {
	for _, tc := range []struct {
		name, src string
		want      [][]string
	}{
		{"no storage", "replicas 3\nat 10 crash 1\n", nil},
		{"no action needs a disk", "storage torn 1/2\nstorage atlas off\nat 10 crash 1\n",
			[][]string{nil, {"storage atlas off"}, {"storage torn 1/2"}}},
		{"a storage action", "storage torn 1/2\nstorage atlas off\nat 10 corrupt 1 superblock\n",
			[][]string{{"storage atlas off"}, {"storage torn 1/2"}}},
		{"the last line", "storage latency min=1 mean=1\nat 10 corrupt 1 superblock\n",
			[][]string{{"storage on"}}},
		{"on alone", "storage on\nat 10 corrupt 1 superblock\n", nil},
		{"on alone, no action", "storage on\n", [][]string{nil}},
		{"on among others", "storage on\nstorage torn 1/2\nat 10 misdirect 1 op 2 -> op 3\n",
			[][]string{{"storage torn 1/2"}, {"storage on"}}},
		{"off stays", "storage off\nstorage torn 1/2\nat 10 corrupt 0 superblock\n",
			[][]string{{"storage off", "storage on"}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var got [][]string
			for _, c := range diskCandidates(parse(t, tc.src)) {
				got = append(got, storageLines(c))
			}
			assert.Equal(t, tc.want, got)
		})
	}
}
