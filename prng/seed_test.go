package prng

import (
	"strings"
	"testing"
)

func TestParseSeed(t *testing.T) {
	cases := []struct {
		in   string
		want uint64
	}{
		{"1", 1},
		{"0", 0},
		{"0x1f", 0x1f},
		{"0X1F", 0x1f},
		{"  7 ", 7},
		{"\t12\n", 12},
		{"18446744073709551615", ^uint64(0)},
		{"0xffffffffffffffff", ^uint64(0)},
		// A commit hash folds to the xor of its two 64-bit words and its
		// 32-bit tail: here the words cancel and the tail remains.
		{"0123456789abcdef0123456789abcdef01234567", 0x01234567},
		{"0123456789ABCDEF0123456789ABCDEF01234567", 0x01234567},
		// Pinned: CI seeds runs from commits, so this fold must not change.
		{"da39a3ee5e6b4b0d3255bfef95601890afd80709", 0xe86c1c0164d35494},
	}
	for _, tc := range cases {
		got, err := ParseSeed(tc.in)
		if err != nil {
			t.Errorf("ParseSeed(%q): %v", tc.in, err)
			continue
		}
		if got != tc.want {
			t.Errorf("ParseSeed(%q) = %#x, want %#x", tc.in, got, tc.want)
		}
	}
}

func TestParseSeedCommitFoldsDiffer(t *testing.T) {
	a, errA := ParseSeed("da39a3ee5e6b4b0d3255bfef95601890afd80709")
	b, errB := ParseSeed("da39a3ee5e6b4b0d3255bfef95601890afd80708")
	if errA != nil || errB != nil {
		t.Fatalf("ParseSeed: %v, %v", errA, errB)
	}
	if a == b {
		t.Fatalf("two commit hashes fold to the same seed %#x", a)
	}
	again, _ := ParseSeed("da39a3ee5e6b4b0d3255bfef95601890afd80709")
	if again != a {
		t.Fatalf("fold is not stable: %#x then %#x", a, again)
	}
}

func TestParseSeedErrors(t *testing.T) {
	for _, in := range []string{
		"banana",
		"",
		"   ",
		"-1",
		"0x",
		"0xzz",
		"18446744073709551616",
		"0x10000000000000000",
		"1.5",
		"da39a3ee5e6b4b0d3255bfef95601890afd8070", // 39 hex digits: not a commit, too big for u64
	} {
		v, err := ParseSeed(in)
		if err == nil {
			t.Errorf("ParseSeed(%q) = %#x, want an error", in, v)
			continue
		}
		msg := err.Error()
		if strings.Contains(msg, "\n") {
			t.Errorf("ParseSeed(%q) error is not one line: %q", in, msg)
		}
		if msg == "" {
			t.Errorf("ParseSeed(%q) error is empty", in)
		}
	}
}
