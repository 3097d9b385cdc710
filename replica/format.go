package replica

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
		l.field("req", m.Request)
		l.lit(" ")
		l.operation(m.Body)
	case CmdReply:
		l.field("req", m.Request)
		l.field("op", m.Op)
		l.field("result", m.Result)
	case CmdPrepare:
		l.field("op", m.Header.Op)
		l.field("commit", m.Header.Commit)
		l.sum("csum", m.Header.Checksum)
	case CmdPrepareOK:
		l.field("op", m.Header.Op)
		l.sum("csum", m.Header.Checksum)
		l.field("inc", m.Incarnation)
	case CmdCommit:
		l.field("commit", m.Commit)
		l.field("hb", m.Heartbeat)
		l.flag(" abdicated", m.Abdicated)
	case CmdCommitOK:
		l.field("commit", m.Commit)
		l.field("inc", m.Incarnation)
	}
}

// recoveryFields adds the fields of a view-change, repair or state-transfer
// message.
func (l *Line) recoveryFields(m *Message) {
	switch m.Command {
	case CmdRepairPrepare:
		l.field("op", m.Header.Op)
		l.field("commit", m.Header.Commit)
		l.sum("csum", m.Header.Checksum)
	case CmdStartViewChange:
		l.flag(" leave", m.Leave)
	case CmdDoViewChange, CmdStartView:
		l.field("log_view", m.LogView)
		l.field("op", m.Op)
		l.field("commit", m.Commit)
		l.field("suffix", uint64(len(m.Suffix)))
		if len(m.Suffix) > 0 {
			l.field("top", m.Suffix[0].Header.Op)
		}
	case CmdRequestStartView:
		l.field("inc", m.Incarnation)
		l.field("nonce", m.Nonce)
	case CmdRequestPrepares:
		l.field("from", m.Op)
		l.field("to", m.OpTo)
	case CmdRepairDone, CmdRangeEvicted:
		l.field("op", m.Op)
	case CmdStateTransferOffer:
		l.field("commit_op", m.SnapshotOp)
	case CmdRequestStateChunk, CmdStateChunk:
		l.field("commit_op", m.SnapshotOp)
		l.field("chunk", uint64(m.Chunk))
	}
}

// Event adds a replica event's canonical form.
func (l *Line) Event(e *Event) {
	l.lit("r")
	l.integer(e.Replica)
	l.lit(" ")
	l.name(uint64(e.Kind), e.Kind.String())
	switch e.Kind {
	case EvCommit, EvJournalAppend, EvJournalTruncate, EvAck, EvJournalPrune, EvJournalSetAside:
		l.field("op", e.Op)
		l.sum("csum", e.Checksum)
	case EvPrimaryCommit:
		l.field("op", e.Op)
		l.field("acks", e.Acks())
	case EvStatus:
		l.lit(" ")
		l.name(uint64(e.Status), e.Status.String())
		l.field("v", e.View)
		l.field("log_view", e.LogView)
		l.field("op", e.Op)
		l.field("commit", e.Commit)
	case EvDrop:
		l.lit(" ")
		l.name(uint64(e.Command), e.Command.String())
		l.lit(" from=")
		l.integer(e.Peer)
		l.field("op", e.Op)
		l.lit(" reason=")
		l.str(e.Reason.String())
		l.field("aux", e.DropDetail())
	case EvMergeTruncate:
		l.field("v", e.View)
		l.field("op", e.Op)
		l.sum("csum", e.Checksum)
		l.field("nacks", e.Nacks())
	case EvCheckpoint:
		l.field("op", e.Op)
		l.sum("state", e.StateChecksum())
	case EvTransferInstall:
		l.field("op", e.Op)
		l.field("head", e.Head())
	case EvOfferRefused:
		l.field("commit_op", e.Op)
		l.field("guard", e.Guard())
		l.lit(" reason=")
		l.str(e.Reason.String())
	case EvRepairRequest:
		l.field("from", e.Op)
		l.field("to", e.RangeEnd())
		l.lit(" peer=r")
		l.integer(e.Peer)
	case EvHold, EvViewEscalate, EvAbdicate, EvResume:
		l.field("v", e.View)
	case EvTimeout:
		l.lit(" ")
		l.str(e.Timer)
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
