package vsr

// Typed payloads. A Message is an envelope (command, sender, receiver, view)
// and a payload whose type the command names. The payload travels as words in
// the message (TigerBeetle reinterprets a command-specific header the same
// way), so every command's message is one value of one size, copied through
// the network's pool without boxing; each payload type has a constructor
// (Message) and an accessor on Message of the same name, and the accessor
// panics on a message of another command. A handler receives the decoded
// payload, so it can read only the fields its command carries, each of which
// has one meaning. Only this file reads or writes the words.

// payloadWords is the largest payload: a RepairPrepare's header and commit.
const payloadWords = headerWords + 1

// headerWords holds a Header: the Body's kind and key share a word.
const headerWords = 10

// Request is a client's operation (CmdRequest).
type Request struct {
	Client  uint64    // the client's node id
	Request uint64    // the client's request number (a retry repeats it)
	Body    Operation // what to execute
}

// Reply answers a request once its op committed (CmdReply).
type Reply struct {
	Client  uint64 // the client it answers
	Request uint64 // the request it answers
	Op      uint64 // the op the request committed as
	Result  uint64 // what the operation returned
}

// Prepare replicates one op (CmdPrepare).
type Prepare struct {
	Header Header // the prepare: its op, parent chain, commit point and request
}

// PrepareOk acknowledges that the sender journaled a prepare (CmdPrepareOK).
type PrepareOk struct {
	Op       uint64 // the acknowledged op
	Checksum uint64 // its checksum
	Parent   uint64 // its parent's checksum
	// Incarnation is the sender's: an ack from an earlier one speaks for a
	// journal a restart may have wiped.
	Incarnation uint64
}

// Commit is the primary's heartbeat (CmdCommit).
type Commit struct {
	Commit    uint64 // the primary's commit_max
	Heartbeat uint64 // monotonic within a view
	// Abdicated: the primary heard no quorum lately; it asks its backups to
	// answer but no longer holds their timeouts.
	Abdicated bool
}

// CommitOk answers a heartbeat (CmdCommitOK).
type CommitOk struct {
	Commit   uint64 // the sender's commit_min
	Checksum uint64 // the checksum of the prepare at Commit
	// Incarnation is the sender's, as in PrepareOk.
	Incarnation uint64
}

// StartViewChange announces a view change into the message's view (CmdStartViewChange).
type StartViewChange struct {
	// Leave: the sender asks to leave the message's view rather than
	// announcing a change into it.
	Leave bool
}

// DoViewChange is a vote for the message's view, sent to its primary (CmdDoViewChange).
type DoViewChange struct {
	LogView uint64 // the view in which the sender's log was last settled
	Op      uint64 // the head op of the sender's log
	Commit  uint64 // the commit point the vote states
	// Suffix is the sender's log from the head down (see SuffixEntry);
	// read-only, shared between receivers.
	Suffix []SuffixEntry
}

// StartView is a primary's log for its view (CmdStartView).
type StartView struct {
	LogView uint64 // the primary's log_view: the view itself
	Op      uint64 // the head op of the primary's log
	Commit  uint64 // the primary's commit_max
	// Suffix holds the headers from the head down to the commit point;
	// read-only, shared between receivers.
	Suffix []SuffixEntry
	Nonce  uint64 // the RequestStartView nonce it answers, 0 if none
}

// RequestStartView asks a view's primary for its StartView (CmdRequestStartView).
type RequestStartView struct {
	Incarnation uint64 // the sender's
	Nonce       uint64 // echoed by the StartView that answers
}

// RequestPrepares asks a peer for the prepares of an op range (CmdRequestPrepares).
type RequestPrepares struct {
	From uint64 // the first op wanted
	To   uint64 // the last op wanted
}

// RepairPrepare is one prepare sent in answer to RequestPrepares (CmdRepairPrepare).
type RepairPrepare struct {
	Header Header // the prepare asked for, restamped into the sender's view
	Commit uint64 // the sender's commit_min: every op to there is canonical
}

// RepairDone closes the answer to a RequestPrepares (CmdRepairDone).
type RepairDone struct {
	Last uint64 // the highest op sent, 0 if none
}

// RangeEvicted says the sender no longer retains the range asked for (CmdRangeEvicted).
type RangeEvicted struct {
	First uint64 // the lowest op the sender still retains
}

// RequestStateTransfer asks for an offer of a checkpoint (CmdRequestStateTransfer).
type RequestStateTransfer struct{}

// StateTransferOffer offers a checkpoint (CmdStateTransferOffer).
type StateTransferOffer struct {
	SnapshotOp uint64 // the op of the offered checkpoint
}

// RequestStateChunk asks for one chunk of an offered checkpoint (CmdRequestStateChunk).
type RequestStateChunk struct {
	SnapshotOp uint64 // the op of the offered checkpoint
	Chunk      int    // the chunk wanted, 0..SnapshotChunks-1
}

// StateChunk is one chunk of a checkpoint (CmdStateChunk).
type StateChunk struct {
	SnapshotOp uint64 // the op of the checkpoint
	Chunk      int    // which chunk, 0..SnapshotChunks-1
	// Snapshot is the checkpoint itself: read-only, shared immutably.
	Snapshot *Snapshot
}

type words = [payloadWords]uint64

func putHeader(w *words, h *Header) {
	w[0], w[1], w[2], w[3], w[4] = h.Op, h.View, h.Parent, h.Checksum, h.Commit
	w[5], w[6], w[7] = h.Client, h.Request, h.Timestamp
	w[8] = uint64(h.Body.Kind) | uint64(h.Body.Key)<<8
	w[9] = h.Body.Value
}

func getHeader(w *words) Header {
	return Header{Op: w[0], View: w[1], Parent: w[2], Checksum: w[3], Commit: w[4],
		Client: w[5], Request: w[6], Timestamp: w[7],
		Body: Operation{Kind: OpKind(w[8]), Key: uint32(w[8] >> 8), Value: w[9]}}
}

func boolWord(b bool) uint64 {
	if b {
		return 1
	}
	return 0
}

// must panics on a payload read from a message of another command: a caller
// bug, never a network fault, since the gate dispatches by command.
// The panic's value is a constant, so every accessor stays cheap enough to
// inline; the stack names the accessor and its caller.
func (m *Message) must(c Command) {
	if m.Command != c {
		panic("replica: a payload read from a message of another command")
	}
}

// Message returns p as a message; the sender fills in the envelope.
func (p Request) Message() Message {
	m := Message{Envelope: Envelope{Command: CmdRequest}}
	m.w[0], m.w[1] = p.Client, p.Request
	m.w[2], m.w[3] = uint64(p.Body.Kind)|uint64(p.Body.Key)<<8, p.Body.Value
	return m
}

// Request returns a CmdRequest's payload.
func (m *Message) Request() Request {
	m.must(CmdRequest)
	return Request{Client: m.w[0], Request: m.w[1],
		Body: Operation{Kind: OpKind(m.w[2]), Key: uint32(m.w[2] >> 8), Value: m.w[3]}}
}

// Message returns p as a message.
func (p Reply) Message() Message {
	m := Message{Envelope: Envelope{Command: CmdReply}}
	m.w[0], m.w[1], m.w[2], m.w[3] = p.Client, p.Request, p.Op, p.Result
	return m
}

// Reply returns a CmdReply's payload.
func (m *Message) Reply() Reply {
	m.must(CmdReply)
	return Reply{Client: m.w[0], Request: m.w[1], Op: m.w[2], Result: m.w[3]}
}

// Message returns p as a message.
func (p Prepare) Message() Message {
	m := Message{Envelope: Envelope{Command: CmdPrepare}}
	putHeader(&m.w, &p.Header)
	return m
}

// Prepare returns a CmdPrepare's payload.
func (m *Message) Prepare() Prepare {
	m.must(CmdPrepare)
	return Prepare{Header: getHeader(&m.w)}
}

// Message returns p as a message.
func (p PrepareOk) Message() Message {
	m := Message{Envelope: Envelope{Command: CmdPrepareOK}}
	m.w[0], m.w[1], m.w[2], m.w[3] = p.Op, p.Checksum, p.Parent, p.Incarnation
	return m
}

// PrepareOk returns a CmdPrepareOK's payload.
func (m *Message) PrepareOk() PrepareOk {
	m.must(CmdPrepareOK)
	return PrepareOk{Op: m.w[0], Checksum: m.w[1], Parent: m.w[2], Incarnation: m.w[3]}
}

// Message returns p as a message.
func (p Commit) Message() Message {
	m := Message{Envelope: Envelope{Command: CmdCommit}}
	m.w[0], m.w[1], m.w[2] = p.Commit, p.Heartbeat, boolWord(p.Abdicated)
	return m
}

// Commit returns a CmdCommit's payload.
func (m *Message) Commit() Commit {
	m.must(CmdCommit)
	return Commit{Commit: m.w[0], Heartbeat: m.w[1], Abdicated: m.w[2] != 0}
}

// Message returns p as a message.
func (p CommitOk) Message() Message {
	m := Message{Envelope: Envelope{Command: CmdCommitOK}}
	m.w[0], m.w[1], m.w[2] = p.Commit, p.Checksum, p.Incarnation
	return m
}

// CommitOk returns a CmdCommitOK's payload.
func (m *Message) CommitOk() CommitOk {
	m.must(CmdCommitOK)
	return CommitOk{Commit: m.w[0], Checksum: m.w[1], Incarnation: m.w[2]}
}

// Message returns p as a message.
func (p StartViewChange) Message() Message {
	m := Message{Envelope: Envelope{Command: CmdStartViewChange}}
	m.w[0] = boolWord(p.Leave)
	return m
}

// StartViewChange returns a CmdStartViewChange's payload.
func (m *Message) StartViewChange() StartViewChange {
	m.must(CmdStartViewChange)
	return StartViewChange{Leave: m.w[0] != 0}
}

// Message returns p as a message.
func (p DoViewChange) Message() Message {
	m := Message{Envelope: Envelope{Command: CmdDoViewChange}, suffix: p.Suffix}
	m.w[0], m.w[1], m.w[2] = p.LogView, p.Op, p.Commit
	return m
}

// DoViewChange returns a CmdDoViewChange's payload.
func (m *Message) DoViewChange() DoViewChange {
	m.must(CmdDoViewChange)
	return DoViewChange{LogView: m.w[0], Op: m.w[1], Commit: m.w[2], Suffix: m.suffix}
}

// Message returns p as a message.
func (p StartView) Message() Message {
	m := Message{Envelope: Envelope{Command: CmdStartView}, suffix: p.Suffix}
	m.w[0], m.w[1], m.w[2], m.w[3] = p.LogView, p.Op, p.Commit, p.Nonce
	return m
}

// StartView returns a CmdStartView's payload.
func (m *Message) StartView() StartView {
	m.must(CmdStartView)
	return StartView{LogView: m.w[0], Op: m.w[1], Commit: m.w[2], Nonce: m.w[3], Suffix: m.suffix}
}

// Message returns p as a message.
func (p RequestStartView) Message() Message {
	m := Message{Envelope: Envelope{Command: CmdRequestStartView}}
	m.w[0], m.w[1] = p.Incarnation, p.Nonce
	return m
}

// RequestStartView returns a CmdRequestStartView's payload.
func (m *Message) RequestStartView() RequestStartView {
	m.must(CmdRequestStartView)
	return RequestStartView{Incarnation: m.w[0], Nonce: m.w[1]}
}

// Message returns p as a message.
func (p RequestPrepares) Message() Message {
	m := Message{Envelope: Envelope{Command: CmdRequestPrepares}}
	m.w[0], m.w[1] = p.From, p.To
	return m
}

// RequestPrepares returns a CmdRequestPrepares's payload.
func (m *Message) RequestPrepares() RequestPrepares {
	m.must(CmdRequestPrepares)
	return RequestPrepares{From: m.w[0], To: m.w[1]}
}

// Message returns p as a message.
func (p RepairPrepare) Message() Message {
	m := Message{Envelope: Envelope{Command: CmdRepairPrepare}}
	putHeader(&m.w, &p.Header)
	m.w[headerWords] = p.Commit
	return m
}

// RepairPrepare returns a CmdRepairPrepare's payload.
func (m *Message) RepairPrepare() RepairPrepare {
	m.must(CmdRepairPrepare)
	return RepairPrepare{Header: getHeader(&m.w), Commit: m.w[headerWords]}
}

// Message returns p as a message.
func (p RepairDone) Message() Message {
	m := Message{Envelope: Envelope{Command: CmdRepairDone}}
	m.w[0] = p.Last
	return m
}

// RepairDone returns a CmdRepairDone's payload.
func (m *Message) RepairDone() RepairDone {
	m.must(CmdRepairDone)
	return RepairDone{Last: m.w[0]}
}

// Message returns p as a message.
func (p RangeEvicted) Message() Message {
	m := Message{Envelope: Envelope{Command: CmdRangeEvicted}}
	m.w[0] = p.First
	return m
}

// RangeEvicted returns a CmdRangeEvicted's payload.
func (m *Message) RangeEvicted() RangeEvicted {
	m.must(CmdRangeEvicted)
	return RangeEvicted{First: m.w[0]}
}

// Message returns p as a message.
func (p RequestStateTransfer) Message() Message {
	return Message{Envelope: Envelope{Command: CmdRequestStateTransfer}}
}

// RequestStateTransfer returns a CmdRequestStateTransfer's (empty) payload.
func (m *Message) RequestStateTransfer() RequestStateTransfer {
	m.must(CmdRequestStateTransfer)
	return RequestStateTransfer{}
}

// Message returns p as a message.
func (p StateTransferOffer) Message() Message {
	m := Message{Envelope: Envelope{Command: CmdStateTransferOffer}}
	m.w[0] = p.SnapshotOp
	return m
}

// StateTransferOffer returns a CmdStateTransferOffer's payload.
func (m *Message) StateTransferOffer() StateTransferOffer {
	m.must(CmdStateTransferOffer)
	return StateTransferOffer{SnapshotOp: m.w[0]}
}

// Message returns p as a message.
func (p RequestStateChunk) Message() Message {
	m := Message{Envelope: Envelope{Command: CmdRequestStateChunk}}
	m.w[0], m.w[1] = p.SnapshotOp, uint64(int64(p.Chunk))
	return m
}

// RequestStateChunk returns a CmdRequestStateChunk's payload.
func (m *Message) RequestStateChunk() RequestStateChunk {
	m.must(CmdRequestStateChunk)
	return RequestStateChunk{SnapshotOp: m.w[0], Chunk: int(int64(m.w[1]))}
}

// Message returns p as a message.
func (p StateChunk) Message() Message {
	m := Message{Envelope: Envelope{Command: CmdStateChunk}, snapshot: p.Snapshot}
	m.w[0], m.w[1] = p.SnapshotOp, uint64(int64(p.Chunk))
	return m
}

// StateChunk returns a CmdStateChunk's payload.
func (m *Message) StateChunk() StateChunk {
	m.must(CmdStateChunk)
	return StateChunk{SnapshotOp: m.w[0], Chunk: int(int64(m.w[1])), Snapshot: m.snapshot}
}

// SenderIncarnation returns the sender's incarnation where its command
// carries one (PrepareOk, CommitOk, RequestStartView), else 0.
func (m *Message) SenderIncarnation() uint64 {
	switch m.Command {
	case CmdPrepareOK:
		return m.PrepareOk().Incarnation
	case CmdCommitOK:
		return m.CommitOk().Incarnation
	case CmdRequestStartView:
		return m.RequestStartView().Incarnation
	}
	return 0
}

// dropOp is the op a drop event names for m: the op of the prepare a
// message carries or acknowledges, the head or range start a view-change or
// repair message names, a reply's op; 0 for the rest.
func (m *Message) DropOp() uint64 {
	switch m.Command {
	case CmdPrepare, CmdRepairPrepare:
		if h := getHeader(&m.w); h.Checksum != 0 {
			return h.Op
		}
	case CmdPrepareOK:
		if p := m.PrepareOk(); p.Checksum != 0 {
			return p.Op
		}
	case CmdCommitOK:
		if p := m.CommitOk(); p.Checksum != 0 {
			return p.Commit
		}
	case CmdReply:
		return m.Reply().Op
	case CmdDoViewChange:
		return m.DoViewChange().Op
	case CmdStartView:
		return m.StartView().Op
	case CmdRequestPrepares:
		return m.RequestPrepares().From
	case CmdRepairDone:
		return m.RepairDone().Last
	case CmdRangeEvicted:
		return m.RangeEvicted().First
	}
	return 0
}
