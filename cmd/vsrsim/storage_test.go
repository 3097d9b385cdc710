package main

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestScenarioFileStorage: a file on disks runs and its option dump shows
// them; a flag that leaves a storage action impossible is refused before the
// run, naming the line, as a malformed file is.
func TestScenarioFileStorage(t *testing.T) {
	file := writeFile(t, "disks.vsr", "quiet\nticks 2000\njournal-slots 128\nstorage torn 1/2\nstorage latency min=1 mean=3\n"+
		"at 300 corrupt 1 op 3 both\nat 400 crash 1\nat 800 restart 1\nat 900 misdirect 0 op 3 -> op 67\n")
	_, rec := runJSONOf(t, exitPass, "run", "--seed", "3", "--scenario-file", file)
	options := map[string]string{}
	for _, o := range rec.Options {
		options[o.Name] = o.Value
	}
	assert.Equal(t, "on atlas=on scrub=on", options["storage"])
	assert.Equal(t, "read-fault=off write-fault=off misdirect=off lost=off torn=1/2", options["storage_faults"])

	for _, tc := range []struct {
		flags []string
		code  int
		want  string
	}{
		{[]string{"--journal-slots", "64"}, exitDataErr, "vsrsim: " + file + ":9: misdirect op 3 -> op 67: both ops share journal slot 3 (journal-slots 64)\n"},
		{[]string{"--journal", "memory"}, exitUsage, "vsrsim: invalid configuration: storage needs a write-ahead journal (journal wal): a memory journal writes nothing to disk\n"},
	} {
		out := vsrsim(t, append([]string{"run", "--seed", "3", "--scenario-file", file}, tc.flags...)...)
		require.Equal(t, tc.code, out.code, out.stderr)
		assert.Equal(t, tc.want, out.stderr)
	}
}
