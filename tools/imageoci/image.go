package main

import (
	"archive/tar"
	"bytes"
	"io"
	"time"

	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/empty"
	"github.com/google/go-containerregistry/pkg/v1/mutate"
	"github.com/google/go-containerregistry/pkg/v1/tarball"
	"github.com/google/go-containerregistry/pkg/v1/types"
)

// What the Dockerfile's final stage sets; image_test.go reads the Dockerfile
// and holds these equal to it.
const (
	binaryPath = "/usr/local/bin/vsrsim"
	user       = "65532:65532" // numeric, so runAsNonRoot can check it
	workDir    = "/home/nonroot"
	defaultCmd = "--help"
	nonrootID  = 65532
)

// Labels the image carries (the OCI annotation keys).
const (
	labelRevision  = "org.opencontainers.image.revision"
	labelTitle     = "org.opencontainers.image.title"
	labelGoVersion = "dev.vsrsim.go-version"
)

// epoch is every time the image states: its creation, its history and its
// files' modification times. A real time would make every build's digest
// differ; the revision label says what was built.
var epoch = time.Unix(0, 0).UTC()

// imageSpec is what varies between images: the commit built, the toolchain
// that built it, the architecture it runs on.
type imageSpec struct {
	commit    string
	goVersion string
	arch      string
}

// newImage is the vsrsim image: one layer holding the static binary and the
// nonroot user's home, on an empty base, configured as the Dockerfile is.
func newImage(binary []byte, spec imageSpec) (v1.Image, error) {
	layerTar, err := layerTar(binary)
	if err != nil {
		return nil, err
	}
	layer, err := tarball.LayerFromOpener(func() (io.ReadCloser, error) {
		return io.NopCloser(bytes.NewReader(layerTar)), nil
	}, tarball.WithMediaType(types.OCILayer))
	if err != nil {
		return nil, err
	}
	base := mutate.MediaType(empty.Image, types.OCIManifestSchema1)
	base = mutate.ConfigMediaType(base, types.OCIConfigJSON)
	base, err = mutate.ConfigFile(base, &v1.ConfigFile{
		Architecture: spec.arch,
		OS:           "linux",
		Created:      v1.Time{Time: epoch},
		// Append fills in the layer's diff id; the type is the spec's one
		// value, which image tools check.
		RootFS: v1.RootFS{Type: "layers"},
		Config: v1.Config{
			Entrypoint: []string{binaryPath},
			Cmd:        []string{defaultCmd},
			User:       user,
			WorkingDir: workDir,
			Env:        []string{"PATH=/usr/local/bin"},
			Labels: map[string]string{
				labelRevision:  spec.commit,
				labelTitle:     "vsrsim",
				labelGoVersion: spec.goVersion,
			},
		},
	})
	if err != nil {
		return nil, err
	}
	return mutate.Append(base, mutate.Addendum{
		Layer: layer,
		History: v1.History{
			Created:   v1.Time{Time: epoch},
			CreatedBy: "tools/imageoci: " + binaryPath + " and " + workDir,
		},
	})
}

// layerEntry is one file or directory of the layer.
type layerEntry struct {
	name     string // relative to /, directories ending in /
	mode     int64
	uid, gid int
	data     []byte // a regular file's content; nil for a directory
}

// layerTar is the layer as an uncompressed tar: entries in name order, each
// with a fixed owner, mode and time, so the same binary gives the same bytes.
func layerTar(binary []byte) ([]byte, error) {
	entries := []layerEntry{
		{name: "home/", mode: 0o755},
		{name: "home/nonroot/", mode: 0o755, uid: nonrootID, gid: nonrootID},
		{name: "usr/", mode: 0o755},
		{name: "usr/local/", mode: 0o755},
		{name: "usr/local/bin/", mode: 0o755},
		{name: "usr/local/bin/vsrsim", mode: 0o755, data: binary},
	}
	var buf bytes.Buffer
	tw := tar.NewWriter(&buf)
	for _, e := range entries {
		hdr := &tar.Header{
			Name: e.name, Mode: e.mode, Uid: e.uid, Gid: e.gid,
			ModTime: epoch, Format: tar.FormatPAX, Typeflag: tar.TypeDir,
		}
		if e.data != nil {
			hdr.Typeflag, hdr.Size = tar.TypeReg, int64(len(e.data))
		}
		if err := tw.WriteHeader(hdr); err != nil {
			return nil, err
		}
		if _, err := tw.Write(e.data); err != nil {
			return nil, err
		}
	}
	if err := tw.Close(); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}
