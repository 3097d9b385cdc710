package main

import (
	"archive/tar"
	"bufio"
	"encoding/json"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/layout"
	"github.com/google/go-containerregistry/pkg/v1/types"
	"github.com/google/go-containerregistry/pkg/v1/validate"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// moduleRoot is the vsrsim module, from this package's directory.
const moduleRoot = "../.."

// layoutEnv names the layout `make image-oci` wrote; `make test` sets it, so
// the test checks the image that target built and that its own build of the
// same commit gives the same digest. Without it the test builds twice.
const layoutEnv = "VSRSIM_IMAGE_OCI"

// testCommit labels the images the test builds when no layout is given.
const testCommit = "0123456789abcdef0123456789abcdef01234567"

// buildImage builds the binary and the image into dir, as `make image-oci`
// does, and returns the image read back from its layout.
func buildImage(t *testing.T, dir, commit string) v1.Image {
	t.Helper()
	_, _, err := build(moduleRoot, dir, "", commit, runtime.GOARCH)
	require.NoError(t, err)
	return openLayout(t, dir)
}

// openLayout reads the one image of an OCI layout.
func openLayout(t *testing.T, dir string) v1.Image {
	t.Helper()
	p, err := layout.FromPath(dir)
	require.NoError(t, err)
	idx, err := p.ImageIndex()
	require.NoError(t, err)
	m, err := idx.IndexManifest()
	require.NoError(t, err)
	require.Len(t, m.Manifests, 1, "one image in the layout")
	assert.Equal(t, types.OCIManifestSchema1, m.Manifests[0].MediaType)
	assert.True(t, strings.HasPrefix(m.Manifests[0].Annotations["org.opencontainers.image.ref.name"], "vsrsim:"))
	img, err := idx.Image(m.Manifests[0].Digest)
	require.NoError(t, err)
	return img
}

// TestImageOCI opens the image, checks its config against the Dockerfile and
// its one layer's entries, runs seed 1 with the binary it holds, and checks
// that a second build of the same commit has the same digest.
func TestImageOCI(t *testing.T) {
	var img v1.Image
	commit := testCommit
	if dir := os.Getenv(layoutEnv); dir != "" {
		img = openLayout(t, dir)
		cf, err := img.ConfigFile()
		require.NoError(t, err)
		commit = cf.Config.Labels[labelRevision]
	} else {
		img = buildImage(t, filepath.Join(t.TempDir(), "first"), commit)
	}

	// go-containerregistry's own check: every digest, size and diff id the
	// manifest and config state matches the blobs.
	require.NoError(t, validate.Image(img))
	cf, err := img.ConfigFile()
	require.NoError(t, err)
	docker := dockerfileFinalStage(t)
	assert.Equal(t, docker["ENTRYPOINT"], cf.Config.Entrypoint)
	assert.Equal(t, docker["CMD"], cf.Config.Cmd)
	assert.Equal(t, docker["USER"], []string{cf.Config.User})
	assert.Equal(t, docker["WORKDIR"], []string{cf.Config.WorkingDir})
	assert.Equal(t, "65532:65532", cf.Config.User)
	assert.Equal(t, commit, cf.Config.Labels[labelRevision])
	assert.Equal(t, "vsrsim", cf.Config.Labels[labelTitle])
	assert.NotEmpty(t, cf.Config.Labels[labelGoVersion])
	assert.Equal(t, "linux", cf.OS)
	assert.Equal(t, epoch, cf.Created.UTC(), "a fixed creation time")

	layers, err := img.Layers()
	require.NoError(t, err)
	require.Len(t, layers, 1, "one layer on an empty base")
	mt, err := layers[0].MediaType()
	require.NoError(t, err)
	assert.Equal(t, types.OCILayer, mt)
	binary := filepath.Join(t.TempDir(), "vsrsim")
	assert.Equal(t, []string{"home/", "home/nonroot/", "usr/", "usr/local/", "usr/local/bin/", "usr/local/bin/vsrsim"},
		extractLayer(t, layers[0], "usr/local/bin/vsrsim", binary))

	t.Run("runs a seed", func(t *testing.T) {
		cmd := exec.Command(binary, "run", "--seed", "1", "-o", "json")
		out, err := cmd.Output()
		require.NoError(t, err, "the image's binary runs seed 1 and it passes")
		var rec struct {
			Seed    uint64 `json:"seed"`
			Verdict string `json:"verdict"`
		}
		require.NoError(t, json.Unmarshal(out, &rec))
		assert.Equal(t, uint64(1), rec.Seed)
		assert.Equal(t, "pass", rec.Verdict)
	})

	t.Run("two builds agree", func(t *testing.T) {
		again := buildImage(t, filepath.Join(t.TempDir(), "second"), commit)
		want, err := img.Digest()
		require.NoError(t, err)
		got, err := again.Digest()
		require.NoError(t, err)
		assert.Equal(t, want, got, "the same commit gives the same digest")
		t.Logf("image digest %s for commit %s", got, commit)
	})
}

// extractLayer lists the layer's entries, checks each one's fixed owner,
// mode and time, and writes the file named want to path.
func extractLayer(t *testing.T, layer v1.Layer, want, path string) []string {
	t.Helper()
	rc, err := layer.Uncompressed()
	require.NoError(t, err)
	defer rc.Close()
	tr := tar.NewReader(rc)
	var names []string
	for {
		hdr, err := tr.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		require.NoError(t, err)
		names = append(names, hdr.Name)
		assert.Equal(t, epoch, hdr.ModTime.UTC(), hdr.Name)
		assert.Equal(t, int64(0o755), hdr.Mode, hdr.Name)
		if hdr.Name == "home/nonroot/" {
			assert.Equal(t, [2]int{nonrootID, nonrootID}, [2]int{hdr.Uid, hdr.Gid}, "the user's home is its own")
		} else {
			assert.Equal(t, [2]int{0, 0}, [2]int{hdr.Uid, hdr.Gid}, hdr.Name)
		}
		if hdr.Name != want {
			continue
		}
		f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o755)
		require.NoError(t, err)
		_, err = io.Copy(f, tr)
		require.NoError(t, err)
		require.NoError(t, f.Close())
	}
	require.FileExists(t, path)
	return names
}

// dockerfileFinalStage reads the Dockerfile's ENTRYPOINT, CMD, USER and
// WORKDIR (the last of each, which is the final stage's), each as a list.
func dockerfileFinalStage(t *testing.T) map[string][]string {
	t.Helper()
	f, err := os.Open(filepath.Join(moduleRoot, "Dockerfile"))
	require.NoError(t, err)
	defer f.Close()
	got := map[string][]string{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		word, rest, _ := strings.Cut(sc.Text(), " ")
		switch word {
		case "ENTRYPOINT", "CMD":
			var list []string
			require.NoError(t, json.Unmarshal([]byte(rest), &list), sc.Text())
			got[word] = list
		case "USER", "WORKDIR":
			got[word] = []string{rest}
		}
	}
	require.NoError(t, sc.Err())
	require.Len(t, got, 4, "the Dockerfile sets ENTRYPOINT, CMD, USER and WORKDIR")
	return got
}
