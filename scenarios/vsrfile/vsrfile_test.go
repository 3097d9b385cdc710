package vsrfile

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// withoutLines is f with every line number cleared: what Format keeps.
func withoutLines(f *File) *File {
	g := f.Clone()
	for i, it := range g.Header {
		v := reflect.New(reflect.TypeOf(it).Elem())
		v.Elem().Set(reflect.ValueOf(it).Elem())
		v.Elem().FieldByName("Line").SetInt(0)
		g.Header[i] = v.Interface().(Item)
	}
	for i := range g.Actions {
		g.Actions[i].Line = 0
	}
	return g
}

// corpus is the shipped scenario files and recordings.
func corpus(t testing.TB) map[string][]byte {
	out := map[string][]byte{}
	for _, pattern := range []string{"../testdata/*.vsr", "../testdata/behaviour/*.vsr", "../../seeds/recorded/*.vsr", "../../shrink/testdata/*.vsr"} {
		paths, err := filepath.Glob(pattern)
		require.NoError(t, err)
		for _, p := range paths {
			data, err := os.ReadFile(p)
			require.NoError(t, err)
			out[p] = data
		}
	}
	require.NotEmpty(t, out)
	return out
}

// roundTrip checks Parse(Format(t)) == t and that Format is stable, for
// the tree t of text; it reports whether text parsed.
func roundTrip(t *testing.T, text []byte) bool {
	tree, err := Parse(text)
	if err != nil {
		assert.NotContains(t, err.Error(), "\n", "a refusal is one line")
		return false
	}
	out := Format(tree)
	again, err := Parse(out)
	require.NoError(t, err, "Format wrote what Parse refuses:\n%s", out)
	assert.Equal(t, withoutLines(tree), withoutLines(again), "Parse(Format(t)) != t for\n%s", out)
	assert.Equal(t, string(out), string(Format(again)), "Format is not stable")
	return true
}

// FuzzParse: Parse(Format(t)) is t, Format(Parse(x)) is a fixed point, and
// every refusal is one line. Seeds: the shipped and recorded files, and one
// of each line form.
func FuzzParse(f *testing.F) {
	for _, data := range corpus(f) {
		f.Add(data)
	}
	for _, s := range []string{
		"# head\n\n#  two\nseed 0x2a\nat 10 partition primary | * | c0\n", "at 10 drop prepareok,commit * -> backup2\n",
		"expect served 1 2 >= 3\nexpect view-change 4 5\nexpect view-changes 6 7 <= 0\nexpect pass\n", "network reorder 1% max=3\nclog mean=4\n",
		"at 1 extra-delay primary:*=5\n", "core 0 1\nreplicas 2\nliveness keep-faults\n", "at 3 note  a  b # c\nat 2 heal\n",
		"at 5 network loss 1/2\nquiet\n",
		"storage read-fault 1/200\nstorage write-fault 0.005\nstorage misdirect 1%\nstorage lost 1/9\nstorage torn 1/2\n",
		"storage latency min=1 mean=4\nstorage atlas off\nstorage on\nstorage off\n",
		"at 9 corrupt 1 op 3 header\nat 9 corrupt primary op 30 body\nat 8 corrupt * op 2 both\nat 7 corrupt backup1 superblock\n",
		"at 6 misdirect 2 op 4 -> op 68\n",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, text []byte) { roundTrip(t, text) })
}

func TestCorpusRoundTrips(t *testing.T) {
	for p, data := range corpus(t) {
		parsed := roundTrip(t, data)
		if !strings.HasPrefix(filepath.Base(p), "bad-") {
			assert.True(t, parsed, p)
		}
	}
}

func TestParseTree(t *testing.T) {
	src := "# recorded from: x\n#\n\nseed 0x10 # sixteen\nreplicas 5\nnetwork loss 1/20\n# dropped\nexpect liveness\n" +
		"at 300 crash 1 primary\nat 100 cut 0 c1 -> *\nat 100 drop Commit,prepare 1 -> 0\nat 5 partition 0 | 1 2 | clients\n" +
		"at 7 extra-delay backup1:*=40\nat 9 network clog off\nat 9 note  two  words\nexpect served 1 2 >= 3\n"
	f, err := Parse([]byte(src))
	require.NoError(t, err)
	assert.Equal(t, []string{" recorded from: x", ""}, f.Comments)
	seed, ok := f.SeedValue()
	assert.True(t, ok)
	assert.Equal(t, uint64(16), seed)
	require.Len(t, f.Header, 5)
	assert.Equal(t, &Setting{Line: 6, Network: true, Key: "loss", Args: []string{"1/20"}}, f.Header[2])
	assert.Equal(t, &ExpectVerdict{Line: 8, Verdict: "liveness"}, f.Header[3])
	assert.Equal(t, &ExpectServed{Line: 16, From: 1, To: 2, Min: 3}, f.Header[4])
	var ticks []uint64
	for _, a := range f.Actions {
		ticks = append(ticks, a.At)
	}
	assert.Equal(t, []uint64{5, 7, 9, 9, 100, 100, 300}, ticks, "by tick, file order within one")
	assert.Equal(t, []Target{{Kind: Replica, N: 1}, {Kind: Primary}}, f.Actions[6].Targets)
	assert.Equal(t, []string{"Commit", "prepare"}, f.Actions[5].Kinds)
	assert.Equal(t, [2]Target{{Kind: Backup, N: 1}, {Kind: AllReplicas}}, f.Actions[1].Delay)
	assert.Equal(t, "two words", f.Actions[3].Text)
	assert.Equal(t, "# recorded from: x\n#\nseed 16\nreplicas 5\nnetwork loss 1/20\nexpect liveness\nexpect served 1 2 >= 3\n"+
		"at 5 partition 0 | 1 2 | clients\nat 7 extra-delay backup1:*=40\nat 9 network clog off\nat 9 note two words\n"+
		"at 100 cut 0 c1 -> *\nat 100 drop Commit,prepare 1 -> 0\nat 300 crash 1 primary\n", string(Format(f)))
}

func TestParseErrors(t *testing.T) {
	g := Grammar{SettingKeys: []string{"replicas", "loss"}, NetworkKeys: []string{"loss"}}
	for _, tc := range []struct{ text, want string }{
		{"# only\n\n", "no settings or actions"},
		{"replicas 3\nreplicas 4\n", "line 2: replicas is set twice (first on line 1)"},
		{"loss 1\nnetwork loss 2\n", "line 2: loss is set twice (first on line 1)"},
		{"seed 1\nseed 2\n", "line 2: seed is set twice (first on line 1)"},
		{"seed x\n", `line 1: seed: seed "x"`},
		{"seed\n", "line 1: want: seed N"},
		{"bogus 1\n", `line 1: unknown line "bogus" (want at, expect, network, seed, or a setting: replicas, loss)`},
		{"network\n", "line 1: want: network SETTING (loss)"},
		{"network clog off\n", `line 1: unknown network setting "clog" (want loss)`},
		{"expect pass\nexpect crash\n", "line 2: a second expected verdict (first on line 1)"},
		{"expect served 5 1 >= 1\n", "line 1: window 5 1 ends before it starts"},
		{"at x crash 1\n", `line 1: tick "x" is not a number`},
		{"at 1 crsh 1\n", `line 1: unknown action "crsh"`},
		{"at 1 crash c0\n", "line 1: crash: c0 is not a replica"},
		{"at 1 partition 0 | 0\n", "line 1: partition: 0 is on two sides"},
		{"at 1 partition * | 0 | *\n", "line 1: partition: * on two sides"},
		{"at 1 cut 0 ->\n", "line 1: want: at TICK cut FROM.. -> TO.."},
		{"at 1 extra-delay 1:1=5\n", `line 1: extra-delay "1:1=5": a replica does not send to itself`},
		{"at 1 extra-delay c0:1=5\n", `line 1: extra-delay "c0:1=5": "c0" is not a replica index`},
		{"at 1 heal 2\n", "line 1: want: at TICK heal"},
	} {
		_, err := ParseWith([]byte(tc.text), g)
		if assert.Error(t, err, tc.text) {
			assert.Contains(t, err.Error(), tc.want, tc.text)
		}
	}
	_, err := Parse([]byte("x\n" + strings.Repeat("a", MaxLine+1) + "\n"))
	var e *Error
	if assert.ErrorAs(t, err, &e) {
		assert.Equal(t, 2, e.Line)
	}
}

func TestEdit(t *testing.T) {
	f, err := Parse([]byte("seed 3\nloss 1/2\nreplicas 5\nat 1 heal\n"))
	require.NoError(t, err)
	g := f.Clone()
	g.Set(Setting{Network: true, Key: "loss", Args: []string{"0"}})
	g.Delete("replicas")
	g.ClearSeed()
	assert.Equal(t, "network loss 0\nat 1 heal\n", string(Format(g)))
	g.SetSeed(9)
	g.SetComments([]string{"head", ""})
	s, ok := g.Lookup("loss")
	assert.True(t, ok)
	assert.Equal(t, []string{"0"}, s.Args)
	assert.Equal(t, "# head\n#\nseed 9\nnetwork loss 0\nat 1 heal\n", string(Format(g)))
	assert.Equal(t, "seed 3\nloss 1/2\nreplicas 5\nat 1 heal\n", string(Format(f)), "the clone's edits leave f")
}

// TestRecordedFormatsToItself: the recordings in seeds/recorded, written by
// hand before this package, are what Format writes of them, byte for byte.
func TestRecordedFormatsToItself(t *testing.T) {
	paths, err := filepath.Glob("../../seeds/recorded/*.vsr")
	require.NoError(t, err)
	require.NotEmpty(t, paths)
	for _, p := range paths {
		data, err := os.ReadFile(p)
		require.NoError(t, err)
		f, err := Parse(data)
		require.NoError(t, err, p)
		assert.Equal(t, string(data), string(Format(f)), p)
	}
}
