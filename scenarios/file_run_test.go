package scenarios_test

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"vsrsim/packetsim"
	"vsrsim/sim"
)

// The run tests: each line of the format, run, does what it says. Quiet
// network so that every drop a test counts is the file's doing.
const quiet = "quiet\nticks 3000\n"

func TestRunCutUncut(t *testing.T) {
	_, lines := runFile(t, quiet+"at 100 cut 0 -> 1\nat 1000 uncut 0 -> 1\n", func(c *sim.Cluster, tick uint64) {
		if tick == 500 {
			assert.False(t, c.Network().Connected(0, 1), "cut one way")
			assert.True(t, c.Network().Connected(1, 0), "the other way stays up")
		}
		if tick == 1000 {
			assert.True(t, c.Network().Connected(0, 1), "uncut")
		}
	})
	assert.Positive(t, count(lines, 100, 999, "drop partition r0->r1"))
	assert.Zero(t, count(lines, 1, 3000, "drop partition r1->r0"))
	assert.Zero(t, count(lines, 1000, 3000, "drop partition"))
}

func TestRunCutRoles(t *testing.T) {
	// The primary hears nothing; a later crash of the primary forces a view
	// change, and the role then names the new primary.
	_, lines := runFile(t, quiet+"at 100 cut * -> primary\nat 2500 cut primary -> clients\nat 1000 crash primary\nat 1000 uncut * -> 0\n", func(c *sim.Cluster, tick uint64) {
		if tick == 200 {
			assert.False(t, c.Network().Connected(1, 0))
			assert.False(t, c.Network().Connected(2, 0))
			assert.True(t, c.Network().Connected(0, 1), "send-only: its own sends go out")
		}
	})
	assert.Positive(t, count(lines, 100, 100, "note t.vsr:3: primary is r0"))
	assert.Positive(t, count(lines, 2500, 2500, "note t.vsr:4: primary is r"))
	assert.Zero(t, count(lines, 2500, 2500, "note t.vsr:4: primary is r0"), "the role resolves to the new primary")
}

func TestRunClientTargets(t *testing.T) {
	_, lines := runFile(t, quiet+"at 100 cut c0 -> *\nat 100 cut clients -> 2\n", func(c *sim.Cluster, tick uint64) {
		if tick == 200 {
			n := c.Config().Replicas
			assert.False(t, c.Network().Connected(n, 1), "c0 -> r1")
			assert.False(t, c.Network().Connected(n+1, 2), "c1 -> r2")
			assert.True(t, c.Network().Connected(n+1, 0), "c1 -> r0")
		}
	})
	assert.Positive(t, count(lines, 100, 3000, "drop partition c0->r"))
}

func TestRunDropPass(t *testing.T) {
	_, lines := runFile(t, quiet+"at 100 drop commit,PREPAREOK 0 -> 2\nat 100 drop PrepareOk 2 -> 0\nat 1000 pass Commit,PrepareOk 0 -> 2\n", nil)
	assert.Positive(t, count(lines, 100, 999, "drop filter r0->r2 Commit"))
	assert.Positive(t, count(lines, 100, 3000, "drop filter r2->r0 PrepareOk"))
	assert.Zero(t, count(lines, 1000, 3000, "drop filter r0->r2"))
	assert.Zero(t, count(lines, 1, 3000, "drop filter", "Prepare "), "other kinds pass")
}

func TestRunHoldRelease(t *testing.T) {
	_, lines := runFile(t, quiet+"at 100 hold 0 -> 1\nat 600 release 0 -> 1\n", nil)
	assert.Zero(t, count(lines, 110, 599, "recv r0->r1"), "held")
	assert.Positive(t, count(lines, 600, 600, "recv r0->r1"), "released at once")
}

func TestRunPartitionReplaces(t *testing.T) {
	_, lines := runFile(t, quiet+"at 100 cut 2 -> 1\nat 100 partition 0 | *\nat 800 partition 1 | 0 2\nat 1500 heal\n", func(c *sim.Cluster, tick uint64) {
		net := c.Network()
		switch tick {
		case 500:
			assert.False(t, net.Connected(0, 1) || net.Connected(1, 0) || net.Connected(0, 2), "0 is alone")
			assert.False(t, net.Connected(2, 1), "the cut")
		case 900:
			assert.True(t, net.Connected(0, 2) && net.Connected(2, 0), "the new partition replaced the old")
			assert.False(t, net.Connected(1, 0) || net.Connected(0, 1), "1 is alone")
			assert.False(t, net.Connected(2, 1), "a partition does not lift a cut")
		case 1500:
			assert.True(t, net.Connected(2, 1), "heal lifts the cut too")
		}
	})
	assert.Positive(t, count(lines, 100, 799, "drop partition r0->r"))
}

func TestRunPartitionClients(t *testing.T) {
	runFile(t, quiet+"at 100 partition c0 c1 | primary\n", func(c *sim.Cluster, tick uint64) {
		if tick == 200 {
			n := c.Config().Replicas
			assert.False(t, c.Network().Connected(n, 0) || c.Network().Connected(0, n+1))
			assert.True(t, c.Network().Connected(n+2, 0), "c2 is on no side")
		}
	})
}

func TestRunHealEndsFilters(t *testing.T) {
	_, lines := runFile(t, quiet+"at 100 drop Commit * -> *\nat 100 hold 0 -> 1\nat 500 heal\n", nil)
	assert.Positive(t, count(lines, 100, 499, "drop filter"))
	assert.Zero(t, count(lines, 500, 3000, "drop filter"))
	assert.Positive(t, count(lines, 500, 500, "recv r0->r1"), "heal releases holds")
}

func TestRunCrashRestartRoles(t *testing.T) {
	_, lines := runFile(t, quiet+"at 100 crash backup1\nat 200 restart backup1\nat 300 crash primary\nat 350 crash 0\n", func(c *sim.Cluster, tick uint64) {
		switch tick {
		case 150:
			assert.False(t, c.Alive(1))
		case 250:
			assert.True(t, c.Alive(1))
		case 320:
			assert.False(t, c.Alive(0))
		}
	})
	assert.Positive(t, count(lines, 350, 350, "r0 is already down"))
}

func TestRunRoleUnresolved(t *testing.T) {
	_, lines := runFile(t, quiet+"at 100 crash *\nat 200 crash primary\nat 300 restart *\n", nil)
	assert.Positive(t, count(lines, 200, 200, "crash skipped: no replica is normal"))
}

func TestRunExtraDelayRole(t *testing.T) {
	runFile(t, quiet+"at 100 extra-delay primary:backup2=77\nat 100 extra-delay *:1=5\n", func(c *sim.Cluster, tick uint64) {
		if tick == 150 {
			assert.Equal(t, uint64(77), c.Network().ExtraDelay(0, 2))
			assert.Equal(t, uint64(5), c.Network().ExtraDelay(2, 1))
		}
	})
}

func TestRunNetworkSettings(t *testing.T) {
	_, lines := runFile(t, "ticks 3000\nat 100 network quiet\nat 1000 network loss 1/2\nat 1500 network loss 0\nat 1500 network replay 1/1\n"+
		"at 2000 network replay 0\nat 2000 network delay min=200 mean=0\n", func(c *sim.Cluster, tick uint64) {
		o := c.Network().Options()
		switch tick {
		case 500:
			assert.True(t, o.Loss.Zero() && o.Replay.Zero() && o.Reorder.Zero() && o.Clog.Zero())
		case 2500:
			assert.Equal(t, uint64(200), o.DelayMinTicks)
		}
	})
	assert.Zero(t, count(lines, 200, 999, "drop loss"))
	assert.Positive(t, count(lines, 1000, 1500, "drop loss"))
	assert.Positive(t, count(lines, 1500, 2000, " dup"))
	assert.Zero(t, count(lines, 2100, 2199, "recv"), "nothing arrives sooner than 200 ticks")
	res, _ := runFile(t, "at 10 network reorder 1/2 max=9\nat 10 network clog mean=7\nat 10 network link-capacity 2\nat 20 network clog off\n", func(c *sim.Cluster, tick uint64) {
		o := c.Network().Options()
		if tick == 15 {
			assert.Equal(t, uint64(9), o.ReorderMaxTicks)
			assert.Equal(t, uint64(7), o.ClogMeanTicks)
			assert.Equal(t, 2, o.LinkCapacity)
		}
		if tick == 25 {
			assert.True(t, o.Clog.Zero())
		}
	})
	assert.Positive(t, res.Stats.Network.Dropped[packetsim.Capacity], "a two-packet link sheds")
}

func TestRunWorkload(t *testing.T) {
	_, off := runFile(t, quiet+"workload off\n", nil)
	assert.Zero(t, count(off, 1, 3000, "send c"), "no request in the fault phase")
	assert.Positive(t, count(off, 3001, 1<<40, "send c"), "the liveness phase still commits its floor")
	_, steady := runFile(t, quiet+"workload steady\nthink 100\nclients 1\n", nil)
	assert.InDelta(t, 30, count(steady, 1, 3000, "send c0->", "Request"), 6, "one request per ~100 ticks")
}

func TestRunLivenessKeepFaults(t *testing.T) {
	for _, keep := range []bool{false, true} {
		text := quiet + "core 1 2\nat 100 cut * -> 0\nat 100 drop Commit 0 -> 1\n"
		if keep {
			text += "liveness keep-faults\n"
		}
		_, lines := runFile(t, text, func(c *sim.Cluster, tick uint64) {
			if tick == 3100 {
				assert.Equal(t, !keep, c.Network().Connected(1, 0), "keep=%v", keep)
				assert.True(t, c.Network().Connected(2, 1), "the core is whole")
			}
		})
		// A drop at submit is traced at the next delivery: from 3002 on, the
		// drops are of packets sent in the liveness phase.
		assert.Equal(t, keep, count(lines, 3002, 1<<40, "drop filter r0->r1 Commit") > 0, "keep=%v", keep)
	}
}

func TestRunExpect(t *testing.T) {
	res, _ := runFile(t, quiet+"expect served 100 2900 >= 10\nexpect view-change 100 2000\n", nil)
	assert.Equal(t, sim.VerdictLiveness, res.Verdict)
	assert.Contains(t, res.Evidence, "expect view-change 100 2000 missed (t.vsr:4)")
	res, _ = runFile(t, quiet+"at 100 crash primary\nexpect served 1500 2900 >= 10\nexpect view-change 100 1500\n", nil)
	assert.Equal(t, sim.VerdictPass, res.Verdict, res.Evidence)
	res, _ = runFile(t, quiet+"at 100 partition clients | *\nexpect served 500 2900 >= 1\n", nil)
	assert.Equal(t, sim.VerdictLiveness, res.Verdict)
	assert.Contains(t, res.Evidence, "0 replies delivered in ticks 500..2900")
}

// TestRunTraceIgnoresFileDirectory: a file's role notes name it by base name,
// so the same file read from two directories gives the same trace hash (a
// fuzz finding saved to disk once replayed with another hash than the run
// that found it).
func TestRunTraceIgnoresFileDirectory(t *testing.T) {
	text := "ticks 2000\nat 300 cut primary -> backup1\nat 900 uncut * -> *\n"
	assert.Equal(t, fileTraceHash(t, "f.vsr", text, 3), fileTraceHash(t, "/some/dir/f.vsr", text, 3))
}
