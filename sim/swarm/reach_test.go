package swarm_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"vsrsim/marks"
	"vsrsim/sim"
	"vsrsim/sim/swarm"
)

// The reach draws take a small range of swarm seeds through the branches
// they exist for, with every fix on and every run passing. The range is
// the first 200 seeds; each mark below is reached in at least one of them
// (docs/marks.md has the 2,000-seed counts; drop-chunk-corrupt and
// ack-old-incarnation-in-pipeline first come at seeds 347 and 145, too far
// for a unit test).
func TestSwarmReachesMarks(t *testing.T) {
	if testing.Short() {
		t.Skip("runs 200 swarm seeds")
	}
	var runs marks.Runs
	for seed := uint64(1); seed <= 200; seed++ {
		res, err := sim.Run(swarm.Config(seed), sim.Attach{})
		require.NoError(t, err, "seed %d", seed)
		assert.Contains(t, []sim.Verdict{sim.VerdictPass, sim.VerdictUnrecoverable}, res.Verdict, "seed %d: %s", seed, res.Evidence)
		runs.Add(&res.Marks)
	}
	for _, m := range []marks.Mark{
		marks.DropBadChecksum, marks.DropDVCUnreadable,
		marks.DropStartViewUnreadable, marks.DropRequestQueueFull, marks.DropStaleIncarnation,
		marks.MergeUnsure, marks.CommitFromBackup, marks.NetCorrupt,
	} {
		assert.NotZero(t, runs[m], "no run of seeds 1..200 reached %s", m)
	}
}

// Each reach draw is on in some seeds and off in others.
func TestSwarmReachDraws(t *testing.T) {
	const seeds = 300
	count := map[string]int{}
	for seed := uint64(1); seed <= seeds; seed++ {
		c := swarm.Config(seed)
		require.NoError(t, c.Validate(), "seed %d", seed)
		for name, on := range map[string]bool{
			"delivered": c.Network.CorruptDelivered,
			"queue":     c.RequestQueue != 0,
			"reorder":   c.Network.ReorderMaxTicks >= 50,
			"slow":      slowest(&c) >= 1000,
		} {
			if on {
				count[name]++
			}
		}
	}
	for _, name := range []string{"delivered", "queue", "reorder", "slow"} {
		assert.Greater(t, count[name], seeds/20, name)
		assert.Less(t, count[name], seeds, name)
	}
}

func slowest(c *sim.Config) uint64 {
	var most uint64
	for _, d := range c.ExtraDelays {
		most = max(most, d.Ticks)
	}
	return most
}
