package sim

import (
	"fmt"
	"strconv"
	"strings"

	"vsrsim/replica"
)

// protocolNames are the `protocol` setting's words, one per source mechanism
// of replica.Protocol; protocolString writes the same names.
var protocolNames = []string{"abdication-off", "svc-quorum-off", "backoff-off", "source-transfer"}

// parseProtocol reads `protocol NAME[,NAME..]` (or names separated by
// spaces); "robust" names none of them.
func parseProtocol(value string) (replica.Protocol, error) {
	var p replica.Protocol
	names := strings.FieldsFunc(value, func(r rune) bool { return r == ',' || r == ' ' || r == '\t' })
	if len(names) == 0 {
		return p, fmt.Errorf("protocol: want robust or %s", strings.Join(protocolNames, ", "))
	}
	for _, name := range names {
		switch name {
		case "robust":
		case "abdication-off":
			p.AbdicationOff = true
		case "svc-quorum-off":
			p.SVCQuorumOff = true
		case "backoff-off":
			p.BackoffOff = true
		case "source-transfer":
			p.SourceTransfer = true
		default:
			return p, fmt.Errorf("protocol %q: want robust or %s", name, strings.Join(protocolNames, ", "))
		}
	}
	return p, nil
}

// mergeProtocol is a repeated `protocol` line: each names more mechanisms.
func mergeProtocol(a, b replica.Protocol) replica.Protocol {
	return replica.Protocol{
		AbdicationOff:  a.AbdicationOff || b.AbdicationOff,
		SVCQuorumOff:   a.SVCQuorumOff || b.SVCQuorumOff,
		BackoffOff:     a.BackoffOff || b.BackoffOff,
		SourceTransfer: a.SourceTransfer || b.SourceTransfer,
	}
}

// ProtocolSetting is p as a `protocol` setting's value.
func ProtocolSetting(p replica.Protocol) string {
	s := protocolString(p)
	if p.SourceTransfer {
		if s == "robust" {
			return "source-transfer"
		}
		s += ",source-transfer"
	}
	return s
}

// parseLink reads FROM->TO between replica indexes.
func parseLink(s string) (Link, error) {
	a, b, ok := strings.Cut(s, "->")
	from, err1 := strconv.Atoi(a)
	to, err2 := strconv.Atoi(b)
	if !ok || err1 != nil || err2 != nil || from < 0 || to < 0 || from == to || max(from, to) >= replica.ReplicasMax {
		return Link{}, fmt.Errorf("%q: want FROM->TO, two replica indexes", s)
	}
	return Link{from, to}, nil
}
