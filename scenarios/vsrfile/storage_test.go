package vsrfile

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestStorageLinesRoundTrip: each storage setting and action reads into its
// tree and is written back as it was read.
func TestStorageLinesRoundTrip(t *testing.T) {
	for _, tc := range []struct {
		line string
		want Action // zero for a setting
	}{
		{line: "storage on"},
		{line: "storage off"},
		{line: "storage read-fault 1/200"},
		{line: "storage write-fault 0.005"},
		{line: "storage misdirect 1/400"},
		{line: "storage lost 1/1000"},
		{line: "storage torn 1/2"},
		{line: "storage latency min=1 mean=4"},
		{line: "storage atlas off"},
		{"at 10 corrupt 1 op 3 header", Action{At: 10, Verb: Corrupt, Targets: []Target{{Kind: Replica, N: 1}}, Op: 3, Copy: CopyHeader}},
		{"at 10 corrupt 0 op 70 body", Action{At: 10, Verb: Corrupt, Targets: []Target{{Kind: Replica}}, Op: 70, Copy: CopyBody}},
		{"at 10 corrupt primary op 1 both", Action{At: 10, Verb: Corrupt, Targets: []Target{{Kind: Primary}}, Op: 1, Copy: CopyBoth}},
		{"at 10 corrupt * op 2 both", Action{At: 10, Verb: Corrupt, Targets: []Target{{Kind: AllReplicas}}, Op: 2, Copy: CopyBoth}},
		{"at 10 corrupt 2 superblock", Action{At: 10, Verb: Corrupt, Targets: []Target{{Kind: Replica, N: 2}}, Copy: CopySuperblock}},
		{"at 10 misdirect 1 op 4 -> op 5", Action{At: 10, Verb: Misdirect, Targets: []Target{{Kind: Replica, N: 1}}, Op: 4, OpTo: 5}},
		{"at 10 misdirect backup1 op 68 -> op 4", Action{At: 10, Verb: Misdirect, Targets: []Target{{Kind: Backup, N: 1}}, Op: 68, OpTo: 4}},
	} {
		t.Run(tc.line, func(t *testing.T) {
			f, err := Parse([]byte(tc.line + "\n"))
			require.NoError(t, err)
			assert.Equal(t, tc.line+"\n", string(Format(f)))
			if tc.want.Verb != "" {
				require.Len(t, f.Actions, 1)
				assert.Equal(t, tc.want, withoutLines(f).Actions[0])
			}
			assert.True(t, roundTrip(t, []byte(tc.line+"\n")))
		})
	}
}

func TestStorageLineErrors(t *testing.T) {
	for _, tc := range []struct{ text, want string }{
		{"at 1 corrupt 1 op 3 sector\n", `line 1: corrupt: "sector" is not a copy (want header, body or both)`},
		{"at 1 corrupt 1 op 0 header\n", "line 1: op 0: ops count from 1"},
		{"at 1 corrupt 1 op x header\n", `line 1: op "x" is not a number`},
		{"at 1 corrupt 1 op 3\n", "line 1: want: at TICK corrupt R op N header|body|both, or at TICK corrupt R superblock"},
		{"at 1 corrupt 1 3 header\n", "line 1: want: at TICK corrupt R op N"},
		{"at 1 corrupt 1\n", "line 1: want: at TICK corrupt R op N"},
		{"at 1 corrupt\n", "line 1: want: at TICK corrupt R op N"},
		{"at 1 corrupt c0 op 3 body\n", "line 1: corrupt: c0 is not a replica (a client has no disk)"},
		{"at 1 corrupt clients superblock\n", "line 1: corrupt: clients is not a replica"},
		{"at 1 corrupt x superblock\n", `line 1: "x" is not a target`},
		{"at 1 corrupt 1 2 superblock\n", "line 1: want: at TICK corrupt R op N"},
		{"at 1 misdirect 1 op 3 op 4\n", "line 1: want: at TICK misdirect R op N -> op M"},
		{"at 1 misdirect 1 op 3 -> 4\n", "line 1: want: at TICK misdirect R op N -> op M"},
		{"at 1 misdirect 1 op 3 ->\n", "line 1: want: at TICK misdirect R op N -> op M"},
		{"at 1 misdirect 1 op 0 -> op 4\n", "line 1: op 0: ops count from 1"},
		{"at 1 misdirect 1 op 4 -> op 0\n", "line 1: op 0: ops count from 1"},
		{"at 1 misdirect 1 op 4 -> op 4\n", "line 1: misdirect: op 4 -> op 4 lands where it was meant"},
		{"at 1 misdirect c1 op 3 -> op 4\n", "line 1: misdirect: c1 is not a replica"},
		{"storage torn 1/2\nstorage torn 1/3\n", "line 2: storage torn is set twice (first on line 1)"},
		{"storage on\nstorage on\n", "line 2: storage on is set twice (first on line 1)"},
	} {
		t.Run(tc.text, func(t *testing.T) {
			_, err := Parse([]byte(tc.text))
			require.Error(t, err)
			assert.Contains(t, err.Error(), tc.want)
			assert.NotContains(t, err.Error(), "\n")
		})
	}
}

// TestStorageSettingNames: storage lines are one setting per first word, so
// a file gives several, and the edits address each by its name.
func TestStorageSettingNames(t *testing.T) {
	f, err := Parse([]byte("storage torn 1/2\nreplicas 3\nstorage atlas off\nstorage latency min=1 mean=2\n"))
	require.NoError(t, err)
	require.Len(t, f.Settings(StorageKey), 3)
	s, ok := f.Lookup("storage atlas")
	require.True(t, ok)
	assert.Equal(t, []string{"atlas", "off"}, s.Args)
	_, ok = f.Lookup("storage")
	assert.False(t, ok, "no storage line is named by the key alone")
	g := f.Clone()
	g.Delete("storage torn")
	g.Set(Setting{Key: StorageKey, Args: []string{"latency", "min=0", "mean=0"}})
	assert.Equal(t, "replicas 3\nstorage atlas off\nstorage latency min=0 mean=0\n", string(Format(g)))
	assert.Len(t, f.Settings(StorageKey), 3, "the clone's edits leave f")
}
