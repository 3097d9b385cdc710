package vsr

import "fmt"

// Command is the kind of a message.
type Command uint8

// Message commands. The numbering is part of the trace hash: append only.
const (
	CmdRequest Command = iota + 1
	CmdReply
	CmdPrepare
	CmdPrepareOK
	CmdCommit
	CmdStartViewChange
	CmdDoViewChange
	CmdStartView
	CmdRequestStartView
	CmdRequestPrepares
	CmdRepairPrepare
	CmdRepairDone
	CmdRangeEvicted
	CmdRequestStateTransfer
	CmdStateTransferOffer
	CmdRequestStateChunk
	CmdStateChunk
	CmdCommitOK
)

var commandNames = [...]string{
	CmdRequest:              "Request",
	CmdReply:                "Reply",
	CmdPrepare:              "Prepare",
	CmdPrepareOK:            "PrepareOk",
	CmdCommit:               "Commit",
	CmdStartViewChange:      "StartViewChange",
	CmdDoViewChange:         "DoViewChange",
	CmdStartView:            "StartView",
	CmdRequestStartView:     "RequestStartView",
	CmdRequestPrepares:      "RequestPrepares",
	CmdRepairPrepare:        "RepairPrepare",
	CmdRepairDone:           "RepairDone",
	CmdRangeEvicted:         "RangeEvicted",
	CmdRequestStateTransfer: "RequestStateTransfer",
	CmdStateTransferOffer:   "StateTransferOffer",
	CmdRequestStateChunk:    "RequestStateChunk",
	CmdStateChunk:           "StateChunk",
	CmdCommitOK:             "CommitOk",
}

func (c Command) String() string {
	if int(c) < len(commandNames) && commandNames[c] != "" {
		return commandNames[c]
	}
	return fmt.Sprintf("Command(%d)", uint8(c))
}

// OpKind is the kind of a state-machine operation.
type OpKind uint8

// Operations of the key-value state machine.
const (
	OpNoop OpKind = iota
	OpPut         // returns the previous value
	OpGet         // returns the current value
	OpIncr        // adds Value and returns the new value: not idempotent, so a re-execution shows
)

// Operation is a request body: a small key-value command. It is a value type so
// no memory is shared between replicas.
type Operation struct {
	Kind  OpKind
	Key   uint32
	Value uint64
}

// Header describes one prepare. The checksum covers every field but View, so a
// prepare can be restamped into a later view without changing its identity.
type Header struct {
	Op        uint64
	View      uint64
	Parent    uint64
	Checksum  uint64
	Commit    uint64
	Client    uint64
	Request   uint64
	Timestamp uint64
	Body      Operation
}

// Valid reports whether the header's checksum matches its contents.
func (h *Header) Valid() bool { return h.Checksum == h.computeChecksum() }

// Seal sets the checksum from the header's contents.
func (h *Header) Seal() { h.Checksum = h.computeChecksum() }

// headerChecksumSeed starts the header checksum's fold.
const headerChecksumSeed = 0x6a09e667f3bcc909

// checksumWords are the words the header checksum covers, in order.
func (h *Header) checksumWords() [9]uint64 {
	return [...]uint64{h.Op, h.Parent, h.Commit, h.Client, h.Request, h.Timestamp,
		uint64(h.Body.Kind), uint64(h.Body.Key), h.Body.Value}
}

func (h *Header) computeChecksum() uint64 {
	x := uint64(headerChecksumSeed)
	for _, w := range h.checksumWords() {
		x = ChecksumMix(x ^ w)
	}
	return finishChecksum(x)
}

func finishChecksum(x uint64) uint64 {
	if x == 0 {
		x = 1 // zero means "no header"
	}
	return x
}

// ValidAlong is Valid, and folds words into x alongside (x = ChecksumMix(x ^
// w) for each, in order), which it returns: a record read back from a disk
// checks its own checksum and its header's, two chains of multiplies that
// one loop runs side by side instead of one after the other (the harness
// and the replicas read every journal record, about 8,000 a run on disks).
func (h *Header) ValidAlong(x uint64, words []uint64) (bool, uint64) {
	hw := h.checksumWords()
	y := uint64(headerChecksumSeed)
	both := min(len(words), len(hw))
	for i := range both {
		x, y = ChecksumMix(x^words[i]), ChecksumMix(y^hw[i])
	}
	for _, w := range words[both:] {
		x = ChecksumMix(x ^ w)
	}
	for _, w := range hw[both:] {
		y = ChecksumMix(y ^ w)
	}
	return h.Checksum == finishChecksum(y), x
}

func ChecksumMix(x uint64) uint64 {
	x ^= x >> 33
	x *= 0xff51afd7ed558ccd
	x ^= x >> 33
	x *= 0xc4ceb9fe1a85ec53
	x ^= x >> 33
	return x
}

// SuffixEntry is one header of a DoViewChange suffix or a StartView. Nack means the
// sender proves it never prepared the op; Present means it holds the body.
// Unsure marks a header without a body that the sender may nevertheless have
// acknowledged before it lost its journal: it is neither a nack nor a copy.
type SuffixEntry struct {
	Header  Header
	Nack    bool
	Present bool
	Unsure  bool
}

// Blank reports whether the entry carries no header (the sender knows nothing of it).
func (e *SuffixEntry) Blank() bool { return e.Header.Checksum == 0 }

// Envelope is what every message carries whatever its command.
type Envelope struct {
	Command Command
	From    int    // sender node id (replica or client)
	To      int    // receiver node id
	View    uint64 // the sender's view (a client's: the view it last heard of)
}

// Message is every message of the protocol in one value type: an envelope
// and the payload its command names (payload.go), read through that
// command's accessor. Slices and snapshots are never mutated after send;
// receivers copy what they keep.
type Message struct {
	Envelope
	w        words
	suffix   []SuffixEntry // DoViewChange, StartView
	snapshot *Snapshot     // StateChunk
}

// InView returns m addressed to view v.
func (m Message) InView(v uint64) Message {
	m.View = v
	return m
}

func (o Operation) String() string {
	return string(appendOperation(nil, o))
}

// Routed returns m from node from to node to in view: the envelope a harness
// or a test fills in where a replica's send would.
func (m Message) Routed(from, to int, view uint64) Message {
	m.From, m.To, m.View = from, to, view
	return m
}
