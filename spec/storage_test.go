package spec

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestStorageRulesPass: the writes a correct replica asks for pass, each
// beside the slip it must not be taken for.
func TestStorageRulesPass(t *testing.T) {
	onDisk := Config{Replicas: 3, LeaveWindow: true, Relay: true, Disk: true, JournalSlots: 8}
	blank := func(tr *trace, i, slot int) {
		tr.m.Wrote(i, &Write{Zone: ZonePrepare, Slot: slot, Kind: WriteBlank, Fenced: true})
		tr.m.Wrote(i, &Write{Zone: ZoneHeader, Slot: slot, Kind: WriteBlank, Fenced: true})
	}
	// blankAcked: replica 2 acked op 1 (slot 1) in view 0; in a step of its
	// own, what lets the op go, then a blank over slot 1.
	blankAcked := func(letGo func(m *Model)) func(tr *trace) {
		return func(tr *trace) {
			replicate(tr).clock(2, false)
			letGo(tr.m)
			blank(tr, 2, 1)
		}
	}
	for _, tc := range []struct {
		name  string
		build func(tr *trace)
	}{
		{"a scrubber mends a header copy alone, unfenced", func(tr *trace) {
			replicate(tr).clock(2, false)
			tr.m.Wrote(2, &Write{Zone: ZoneHeader, Slot: 1, Kind: WriteEntry, Op: 1, Checksum: 0xa})
		}},
		{"a removal in both copies, prepare first", func(tr *trace) {
			replicate(tr).clock(2, false)
			blank(tr, 2, 3)
		}},
		{"a blank over an acked op its journal event let go", blankAcked(func(m *Model) { m.Unjournaled(2, 1, 0xa) })},
		{"a blank over an acked op it applied", blankAcked(func(m *Model) { m.Settled(2, 1) })},
		{"a blank over an acked op once a later op took its slot", blankAcked(func(m *Model) { m.Journaled(2, 9, 0xb) })},
		{"a blank over an op acked in an older log_view, after the step's superblock", func(tr *trace) {
			// Replica 2 acked op 1 in view 0 and adopts view 1's log,
			// which truncates it: the blank waits for the superblock
			// naming log_view 1.
			pulledIntoView1(tr).deliver(2, Message{Command: CmdStartView, From: 1, View: 1, LogView: 1, Op: 0})
			tr.m.Status(2, StatusNormal, 1, 1)
			tr.m.Unjournaled(2, 1, 0xa)
			tr.m.Wrote(2, &Write{Zone: ZoneSuperblock, Fenced: true})
			tr.m.Wrote(2, &Write{Zone: ZonePrepare, Slot: 1, Kind: WriteBlank, Fenced: true, AfterSuperblock: true})
			tr.m.Wrote(2, &Write{Zone: ZoneHeader, Slot: 1, Kind: WriteBlank, Fenced: true, AfterSuperblock: true})
		}},
		{"a blank in an older log_view over an op it never acked", func(tr *trace) {
			pulledIntoView1(tr).deliver(2, Message{Command: CmdStartView, From: 1, View: 1, LogView: 1, Op: 0})
			tr.m.Status(2, StatusNormal, 1, 1)
			blank(tr, 2, 3)
		}},
		{"a blank over an op acked in an earlier life", func(tr *trace) {
			replicate(tr)
			tr.m.Restart(2, true)
			tr.clock(2, false)
			blank(tr, 2, 1)
		}},
		{"an ack of an entry its restart took up, its blank before the crash lost", func(tr *trace) {
			replicate(tr).deliver(2, Message{Command: CmdPrepare, From: 1, View: 0, Op: 2, Checksum: 0xb})
			tr.journal(2, 2, 0xb)
			tr.clock(2, false)
			tr.m.Unjournaled(2, 2, 0xb)
			blank(tr, 2, 2)
			tr.m.Restart(2, true)
			tr.deliver(2, Message{Command: CmdStartView, From: 0, View: 0, LogView: 0, Op: 2})
			tr.m.Restored(2, 1, 0xa, 0)
			tr.m.Restored(2, 2, 0xb, 0xa)
			tr.m.Status(2, StatusNormal, 0, 0)
			tr.send(2, prepareOk(0, 2, 0xb, 0))
		}},
		{"a set-aside over an acked op", func(tr *trace) {
			replicate(tr).clock(2, false)
			tr.m.Wrote(2, &Write{Zone: ZonePrepare, Slot: 1, Kind: WriteAside, Fenced: true})
			tr.m.Wrote(2, &Write{Zone: ZoneHeader, Slot: 1, Kind: WriteAside, Fenced: true})
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tr := newTrace(t, onDisk)
			tc.build(tr)
			tr.end()
			f := tr.m.Failed()
			assert.Nil(t, f, "%v", f)
		})
	}
}
