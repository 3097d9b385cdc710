package settings

import (
	"fmt"
	"strings"

	"vsrsim/replica"
)

// protocolSwitches are the `protocol` setting's words, one per source
// mechanism of replica.Protocol, in the order a setting or a dump writes them.
// Parsing, merging and writing all walk this one table, so a new option is
// one line here.
var protocolSwitches = []struct {
	name  string
	field func(p *replica.Protocol) *bool
}{
	{"svc-quorum-off", func(p *replica.Protocol) *bool { return &p.SVCQuorumOff }},
	{"abdication-off", func(p *replica.Protocol) *bool { return &p.AbdicationOff }},
	{"backoff-off", func(p *replica.Protocol) *bool { return &p.BackoffOff }},
	{"push-start-view-off", func(p *replica.Protocol) *bool { return &p.PushStartViewOff }},
	{"source-transfer", func(p *replica.Protocol) *bool { return &p.SourceTransfer }},
	{"abdicate-by-hearing", func(p *replica.Protocol) *bool { return &p.AbdicateByHearing }},
	{"backup-replies-off", func(p *replica.Protocol) *bool { return &p.BackupRepliesOff }},
	{"relay-start-view-off", func(p *replica.Protocol) *bool { return &p.RelayStartViewOff }},
	{"backoff-reset-off", func(p *replica.Protocol) *bool { return &p.BackoffResetOff }},
	{"prepare-repair-off", func(p *replica.Protocol) *bool { return &p.PrepareRepairOff }},
}

func protocolWant() string {
	return "want robust or " + strings.Join(ProtocolWords(), ", ")
}

// parseProtocol reads `protocol NAME[,NAME..]` (or names separated by
// spaces); "robust" names none of them.
func parseProtocol(value string) (replica.Protocol, error) {
	var p replica.Protocol
	names := strings.FieldsFunc(value, func(r rune) bool { return r == ',' || r == ' ' || r == '\t' })
	if len(names) == 0 {
		return p, fmt.Errorf("protocol: %s", protocolWant())
	}
next:
	for _, name := range names {
		if name == "robust" {
			continue
		}
		for _, sw := range protocolSwitches {
			if sw.name == name {
				*sw.field(&p) = true
				continue next
			}
		}
		return p, fmt.Errorf("protocol %q: %s", name, protocolWant())
	}
	return p, nil
}

// mergeProtocol is a repeated `protocol` line: each names more mechanisms.
func mergeProtocol(a, b replica.Protocol) replica.Protocol {
	for _, sw := range protocolSwitches {
		*sw.field(&a) = *sw.field(&a) || *sw.field(&b)
	}
	return a
}

// Protocol is p as a `protocol` setting's value: "robust", or the
// names of the mechanisms it turns off (or, source-transfer, models).
func Protocol(p replica.Protocol) string {
	var on []string
	for _, sw := range protocolSwitches {
		if *sw.field(&p) {
			on = append(on, sw.name)
		}
	}
	if len(on) == 0 {
		return "robust"
	}
	return strings.Join(on, ",")
}

// ProtocolWords are the `protocol` setting's words, in table order.
func ProtocolWords() []string {
	names := make([]string, len(protocolSwitches))
	for i, sw := range protocolSwitches {
		names[i] = sw.name
	}
	return names
}
