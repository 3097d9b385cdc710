package sim

import (
	"cmp"
	"slices"
	"testing"
	"vsrsim/disksim"
	"vsrsim/vsr"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// queueCluster is a cluster on disks whose every write lands exactly lat
// ticks after it starts, with no fault: the queue's order alone decides.
func queueCluster(t *testing.T, lat uint64) *Cluster {
	t.Helper()
	cfg := DefaultConfig(1)
	cfg.Storage = Storage{On: true, LatencyMinTicks: lat}
	c, err := newCluster(cfg, Attach{}, newTrace(nil, cfg.Replicas, nil))
	require.NoError(t, err)
	c.now = 1
	// The queue alone, with no replica stepping: replica 0 never asked
	// for the writes these tests hand its disk, so it is told nothing.
	c.replicas[0] = nil
	return c
}

// ask hands replica 0's disk the writes of one step.
func ask(c *Cluster, ws ...vsr.Write) {
	c.out.Reset()
	for _, w := range ws {
		w.Off, w.Len = len(c.out.WriteData), vsr.HeaderRecordBytes
		c.out.WriteData = append(c.out.WriteData, make([]byte, w.Len)...)
		c.out.Writes = append(c.out.Writes, w)
	}
	c.decodeWrites()
	c.writes(0)
}

// at moves the cluster to tick now and lands what falls due.
func at(c *Cluster, now uint64) {
	c.now = now
	c.tickDisks()
}

func journal(z vsr.StorageZone, slot int, fenced bool) vsr.Write {
	return vsr.Write{Zone: z, Slot: slot, Fenced: fenced}
}

func TestDiskQueueSlotWaitsForItsSlot(t *testing.T) {
	c := queueCluster(t, 5)
	d := &c.disks.r[0]
	ask(c, journal(vsr.ZonePrepares, 3, true), journal(vsr.ZonePrepares, 3, true), journal(vsr.ZonePrepares, 4, true))
	assert.Len(t, d.inFlight, 2, "slot 4 starts at once beside slot 3")
	require.Len(t, d.deferred, 1, "a second write to slot 3 waits: a disk may land two in either order")
	assert.Equal(t, []uint64{1, 2, 3}, d.open)
	at(c, 6)
	assert.Empty(t, d.deferred, "the first landed: the second starts")
	assert.Equal(t, []uint64{2}, d.open)
	assert.Equal(t, uint64(1), d.landedFences(), "fences count from the first: 3 landed, 2 open")
	at(c, 11)
	assert.Empty(t, d.open)
	assert.Equal(t, uint64(3), d.landedFences())
}

func TestDiskQueueHeaderWaitsForItsPrepare(t *testing.T) {
	c := queueCluster(t, 5)
	d := &c.disks.r[0]
	ask(c, journal(vsr.ZonePrepares, 7, true), journal(vsr.ZoneHeaders, 7, true), journal(vsr.ZoneHeaders, 8, true))
	require.Len(t, d.deferred, 1)
	assert.Equal(t, 7, d.deferred[0].slot, "the header copy of slot 7 waits for its prepare, slot 8's does not")
	at(c, 6)
	assert.Empty(t, d.deferred)
}

func TestDiskQueueSuperblockWaitsForEveryEarlierWrite(t *testing.T) {
	c := queueCluster(t, 5)
	d := &c.disks.r[0]
	ask(c, journal(vsr.ZonePrepares, 1, true))
	at(c, 3)
	ask(c, journal(vsr.ZoneSuperblock, 0, true), journal(vsr.ZoneSuperblock, 1, true), journal(vsr.ZonePrepares, 2, true))
	assert.Len(t, d.deferred, 3, "the batch waits for slot 1's write; the journal write behind it waits too")
	at(c, 6)
	assert.Empty(t, d.deferred, "both copies of one version start together, and the write that waited behind them")
	assert.Len(t, d.inFlight, 3)
	ask(c, journal(vsr.ZoneSuperblock, 2, true))
	assert.Len(t, d.deferred, 1, "a newer version waits for the writes in flight, its elder's copies among them")
	at(c, 11)
	assert.Empty(t, d.deferred)
	at(c, 16)
	assert.Empty(t, d.inFlight)
	assert.Equal(t, uint64(5), d.landedFences())
}

// A superblock batch does not wait for an unfenced journal write (the
// scrubber's mend of an entry one copy still holds), in flight or waiting
// ahead; it still waits for a fenced one.
func TestDiskQueueSuperblockPassesAMend(t *testing.T) {
	c := queueCluster(t, 5)
	d := &c.disks.r[0]
	ask(c, journal(vsr.ZonePrepares, 1, false), journal(vsr.ZonePrepares, 1, false))
	require.Len(t, d.inFlight, 1)
	require.Len(t, d.deferred, 1, "the second mend of slot 1 waits for its slot")
	ask(c, journal(vsr.ZoneSuperblock, 0, true))
	assert.Len(t, d.inFlight, 2, "the batch starts past the mends, in flight and waiting")
	assert.Len(t, d.deferred, 1)
	ask(c, journal(vsr.ZonePrepares, 2, true))
	ask(c, journal(vsr.ZoneSuperblock, 1, true))
	assert.Len(t, d.deferred, 2, "a fenced write in flight still holds the next batch, and the first batch's copy holds it too")
}

func TestDiskQueueHoldsMessagesForTheirFence(t *testing.T) {
	c := queueCluster(t, 5)
	d := &c.disks.r[0]
	ask(c, journal(vsr.ZonePrepares, 1, true))
	m := vsr.Commit{}.Message()
	m.From, m.To = 0, 1
	c.send(0, &m)
	require.Len(t, d.held, 1, "a message waits for every fenced write asked for before it")
	ask(c, journal(vsr.ZonePrepares, 2, false))
	c.send(0, &m)
	require.Len(t, d.held, 2, "and keeps its place behind the first")
	at(c, 6)
	assert.Empty(t, d.held, "the fence landed: both leave, in order")

	ask(c, journal(vsr.ZonePrepares, 3, true))
	c.send(0, &m)
	c.crashDisk(0)
	assert.Empty(t, d.held, "a crash ends what waited: it never left")
	assert.Empty(t, d.open)
	assert.Empty(t, d.inFlight)
	assert.Zero(t, d.fences, "the next life counts its fences from one")
}

// TestDiskQueueBlankWaitsForItsSuperblock: a blank asked after its step's
// superblock (D71) waits for that batch to land, in flight too; a journal
// write asked after the batch without the mark starts at once.
func TestDiskQueueBlankWaitsForItsSuperblock(t *testing.T) {
	c := queueCluster(t, 5)
	d := &c.disks.r[0]
	blank := journal(vsr.ZonePrepares, 4, true)
	blank.AfterSuperblock = true
	ask(c, journal(vsr.ZoneSuperblock, 0, true), journal(vsr.ZoneSuperblock, 1, true), blank, journal(vsr.ZonePrepares, 5, true))
	assert.Len(t, d.inFlight, 3, "the batch starts at once, and slot 5 beside it")
	require.Len(t, d.deferred, 1, "the blank waits for the batch in flight")
	assert.Equal(t, 4, d.deferred[0].slot)
	at(c, 6)
	assert.Empty(t, d.deferred, "the batch landed: the blank starts")
	assert.Len(t, d.inFlight, 1)
}

// TestInFlightAtSearches: the written-out search finds what a library
// binary search finds, present or not, at every length up to nine.
func TestInFlightAtSearches(t *testing.T) {
	for n := range 10 {
		d := &diskOf{}
		for k := range n {
			d.inFlight = append(d.inFlight, inFlightWrite{id: disksim.WriteID(3*k + 2)})
		}
		for id := disksim.WriteID(0); id < disksim.WriteID(3*n+4); id++ {
			wantK, wantOK := slices.BinarySearchFunc(d.inFlight, id, func(f inFlightWrite, id disksim.WriteID) int {
				return cmp.Compare(f.id, id)
			})
			k, ok := d.inFlightAt(id)
			assert.Equal(t, wantK, k, "n %d id %d", n, id)
			assert.Equal(t, wantOK, ok, "n %d id %d", n, id)
		}
	}
}
