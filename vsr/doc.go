// Package vsr is the vocabulary of Viewstamped Replication that every part of
// the simulator speaks: messages and their typed payloads, events and their
// payloads, the reasons a message is dropped, the trace's one-line format,
// quorum arithmetic, the replicated state machine and its snapshot, the
// storage interface between a replica and its disk, and the one assertion.
//
// It knows no replica: package replica implements the protocol over these
// types, and the harness, the oracle's feeds, the scenarios and the tools read
// and write them without importing the replica's logic (docs/architecture.md).
package vsr
