package scenarios_test

import (
	"bytes"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"vsrsim/prng"
	"vsrsim/replica"
	"vsrsim/scenarios"
	"vsrsim/scenarios/vsrfile"
	"vsrsim/sim"
	"vsrsim/sim/swarm"
)

// The parse, apply and run tests of the storage settings and actions.

// disks is a quiet run on faultless disks with a small journal, so that the
// disk's slots wrap within a short run.
const disks = quiet + "journal-slots 64\nstorage latency min=1 mean=2\n"

func TestFileParseStorage(t *testing.T) {
	for _, text := range []string{
		"storage on", "storage off", "storage read-fault 1/200", "storage write-fault 0.005", "storage misdirect 1%",
		"storage lost 1/1000", "storage torn 1/2", "storage latency min=0 mean=0", "storage latency min=100 mean=100",
		"storage atlas off", "storage on\nstorage off\nstorage torn 1/3",
		"storage on\nat 10 corrupt 1 op 3 header", "storage on\nat 10 corrupt 2 op 3 body",
		"storage on\nat 10 corrupt primary op 1 both", "storage on\nat 10 corrupt * superblock",
		"storage torn 1/2\nat 10 misdirect backup1 op 4 -> op 5", "storage off\nat 10 corrupt 0 op 9 header\nstorage on",
	} {
		f, err := parseFile(t, text+"\n")
		if assert.NoError(t, err, text) {
			cfg := sim.DefaultConfig(1)
			assert.NoError(t, applyErr(f.Apply(&cfg)), text)
		}
	}
}

// TestFileStorageErrors: each bad storage line is refused before the run,
// one line naming the file and line.
func TestFileStorageErrors(t *testing.T) {
	for _, tc := range []struct{ text, want string }{
		{"storage on\nat 10 corrupt 1 op 3 sector\n", `t.vsr:2: corrupt: "sector" is not a copy (want header, body or both)`},
		{"storage on\nat 10 corrupt 1 op 0 header\n", "t.vsr:2: op 0: ops count from 1"},
		{"storage on\nat 10 misdirect 1 op 3 op 4\n", "t.vsr:2: want: at TICK misdirect R op N -> op M"},
		{"storage on\nat 10 corrupt 3 op 3 body\n", "t.vsr:2: no replica 3 in a cluster of 3"},
		{"storage on\nreplicas 5\nat 10 misdirect backup5 op 3 -> op 4\n", "t.vsr:3: no backup5 in a cluster of 5"},
		{"storage on\nat 10 corrupt c0 superblock\n", "t.vsr:2: corrupt: c0 is not a replica"},
		{"at 10 corrupt 1 op 3 body\n", "t.vsr:1: corrupt: the run has no disks (a storage action needs a storage setting, e.g. storage on)"},
		{"quiet\n\nat 10 misdirect 1 op 3 -> op 4\n", "t.vsr:3: misdirect: the run has no disks"},
		{"storage on\nstorage off\nat 10 corrupt 1 superblock\n", "t.vsr:3: corrupt: the run has no disks"},
		{"storage latency min=500 mean=1\n", "t.vsr:1: storage latency min=500 mean=1: each must be 0..100 ticks"},
		{"storage latency min=1\n", "t.vsr:1: want: storage latency min=TICKS mean=TICKS"},
		{"storage torn 3/2\n", `t.vsr:1: storage torn: "3/2" is not a probability`},
		{"storage tear 1/2\n", `t.vsr:1: storage "tear": want storage on, off, read-fault`},
		{"storage\n", "t.vsr:1: want: storage VALUE"},
		{"storage torn 1/2\nstorage torn 1/3\n", "t.vsr:2: storage torn is set twice (first on line 1)"},
		{"journal memory\nstorage on\n", "t.vsr:2: storage: disks need a write-ahead journal (journal wal), not journal memory"},
		{"storage on\njournal-slots 64\nat 10 misdirect 1 op 3 -> op 67\n", "t.vsr:3: misdirect op 3 -> op 67: both ops share journal slot 3 (journal-slots 64)"},
		{"storage on\nticks 100\nat 200 corrupt 1 superblock\n", "t.vsr:3: tick 200 is after the fault phase"},
	} {
		t.Run(tc.text, func(t *testing.T) {
			f, err := parseFile(t, tc.text)
			if err == nil {
				cfg := sim.DefaultConfig(1)
				_, err = f.Apply(&cfg)
			}
			require.Error(t, err)
			assert.Contains(t, err.Error(), tc.want)
			assert.NotContains(t, err.Error(), "\n")
		})
	}
}

// TestRunStorageCorrupt: the scripted faults land on the named disk at their
// tick (the disk traces each, scripted), and a replica that restarts onto a
// corrupt entry and superblock copies recovers: one disk's faults are within
// what the protocol survives.
func TestRunStorageCorrupt(t *testing.T) {
	res, lines := runFile(t, disks+"at 400 corrupt 1 op 3 both\nat 400 corrupt 1 superblock\nat 401 crash 1\nat 900 restart 1\n"+
		"at 1000 corrupt primary op 2 header\nexpect pass\n", nil)
	assert.Equal(t, sim.VerdictPass, res.Verdict, "%s %s", res.Invariant, res.Evidence)
	assert.Equal(t, 1, count(lines, 400, 400, "disk 400 r1 corrupted headers/3", "scripted"))
	assert.Equal(t, 1, count(lines, 400, 400, "disk 400 r1 corrupted prepares/3", "scripted"))
	assert.Equal(t, 3, count(lines, 400, 400, "disk 400 r1 corrupted superblock/", "scripted"))
	assert.Equal(t, 1, count(lines, 1000, 1000, "note t.vsr:9: primary is r"))
	assert.Equal(t, 1, count(lines, 1000, 1000, "corrupted headers/2", "scripted"))
	assert.Zero(t, count(lines, 1000, 1000, "corrupted prepares/2"), "header only")
	assert.Positive(t, res.StorageFaults)
}

// TestRunStorageMisdirect: the armed disk lands op N's next prepare on op M's
// slot, and traces it when the write lands.
func TestRunStorageMisdirect(t *testing.T) {
	res, lines := runFile(t, disks+"at 10 misdirect 2 op 40 -> op 41\n", nil)
	assert.Equal(t, 1, count(lines, 10, 10, "note t.vsr:5: r2's next write of op 40's prepare lands on op 41's slot"))
	assert.Equal(t, 1, count(lines, 11, 3000, "r2 write-misdirected prepares/40 to 41", "scripted"))
	assert.NotEqual(t, sim.VerdictCrash, res.Verdict)
}

// TestRunStorageReplays: a file on faulty disks with a scripted fault runs
// to the same trace twice, and the file its tree formats to (what a shrink
// writes back) runs to it too.
func TestRunStorageReplays(t *testing.T) {
	const text = "# faulty disks\n" + disks + "storage read-fault 1/500\nstorage write-fault 1/300\nstorage misdirect 1/900\n" +
		"storage torn 1/2\nstorage lost 1/2000\nat 300 crash 0\nat 700 restart 0\nat 800 corrupt 2 op 5 body\nat 900 misdirect 1 op 70 -> op 71\n"
	a, _ := runFile(t, text, nil)
	b, _ := runFile(t, text, nil)
	assert.Equal(t, a.TraceHash, b.TraceHash)
	assert.Positive(t, a.StorageFaults)
	tree, err := vsrfile.Parse([]byte(text))
	require.NoError(t, err)
	again, _ := runFile(t, string(vsrfile.Format(tree)), nil)
	assert.Equal(t, a.TraceHash, again.TraceHash, "written back:\n%s", vsrfile.Format(tree))
	quiet, _ := runFile(t, strings.Replace(text, "at 800 corrupt 2 op 5 body\n", "", 1), nil)
	assert.NotEqual(t, a.TraceHash, quiet.TraceHash, "the scripted fault shapes the run")
}

// TestRecordStorageReplays: a swarm run on disks is recorded with its storage
// settings, and the recording replays it trace for trace: the disks draw
// from their own streams, so the same settings under the same seed fault
// them as the run did.
func TestRecordStorageReplays(t *testing.T) {
	exact := 0
	for seed := uint64(1); seed <= 6; seed++ {
		cfg := swarm.Config(seed)
		cfg.Durability = replica.DurabilityWAL
		cfg.Storage = sim.Storage{On: true, LatencyMinTicks: 1, LatencyMeanTicks: 3, AtlasOff: seed%2 == 0,
			ReadFault: prng.Ratio{Num: 1, Den: 2000}, WriteFault: prng.Ratio{Num: 1, Den: 300},
			Misdirect: prng.Ratio{Num: 1, Den: 700}, Lost: prng.Ratio{Num: 1, Den: 900}, Torn: prng.Ratio{Num: 1, Den: 2}}
		orig, data, err := scenarios.RecordRun(cfg, nil, sim.Run)
		require.NoError(t, err)
		assert.Contains(t, string(data), "\nstorage latency min=1 mean=3\nstorage read-fault 1/2000\nstorage write-fault 1/300\n"+
			"storage misdirect 1/700\nstorage lost 1/900\nstorage torn 1/2\n")
		assert.Equal(t, seed%2 == 0, strings.Contains(string(data), "\nstorage atlas off\n"))
		f, err := scenarios.ParseFile("rec.vsr", bytes.NewReader(data))
		require.NoError(t, err, "%s", data)
		rcfg := sim.DefaultConfig(seed)
		script, err := f.Apply(&rcfg)
		require.NoError(t, err)
		assert.Equal(t, cfg.Storage, rcfg.Storage)
		replay, err := sim.Run(rcfg, sim.Attach{Script: script})
		require.NoError(t, err)
		assert.Equal(t, orig.Verdict, replay.Verdict, "seed %d", seed)
		assert.Equal(t, orig.Invariant, replay.Invariant, "seed %d", seed)
		if orig.TraceHash == replay.TraceHash {
			exact++
			assert.Equal(t, orig.StorageFaults, replay.StorageFaults, "seed %d", seed)
		} else {
			t.Logf("seed %d replays its verdict, not its trace", seed)
		}
	}
	assert.GreaterOrEqual(t, exact, 5, "runs replaying trace for trace")
}

// TestRecordWithoutStorage: a run without disks records no storage line, so
// recordings from before disks are unchanged.
func TestRecordWithoutStorage(t *testing.T) {
	cfg := swarm.Config(3)
	cfg.FaultTicks, cfg.LivenessTicks = 500, 0
	_, data, err := scenarios.RecordRun(cfg, nil, sim.Run)
	require.NoError(t, err)
	assert.NotContains(t, string(data), "storage")
}
