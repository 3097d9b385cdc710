package sim

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"vsrsim/prng"
	"vsrsim/vsr"
)

// TestTruncatedLogAimsACrashThenAViewChange: a replica whose view change
// truncated its log (a journal_truncate event in the fault phase) is armed;
// as it goes normal in the new view it crashes the next tick, and its
// restart takes the primary out at once, so the view change runs on the vote
// of a replica unsure of what it acked in the older view (swarm seed 1868).
// Each step is a trace note of the harness's own.
func TestTruncatedLogAimsACrashThenAViewChange(t *testing.T) {
	c := onDisks(t, Storage{AimedSecond: prng.Ratio{Num: 1, Den: 1}})
	const victim = 2
	trunc := vsr.JournalChange{View: 1, Op: 7}.Event(vsr.EvJournalTruncate)
	trunc.Replica = victim
	c.observe(&trunc)
	st := &c.disks.second
	require.Equal(t, uint8(secondTruncated+1), st.armed[victim], "armed at the truncation")

	normal := vsr.StatusChanged{Status: vsr.StatusNormal, View: 1, LogView: 1, Op: 6}.Event()
	normal.Replica = victim
	c.observe(&normal)
	require.Len(t, st.due, 1, "the crash is due next tick")
	assert.True(t, st.due[0].thenView)
	c.now++
	c.injectSecond()
	assert.Nil(t, c.replicas[victim], "crashed just after it went normal")
	assert.True(t, st.restartView[victim])

	c.Restart(victim)
	assert.False(t, st.restartView[victim], "taken at the restart")
	require.Len(t, st.due, 1)
	assert.Equal(t, uint8(secondViewAtRestart), st.due[0].kind, "the primary goes out at once")
	assert.Contains(t, st.due[0].cause, "restarted above a truncated log")
}
