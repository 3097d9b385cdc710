package findings

import (
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// line is a run record as a sweep writes it, reduced to the fields a merge
// reads.
func line(seed uint64, verdict, hash, flags string) string {
	return fmt.Sprintf(`{"seed":%d,"bugs":[],"verdict":%q,"invariant":"inv-%s","evidence":"e","trace_hash":%q,"replay":"vsrsim run --seed %d%s"}`,
		seed, verdict, verdict, hash, seed, flags)
}

const hashA, hashB = "00000000000000aa", "00000000000000bb"

func TestReadRejectsMalformedLines(t *testing.T) {
	for _, tc := range []struct {
		name, text, want string
	}{
		{"not JSON", "FAIL seed 3", "x.jsonl:2: not a run record"},
		{"truncated", line(3, "safety", hashA, "")[:40], "x.jsonl:2: not a run record"},
		{"sweep summary", `{"summary":true,"runs":10}`, "x.jsonl:2: not a run record"},
		{"bad verdict", line(3, "meh", hashA, ""), "x.jsonl:2: unknown verdict"},
		{"bad hash", line(3, "safety", "xyz", ""), "x.jsonl:2: trace hash"},
		{"seed disagrees with replay", strings.Replace(line(3, "safety", hashA, ""), `"seed":3`, `"seed":4`, 1), "x.jsonl:2: seed 4, but its replay command runs seed 3"},
		{"replay not vsrsim run", strings.Replace(line(3, "safety", hashA, ""), "vsrsim run", "rm -rf", 1), "x.jsonl:2: replay"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			text := line(1, "safety", hashA, "") + "\n" + tc.text + "\n"
			_, err := Read("x.jsonl", strings.NewReader(text))
			require.Error(t, err)
			assert.Contains(t, err.Error(), tc.want)
			assert.NotContains(t, err.Error(), "\n", "one line")
		})
	}
}

func TestReadSkipsBlankLinesAndTakesEmptyFiles(t *testing.T) {
	recs, err := Read("empty.jsonl", strings.NewReader(""))
	require.NoError(t, err)
	assert.Empty(t, recs)
	recs, err = Read("x.jsonl", strings.NewReader("\n"+line(7, "liveness", hashA, "")+"\r\n\n"))
	require.NoError(t, err)
	require.Len(t, recs, 1)
	assert.Equal(t, "x.jsonl:2", recs[0].Where())
	assert.Equal(t, uint64(7), recs[0].Seed)
	assert.Equal(t, line(7, "liveness", hashA, ""), recs[0].Text, "the line itself, without its line ending")
}

func read(t *testing.T, name string, lines ...string) []Record {
	t.Helper()
	recs, err := Read(name, strings.NewReader(strings.Join(lines, "\n")))
	require.NoError(t, err)
	return recs
}

func TestMergeKeepsOneRecordPerRunInSeedOrder(t *testing.T) {
	a := read(t, "a", line(9, "safety", hashA, ""), line(2, "safety", hashA, " --replicas 5"), line(2, "crash", hashB, ""))
	b := read(t, "b", line(9, "safety", hashA, ""), line(1, "liveness", hashA, ""), line(2, "safety", hashA, " --replicas 5"))
	m := Merge(append(a, b...))
	var got []string
	for _, r := range m.Records {
		got = append(got, r.Where())
	}
	assert.Equal(t, []string{"b:2", "a:3", "a:2", "a:1"}, got,
		"by seed; seed 2 twice with different flags, ordered by flags; the first file's copy kept")
	assert.Equal(t, 6, m.Read)
	assert.Equal(t, 2, m.Duplicates)
	assert.Empty(t, m.Conflicts)
}

func TestMergeReportsConflicts(t *testing.T) {
	for _, tc := range []struct {
		name  string
		other string
	}{
		{"another hash", line(5, "safety", hashB, "")},
		{"another verdict", line(5, "liveness", hashA, "")},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m := Merge(append(read(t, "a", line(5, "safety", hashA, "")), read(t, "b", tc.other)...))
			require.Len(t, m.Records, 1)
			assert.Equal(t, "a:1", m.Records[0].Where())
			require.Len(t, m.Conflicts, 1)
			assert.Equal(t, "b:1", m.Conflicts[0].Dropped.Where())
		})
	}
}

func TestSummarize(t *testing.T) {
	recs := read(t, "a",
		`{"seed":1,"bugs":["b1","b2"],"verdict":"safety","invariant":"agreement","trace_hash":"00000000000000aa","replay":"vsrsim run --seed 1 --bug b1 --bug b2"}`,
		`{"seed":2,"bugs":["b2"],"verdict":"safety","invariant":"agreement","trace_hash":"00000000000000aa","replay":"vsrsim run --seed 2 --bug b2"}`,
		`{"seed":3,"bugs":[],"verdict":"liveness","invariant":"","trace_hash":"00000000000000aa","replay":"vsrsim run --seed 3"}`,
	)
	got := Summarize(recs)
	assert.Equal(t, []Count{{"safety", 2}, {"liveness", 1}}, got.Verdicts)
	assert.Equal(t, []Count{{"agreement", 2}, {NoInvariant, 1}}, got.Invariants)
	assert.Equal(t, []Count{{"b2", 2}, {"b1", 1}, {NoBugs, 1}}, got.Bugs)
}
