package replica

import "strconv"

// Canonical one-line forms of messages and events. They feed the trace hash, so
// they are built with strconv appends (no allocation per line) and must change
// only on purpose: every recorded trace hash changes with them.

// AppendNode appends a node's name: r<i> for replicas, c<j> for clients.
func AppendNode(b []byte, id, replicas int) []byte {
	if id < replicas {
		b = append(b, 'r')
		return strconv.AppendInt(b, int64(id), 10)
	}
	b = append(b, 'c')
	return strconv.AppendInt(b, int64(id-replicas), 10)
}

func appendField(b []byte, name string, v uint64) []byte {
	b = append(b, ' ')
	b = append(b, name...)
	b = append(b, '=')
	return strconv.AppendUint(b, v, 10)
}

func appendSum(b []byte, name string, v uint64) []byte {
	b = append(b, ' ')
	b = append(b, name...)
	b = append(b, '=')
	const digits = "0123456789abcdef"
	v &= 0xffff
	return append(b, digits[v>>12&0xf], digits[v>>8&0xf], digits[v>>4&0xf], digits[v&0xf])
}

func appendOperation(b []byte, o Operation) []byte {
	switch o.Kind {
	case OpPut, OpIncr:
		if o.Kind == OpPut {
			b = append(b, "put("...)
		} else {
			b = append(b, "incr("...)
		}
		b = strconv.AppendUint(b, uint64(o.Key), 10)
		b = append(b, ',')
		b = strconv.AppendUint(b, o.Value, 10)
		return append(b, ')')
	case OpGet:
		b = append(b, "get("...)
		b = strconv.AppendUint(b, uint64(o.Key), 10)
		return append(b, ')')
	}
	return append(b, "noop"...)
}

// AppendMessage appends the canonical form of m: "r1->r2 Prepare v=3 op=17 ...".
func AppendMessage(b []byte, m *Message, replicas int) []byte {
	b = AppendNode(b, m.From, replicas)
	b = append(b, "->"...)
	b = AppendNode(b, m.To, replicas)
	b = append(b, ' ')
	b = append(b, m.Command.String()...)
	b = appendField(b, "v", m.View)
	if m.Command <= CmdCommit || m.Command == CmdCommitOK {
		return appendNormalFields(b, m)
	}
	return appendRecoveryFields(b, m)
}

// appendNormalFields appends the fields of a normal-operation message.
func appendNormalFields(b []byte, m *Message) []byte {
	switch m.Command {
	case CmdRequest:
		b = appendField(b, "req", m.Request)
		b = append(b, ' ')
		b = appendOperation(b, m.Body)
	case CmdReply:
		b = appendField(b, "req", m.Request)
		b = appendField(b, "op", m.Op)
		b = appendField(b, "result", m.Result)
	case CmdPrepare:
		b = appendField(b, "op", m.Header.Op)
		b = appendField(b, "commit", m.Header.Commit)
		b = appendSum(b, "csum", m.Header.Checksum)
	case CmdPrepareOK:
		b = appendField(b, "op", m.Header.Op)
		b = appendSum(b, "csum", m.Header.Checksum)
		b = appendField(b, "inc", m.Incarnation)
	case CmdCommit:
		b = appendField(b, "commit", m.Commit)
		b = appendField(b, "hb", m.Heartbeat)
		if m.Abdicated {
			b = append(b, " abdicated"...)
		}
	case CmdCommitOK:
		b = appendField(b, "commit", m.Commit)
		b = appendField(b, "inc", m.Incarnation)
	}
	return b
}

// appendRecoveryFields appends the fields of a view-change, repair or
// state-transfer message.
func appendRecoveryFields(b []byte, m *Message) []byte {
	switch m.Command {
	case CmdRepairPrepare:
		b = appendField(b, "op", m.Header.Op)
		b = appendField(b, "commit", m.Header.Commit)
		b = appendSum(b, "csum", m.Header.Checksum)
	case CmdStartViewChange:
		if m.Leave {
			b = append(b, " leave"...)
		}
	case CmdDoViewChange, CmdStartView:
		b = appendField(b, "log_view", m.LogView)
		b = appendField(b, "op", m.Op)
		b = appendField(b, "commit", m.Commit)
		b = appendField(b, "suffix", uint64(len(m.Suffix)))
		if len(m.Suffix) > 0 {
			b = appendField(b, "top", m.Suffix[0].Header.Op)
		}
	case CmdRequestStartView:
		b = appendField(b, "inc", m.Incarnation)
		b = appendField(b, "nonce", m.Nonce)
	case CmdRequestPrepares:
		b = appendField(b, "from", m.Op)
		b = appendField(b, "to", m.OpTo)
	case CmdRepairDone, CmdRangeEvicted:
		b = appendField(b, "op", m.Op)
	case CmdStateTransferOffer:
		b = appendField(b, "commit_op", m.SnapshotOp)
	case CmdRequestStateChunk, CmdStateChunk:
		b = appendField(b, "commit_op", m.SnapshotOp)
		b = appendField(b, "chunk", uint64(m.Chunk))
	}
	return b
}

// AppendEvent appends the canonical form of a replica event.
func AppendEvent(b []byte, e *Event) []byte {
	b = append(b, 'r')
	b = strconv.AppendInt(b, int64(e.Replica), 10)
	b = append(b, ' ')
	b = append(b, e.Kind.String()...)
	switch e.Kind {
	case EvCommit, EvJournalAppend, EvJournalTruncate, EvAck, EvJournalPrune, EvJournalSetAside:
		b = appendField(b, "op", e.Op)
		b = appendSum(b, "csum", e.Checksum)
	case EvPrimaryCommit:
		b = appendField(b, "op", e.Op)
		b = appendField(b, "acks", e.Acks())
	case EvStatus:
		b = append(b, ' ')
		b = append(b, e.Status.String()...)
		b = appendField(b, "v", e.View)
		b = appendField(b, "log_view", e.LogView)
		b = appendField(b, "op", e.Op)
		b = appendField(b, "commit", e.Commit)
	case EvDrop:
		b = append(b, ' ')
		b = append(b, e.Command.String()...)
		b = append(b, " from="...)
		b = strconv.AppendInt(b, int64(e.Peer), 10)
		b = appendField(b, "op", e.Op)
		b = append(b, " reason="...)
		b = append(b, e.Reason.String()...)
		b = appendField(b, "aux", e.DropDetail())
	case EvMergeTruncate:
		b = appendField(b, "v", e.View)
		b = appendField(b, "op", e.Op)
		b = appendSum(b, "csum", e.Checksum)
		b = appendField(b, "nacks", e.Nacks())
	case EvCheckpoint:
		b = appendField(b, "op", e.Op)
		b = appendSum(b, "state", e.StateChecksum())
	case EvTransferInstall:
		b = appendField(b, "op", e.Op)
		b = appendField(b, "head", e.Head())
	case EvOfferRefused:
		b = appendField(b, "commit_op", e.Op)
		b = appendField(b, "guard", e.Guard())
		b = append(b, " reason="...)
		b = append(b, e.Reason.String()...)
	case EvRepairRequest:
		b = appendField(b, "from", e.Op)
		b = appendField(b, "to", e.RangeEnd())
		b = append(b, " peer=r"...)
		b = strconv.AppendInt(b, int64(e.Peer), 10)
	case EvHold, EvViewEscalate, EvAbdicate, EvResume:
		b = appendField(b, "v", e.View)
	case EvTimeout:
		b = append(b, ' ')
		b = append(b, e.Timer...)
	}
	return b
}
