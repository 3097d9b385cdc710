package vsr

import (
	"math/bits"
	"strconv"
)

// Canonical one-line forms of messages and events, in two encodings built from
// one description: text, for trace files and failure tails, and a compact
// binary form, a sequence of 64-bit words folded into the trace hash as they
// are produced. A run hashes every line but formats text only for the lines it
// writes or prints, and because both encodings walk the same fields the hash
// covers exactly what the text shows (a checksum whole, not its 4 hex digits).
// Either form must change only on purpose: every recorded trace hash changes
// with the binary one.

// Line is one canonical line under construction. With Text set, fields append
// to B; otherwise each field's value is mixed into H.
type Line struct {
	Text bool
	B    []byte
	H    uint64
}

// Primes of xxHash64; the mix is its accumulator round.
const (
	mixPrime1 = 11400714785074694791
	mixPrime2 = 14029467366897019727
)

// Word mixes one 64-bit word into the binary form.
func (l *Line) Word(w uint64) {
	l.H = bits.RotateLeft64(l.H+w*mixPrime2, 31) * mixPrime1
}

// Bytes mixes a byte string into the binary form: its length, then 8 bytes a
// word.
func (l *Line) Bytes(s []byte) { mixString(l, s) }

func mixString[S ~string | ~[]byte](l *Line, s S) {
	l.Word(uint64(len(s)))
	for len(s) >= 8 {
		l.Word(uint64(s[0]) | uint64(s[1])<<8 | uint64(s[2])<<16 | uint64(s[3])<<24 |
			uint64(s[4])<<32 | uint64(s[5])<<40 | uint64(s[6])<<48 | uint64(s[7])<<56)
		s = s[8:]
	}
	var w uint64
	for i := len(s) - 1; i >= 0; i-- {
		w = w<<8 | uint64(s[i])
	}
	l.Word(w)
}

// lit is fixed text: it carries nothing the binary form needs.
func (l *Line) lit(s string) {
	if l.Text {
		l.B = append(l.B, s...)
	}
}

// flag is text shown only when on; the binary form records it either way.
func (l *Line) flag(s string, on bool) {
	if l.Text {
		if on {
			l.B = append(l.B, s...)
		}
		return
	}
	if on {
		l.Word(1)
	} else {
		l.Word(0)
	}
}

// name is a code with a name: the name in text, the code in binary.
func (l *Line) name(code uint64, s string) {
	if l.Text {
		l.B = append(l.B, s...)
		return
	}
	l.Word(code)
}

// str is a free string: its bytes in both forms.
func (l *Line) str(s string) {
	if l.Text {
		l.B = append(l.B, s...)
		return
	}
	mixString(l, s)
}

func (l *Line) num(v uint64) {
	if l.Text {
		l.B = strconv.AppendUint(l.B, v, 10)
		return
	}
	l.Word(v)
}

// integer is a signed number, such as a node index.
func (l *Line) integer(v int) {
	if l.Text {
		l.B = strconv.AppendInt(l.B, int64(v), 10)
		return
	}
	l.Word(uint64(v))
}

func (l *Line) field(name string, v uint64) {
	if l.Text {
		l.B = append(l.B, ' ')
		l.B = append(l.B, name...)
		l.B = append(l.B, '=')
		l.B = strconv.AppendUint(l.B, v, 10)
		return
	}
	l.Word(v)
}

// sum is a checksum: its low 16 bits as 4 hex digits in text, whole in binary.
func (l *Line) sum(name string, v uint64) {
	if !l.Text {
		l.Word(v)
		return
	}
	const digits = "0123456789abcdef"
	l.B = append(l.B, ' ')
	l.B = append(l.B, name...)
	l.B = append(l.B, '=')
	v &= 0xffff
	l.B = append(l.B, digits[v>>12&0xf], digits[v>>8&0xf], digits[v>>4&0xf], digits[v&0xf])
}

// Node is a node's name: r<i> for replicas, c<j> for clients.
func (l *Line) Node(id, replicas int) {
	if !l.Text {
		l.Word(uint64(id))
		return
	}
	l.B = AppendNode(l.B, id, replicas)
}

// AppendNode appends a node's name: r<i> for replicas, c<j> for clients.
func AppendNode(b []byte, id, replicas int) []byte {
	if id < replicas {
		b = append(b, 'r')
		return strconv.AppendInt(b, int64(id), 10)
	}
	b = append(b, 'c')
	return strconv.AppendInt(b, int64(id-replicas), 10)
}

func (l *Line) operation(o Operation) {
	switch o.Kind {
	case OpPut, OpIncr:
		if o.Kind == OpPut {
			l.name(uint64(o.Kind), "put(")
		} else {
			l.name(uint64(o.Kind), "incr(")
		}
		l.num(uint64(o.Key))
		l.lit(",")
		l.num(o.Value)
		l.lit(")")
	case OpGet:
		l.name(uint64(o.Kind), "get(")
		l.num(uint64(o.Key))
		l.lit(")")
	default:
		l.name(uint64(OpNoop), "noop")
	}
}

// Message adds m's canonical form: "r1->r2 Prepare v=3 op=17 ...".
func (l *Line) Message(m *Message, replicas int) {
	l.Node(m.From, replicas)
	l.lit("->")
	l.Node(m.To, replicas)
	l.lit(" ")
	l.name(uint64(m.Command), m.Command.String())
	l.field("v", m.View)
	if m.Command <= CmdCommit || m.Command == CmdCommitOK {
		l.normalFields(m)
		return
	}
	l.recoveryFields(m)
}

// normalFields adds the fields of a normal-operation message.
func (l *Line) normalFields(m *Message) {
	switch m.Command {
	case CmdRequest:
		p := m.Request()
		l.field("req", p.Request)
		l.lit(" ")
		l.operation(p.Body)
	case CmdReply:
		p := m.Reply()
		l.field("req", p.Request)
		l.field("op", p.Op)
		l.field("result", p.Result)
	case CmdPrepare:
		h := m.Prepare().Header
		l.field("op", h.Op)
		l.field("commit", h.Commit)
		l.sum("csum", h.Checksum)
	case CmdPrepareOK:
		p := m.PrepareOk()
		l.field("op", p.Op)
		l.sum("csum", p.Checksum)
		l.field("inc", p.Incarnation)
	case CmdCommit:
		p := m.Commit()
		l.field("commit", p.Commit)
		l.field("hb", p.Heartbeat)
		l.flag(" abdicated", p.Abdicated)
	case CmdCommitOK:
		p := m.CommitOk()
		l.field("commit", p.Commit)
		l.field("inc", p.Incarnation)
	}
}

// recoveryFields adds the fields of a view-change, repair or state-transfer
// message.
func (l *Line) recoveryFields(m *Message) {
	switch m.Command {
	case CmdRepairPrepare:
		h := m.RepairPrepare().Header
		l.field("op", h.Op)
		l.field("commit", h.Commit)
		l.sum("csum", h.Checksum)
	case CmdStartViewChange:
		l.flag(" leave", m.StartViewChange().Leave)
	case CmdDoViewChange:
		p := m.DoViewChange()
		l.viewLog(p.LogView, p.Op, p.Commit, p.Suffix)
	case CmdStartView:
		p := m.StartView()
		l.viewLog(p.LogView, p.Op, p.Commit, p.Suffix)
	case CmdRequestStartView:
		p := m.RequestStartView()
		l.field("inc", p.Incarnation)
		l.field("nonce", p.Nonce)
	case CmdRequestPrepares:
		p := m.RequestPrepares()
		l.field("from", p.From)
		l.field("to", p.To)
	case CmdRepairDone:
		l.field("op", m.RepairDone().Last)
	case CmdRangeEvicted:
		l.field("op", m.RangeEvicted().First)
	case CmdStateTransferOffer:
		l.field("commit_op", m.StateTransferOffer().SnapshotOp)
	case CmdRequestStateChunk:
		p := m.RequestStateChunk()
		l.field("commit_op", p.SnapshotOp)
		l.field("chunk", uint64(p.Chunk))
	case CmdStateChunk:
		p := m.StateChunk()
		l.field("commit_op", p.SnapshotOp)
		l.field("chunk", uint64(p.Chunk))
	}
}

// viewLog adds the log a DoViewChange or StartView carries.
func (l *Line) viewLog(logView, op, commit uint64, suffix []SuffixEntry) {
	l.field("log_view", logView)
	l.field("op", op)
	l.field("commit", commit)
	l.field("suffix", uint64(len(suffix)))
	if len(suffix) > 0 {
		l.field("top", suffix[0].Header.Op)
	}
}

// Event adds a replica event's canonical form.
func (l *Line) Event(e *Event) {
	l.lit("r")
	l.integer(e.Replica)
	l.lit(" ")
	l.name(uint64(e.Kind), e.Kind.String())
	switch e.Kind {
	case EvCommit, EvJournalAppend, EvJournalTruncate, EvAck, EvJournalPrune, EvJournalSetAside, EvJournalEvict, EvJournalRestore, EvJournalAsideRelease:
		l.field("op", e.Op)
		l.sum("csum", e.Checksum)
	case EvPrimaryCommit:
		l.field("op", e.Op)
		l.field("acks", e.PrimaryCommitted().Acks)
	case EvStatus:
		p := e.StatusChanged()
		l.lit(" ")
		l.name(uint64(p.Status), p.Status.String())
		l.field("v", p.View)
		l.field("log_view", p.LogView)
		l.field("op", p.Op)
		l.field("commit", p.Commit)
	case EvDrop:
		l.drop(e.Dropped())
	default:
		l.recoveryEvent(e)
	}
}

func (l *Line) drop(p Dropped) {
	l.lit(" ")
	l.name(uint64(p.Command), p.Command.String())
	l.lit(" from=")
	l.integer(p.From)
	l.field("op", p.Op)
	l.lit(" reason=")
	l.str(p.Reason.String())
	l.field("aux", p.Detail)
}

// recoveryEvent adds the fields of a view-change, checkpoint, transfer,
// repair or timeout event.
func (l *Line) recoveryEvent(e *Event) {
	switch e.Kind {
	case EvMergeTruncate:
		l.field("v", e.View)
		l.field("op", e.Op)
		l.sum("csum", e.Checksum)
		l.field("nacks", e.MergeTruncated().Nacks)
	case EvCheckpoint:
		l.field("op", e.Op)
		l.sum("state", e.Checkpointed().StateChecksum)
	case EvTransferInstall:
		l.field("op", e.Op)
		l.field("head", e.TransferInstalled().Head)
	case EvOfferRefused:
		p := e.OfferRefused()
		l.field("commit_op", p.Op)
		l.field("guard", p.Guard)
		l.lit(" reason=")
		l.str(p.Reason.String())
	case EvRepairRequest:
		p := e.RepairRequested()
		l.field("from", p.From)
		l.field("to", p.To)
		l.lit(" peer=r")
		l.integer(p.Peer)
	case EvHold, EvViewEscalate, EvAbdicate, EvResume:
		l.field("v", e.View)
	case EvTimeout:
		l.lit(" ")
		l.str(e.TimedOut().Timer)
	}
}

// AppendMessage appends the canonical text of m.
func AppendMessage(b []byte, m *Message, replicas int) []byte {
	l := Line{Text: true, B: b}
	l.Message(m, replicas)
	return l.B
}

// AppendEvent appends the canonical text of a replica event.
func AppendEvent(b []byte, e *Event) []byte {
	l := Line{Text: true, B: b}
	l.Event(e)
	return l.B
}

func appendOperation(b []byte, o Operation) []byte {
	l := Line{Text: true, B: b}
	l.operation(o)
	return l.B
}
