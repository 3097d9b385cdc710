package replica

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"vsrsim/marks"
	"vsrsim/vsr"
	"vsrsim/vsr/vsrtest"
)

// Reads in a life (docs/storage.md "Reads in a life"): a replica on a disk
// serves a repair from what its disk returns.

// readsBackup is a three-replica cluster on disks whose backup r2 journaled
// ops 1..5, applied 1..4 and holds op 5 above its commit point, every write
// landed.
func readsBackup(t *testing.T, bugs func(*Bugs)) (*testCluster, *Replica) {
	return readsBackupWith(t, func(o *Options) {
		if bugs != nil {
			bugs(&o.Bugs)
		}
	})
}

// readsBackupWith is readsBackup with options of the test's own.
func readsBackupWith(t *testing.T, configure func(*Options)) (*testCluster, *Replica) {
	c := newTestCluster(t, 3, func(o *Options) {
		onDisk(o)
		configure(o)
	})
	c.commitRequests(0, 1, 4)
	c.dropIf(cmdTo(vsr.CmdCommit, 2))
	c.dropIf(cmdTo(vsr.CmdPrepare, 2))
	c.request(0, 0, 5, put(5, 50))
	c.deliverAll()
	r2 := c.r(2)
	// Op 5's prepare reaches r2 by hand, with a commit point of 4.
	h, ok := c.r(0).log.journal.Get(5)
	require.True(t, ok)
	out := &vsr.Output{}
	r2.Step(msg(vsr.Prepare{Header: h}, 0, 2, r2.view), out)
	require.True(t, r2.log.journal.Has(5, h.Checksum))
	require.Less(t, r2.wm.commitMin, uint64(5), "op 5 stays above r2's commit point")
	r2.Landed(r2.dur.fencesAsked)
	return c, r2
}

// diskCopy is the record r2's disk would hold for h in zone z.
func diskCopy(r *Replica, z vsr.StorageZone, h vsr.Header) []byte {
	buf := make([]byte, vsr.PrepareRecordBytes)
	kind := recordPrepare
	if z == vsr.ZoneHeaders {
		kind = recordHeader
	}
	encodeEntry(buf, kind, r.slotOf(h.Op), &h)
	return buf
}

func readOf(out *vsr.Output, op uint64) (vsr.Read, bool) {
	for _, rd := range out.Reads {
		if rd.Op == op {
			return rd, true
		}
	}
	return vsr.Read{}, false
}

func repairDone(out *vsr.Output) (uint64, bool) {
	for _, m := range out.Messages {
		if m.Command == vsr.CmdRepairDone {
			return m.RepairDone().Last, true
		}
	}
	return 0, false
}

func TestRepairServedFromTheDisk(t *testing.T) {
	_, r2 := readsBackup(t, nil)
	out := &vsr.Output{}
	r2.Step(msg(vsr.RequestPrepares{From: 3, To: 5}, 1, 2, r2.view), out)
	require.Len(t, out.Reads, 3, "every op is read from the disk")
	assert.Empty(t, repairServed(out), "nothing served before its read")
	_, done := repairDone(out)
	assert.False(t, done, "RepairDone waits for the reads")

	h3, _ := r2.log.journal.Get(3)
	h4, _ := r2.log.journal.Get(4)
	h5, _ := r2.log.journal.Get(5)
	rd3, _ := readOf(out, 3)
	rd4, _ := readOf(out, 4)
	rd5, _ := readOf(out, 5)

	// Op 3 reads whole: served.
	out = &vsr.Output{}
	r2.ReadDone(&vsr.ReadDone{Read: rd3, Data: diskCopy(r2, vsr.ZonePrepares, h3)}, out)
	require.Len(t, repairServed(out), 1)
	assert.Equal(t, h3.Checksum, repairServed(out)[0].Checksum)

	// Op 4's prepare copy holds another op 4 (a rewrite the disk lost):
	// not served; the header ring's copy is read.
	stale := h4
	stale.Body.Value++
	stale.Seal()
	out = &vsr.Output{}
	r2.ReadDone(&vsr.ReadDone{Read: rd4, Data: diskCopy(r2, vsr.ZonePrepares, stale)}, out)
	assert.Empty(t, repairServed(out), "a copy not the journal's entry is never served")
	retry, ok := readOf(out, 4)
	require.True(t, ok, "the header ring's copy is read")
	assert.Equal(t, vsr.ZoneHeaders, retry.Zone)
	assert.EqualValues(t, 1, out.Marks[marks.StorageReadRetried])
	out = &vsr.Output{}
	r2.ReadDone(&vsr.ReadDone{Read: retry, Data: diskCopy(r2, vsr.ZoneHeaders, h4)}, out)
	require.Len(t, repairServed(out), 1)
	assert.Equal(t, h4.Checksum, repairServed(out)[0].Checksum, "the header ring's copy carries the body")

	// Op 5: both copies unreadable. Not served; the body leaves the
	// journal, held unsure, never voted absent; repair will fetch it.
	out = &vsr.Output{}
	r2.ReadDone(&vsr.ReadDone{Read: rd5, IOErr: true, Data: make([]byte, vsr.PrepareRecordBytes)}, out)
	retry, ok = readOf(out, 5)
	require.True(t, ok)
	out = &vsr.Output{}
	r2.ReadDone(&vsr.ReadDone{Read: retry, IOErr: true, Data: make([]byte, vsr.HeaderRecordBytes)}, out)
	assert.Empty(t, repairServed(out))
	assert.EqualValues(t, 1, out.Marks[marks.StorageReadLost])
	assert.False(t, r2.log.journal.Has(5, h5.Checksum), "the unreadable body left the journal")
	assert.Empty(t, out.Writes, "no blank is written over the faulty slot")
	out = &vsr.Output{}
	r2.fx.Out = out
	e := r2.suffixEntry(5, r2.wm.commitMin)
	r2.fx.Out = nil
	assert.True(t, e.Unsure, "held unsure")
	assert.False(t, e.Nack, "never a nack")
	assert.Equal(t, h5.Checksum, e.Header.Checksum, "its header stays")
	_, done = repairDone(out)
	assert.False(t, done, "the suffix sends nothing")
	assert.GreaterOrEqual(t, r2.log.repairArmedTo, uint64(5), "repair fetches it")
}

func TestRepairDoneNamesTheLastOpServed(t *testing.T) {
	_, r2 := readsBackup(t, nil)
	out := &vsr.Output{}
	r2.Step(msg(vsr.RequestPrepares{From: 4, To: 5}, 1, 2, r2.view), out)
	rd4, _ := readOf(out, 4)
	rd5, _ := readOf(out, 5)
	h4, _ := r2.log.journal.Get(4)
	// The reads complete out of order; the last one sends RepairDone.
	out = &vsr.Output{}
	r2.ReadDone(&vsr.ReadDone{Read: rd5, IOErr: true, Data: make([]byte, vsr.PrepareRecordBytes)}, out)
	retry, _ := readOf(out, 5)
	out = &vsr.Output{}
	r2.ReadDone(&vsr.ReadDone{Read: rd4, Data: diskCopy(r2, vsr.ZonePrepares, h4)}, out)
	_, done := repairDone(out)
	assert.False(t, done, "op 5's retry is still in flight")
	out = &vsr.Output{}
	r2.ReadDone(&vsr.ReadDone{Read: retry, IOErr: true, Data: make([]byte, vsr.HeaderRecordBytes)}, out)
	last, done := repairDone(out)
	assert.True(t, done)
	assert.Equal(t, uint64(4), last, "op 5 was not served")
}

// With repair-serves-unread the stale copy goes out as the op.
func TestRepairServesUnreadServesAStaleCopy(t *testing.T) {
	_, r2 := readsBackup(t, func(b *Bugs) { b.RepairServesUnread = true })
	out := &vsr.Output{}
	r2.Step(msg(vsr.RequestPrepares{From: 4, To: 4}, 1, 2, r2.view), out)
	rd4, ok := readOf(out, 4)
	require.True(t, ok)
	h4, _ := r2.log.journal.Get(4)
	stale := h4
	stale.Body.Value++
	stale.Seal()
	out = &vsr.Output{}
	r2.ReadDone(&vsr.ReadDone{Read: rd4, Data: diskCopy(r2, vsr.ZonePrepares, stale)}, out)
	require.Len(t, repairServed(out), 1)
	assert.Equal(t, stale.Checksum, repairServed(out)[0].Checksum, "the defect serves what it read")
}

// A slot whose own write has not landed is served from the write's buffer:
// the disk may still hold the copy before it.
func TestRepairServesAnUnlandedSlotFromMemory(t *testing.T) {
	_, r2 := readsBackup(t, nil)
	r2.dur.store.slotFence[r2.slotOf(4)] = r2.dur.fencesLanded + 1
	r2.dur.fencesAsked = max(r2.dur.fencesAsked, r2.dur.fencesLanded+1)
	out := &vsr.Output{}
	r2.Step(msg(vsr.RequestPrepares{From: 4, To: 4}, 1, 2, r2.view), out)
	assert.Empty(t, out.Reads)
	require.Len(t, repairServed(out), 1)
	last, done := repairDone(out)
	assert.True(t, done)
	assert.Equal(t, uint64(4), last)
}

// A completion naming another op than the read its tag asked for is a
// harness defect the replica refuses.
func TestReadDoneMustBeTheReadAsked(t *testing.T) {
	_, r2 := readsBackup(t, nil)
	out := &vsr.Output{}
	r2.Step(msg(vsr.RequestPrepares{From: 4, To: 4}, 1, 2, r2.view), out)
	rd, ok := readOf(out, 4)
	require.True(t, ok)
	rd.Op = 3 // planted: the tag of op 4's read, another op
	v := vsrtest.ViolationOf(func() { r2.ReadDone(&vsr.ReadDone{Read: rd, IOErr: true}, &vsr.Output{}) })
	require.NotNil(t, v)
	assert.Equal(t, "read_done_is_the_read_asked", v.Invariant)
}

// TestRepairPendingHoldsAHoleWiderThanAWindow: peers that applied nothing
// vouch for no repaired body (their commit point is 0), so a hole is
// vouched for only from the journaled op above it, down. Bodies that come
// bottom-up wait pending; a buffer of one request window evicted the bottom
// of a wider run, and the cascade from the op above stopped at the eviction
// for good (D82; robust-decade-3737920981.vsr: every replica at commit_min 0
// dropped 100,000 bodies as unverified). The whole run comes in.
func TestRepairPendingHoldsAHoleWiderThanAWindow(t *testing.T) {
	const top = 3*vsr.RepairBatchMax + 2
	hs := chainHeaders(top, 0)
	r, _ := walBackup(t)
	r.wm.commitMax = top
	out := &vsr.Output{}
	r.fx.Out = out
	require.True(t, r.journalPut(hs[top], false))
	r.fx.Out = nil
	for op := 1; op < top; op++ {
		r.Step(msg(vsr.RepairPrepare{Header: hs[op]}, 0, 1, 0), out)
	}
	for op := 1; op <= top; op++ {
		assert.True(t, r.log.journal.Has(uint64(op), hs[op].Checksum), "op %d journaled", op)
	}
	assert.Empty(t, r.repair.pending, "every waiting body came in")
}
