package scenarios_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"vsrsim/scenarios"
	"vsrsim/sim"
)

// FuzzParse: no input makes the parser or Apply panic, and every refusal is
// one line. Seeds: the shipped files and one of each line.
func FuzzParse(f *testing.F) {
	paths, _ := filepath.Glob("testdata/*.vsr")
	more, _ := filepath.Glob("testdata/behaviour/*.vsr")
	for _, p := range append(paths, more...) {
		if data, err := os.ReadFile(p); err == nil {
			f.Add(string(data))
		}
	}
	for _, s := range []string{
		"at 10 partition primary | * | c0\n", "at 10 drop prepareok,commit * -> backup2\n",
		"expect served 1 2 >= 3\nexpect view-change 4 5\n", "network reorder 1% max=3\nclog mean=4\n",
		"at 1 extra-delay primary:*=5\n", "core 0 1\nreplicas 2\nliveness keep-faults\n",
		"storage read-fault 1/200\nstorage write-fault 0.005\nstorage misdirect 1%\nstorage lost 1/9\nstorage torn 1/2\n",
		"storage latency min=1 mean=4\nstorage atlas off\nstorage off\nstorage on\njournal memory\n",
		"storage on\nat 9 corrupt 1 op 3 header\nat 9 corrupt primary op 30 body\nat 7 corrupt backup1 superblock\n",
		"storage on\njournal-slots 64\nat 6 misdirect 2 op 4 -> op 68\nat 6 corrupt 5 op 0 both\n",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) {
		file, err := scenarios.ParseFile("f.vsr", strings.NewReader(text))
		if err == nil {
			cfg := sim.DefaultConfig(1)
			_, err = file.Apply(&cfg)
		}
		if err != nil && strings.Contains(err.Error(), "\n") {
			t.Fatalf("a refusal of two lines: %q", err)
		}
	})
}
