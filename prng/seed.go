package prng

import (
	"encoding/hex"
	"fmt"
	"strconv"
	"strings"
)

// ParseSeed reads a run seed: a decimal u64, a 0x-prefixed hex u64, or a
// 40-hex-digit git commit hash, which is folded to a u64 (xor of its 64-bit
// words) so CI can seed a run from the commit and stay reproducible.
func ParseSeed(text string) (uint64, error) {
	t := strings.TrimSpace(text)
	if t == "" {
		return 0, fmt.Errorf("seed is empty: want a decimal u64, 0x hex, or a 40-hex commit hash")
	}
	if len(t) == 40 && isHex(t) {
		raw, err := hex.DecodeString(t)
		if err != nil {
			return 0, fmt.Errorf("seed %q: %w", text, err)
		}
		var folded uint64
		for i := 0; i+8 <= len(raw); i += 8 {
			var w uint64
			for _, b := range raw[i : i+8] {
				w = w<<8 | uint64(b)
			}
			folded ^= w
		}
		var tail uint64
		for _, b := range raw[16:] {
			tail = tail<<8 | uint64(b)
		}
		return folded ^ tail, nil
	}
	if strings.HasPrefix(t, "0x") || strings.HasPrefix(t, "0X") {
		v, err := strconv.ParseUint(t[2:], 16, 64)
		if err != nil {
			return 0, fmt.Errorf("seed %q is not a valid 0x hex u64", text)
		}
		return v, nil
	}
	v, err := strconv.ParseUint(t, 10, 64)
	if err != nil {
		return 0, fmt.Errorf("seed %q is not a decimal u64, 0x hex u64, or 40-hex commit hash", text)
	}
	return v, nil
}

func isHex(s string) bool {
	for _, c := range s {
		if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F') {
			return false
		}
	}
	return true
}
