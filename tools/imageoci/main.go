// Command imageoci builds vsrsim's container image without a container
// daemon (`make image-oci`): it builds the static binary and writes an OCI
// image layout with the Dockerfile's entrypoint, user and working directory,
// on an empty base. The same commit, built by the same Go toolchain for the
// same architecture, gives the same digest (D51).
package main

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
)

func main() {
	out := flag.String("o", "bin/image-oci", "write the OCI image layout to `DIR` (replaced)")
	tarPath := flag.String("tar", "", "also write a tarball that `docker load` reads to `FILE`")
	root := flag.String("module", ".", "the vsrsim module's root `DIR`")
	commit := flag.String("commit", "", "the commit the revision label names (default: git rev-parse HEAD)")
	arch := flag.String("arch", runtime.GOARCH, "the `GOARCH` to build for")
	flag.Parse()
	if flag.NArg() != 0 {
		fail(fmt.Errorf("unexpected argument %q", flag.Arg(0)))
	}
	digest, ref, err := build(*root, *out, *tarPath, *commit, *arch)
	if err != nil {
		fail(err)
	}
	fmt.Printf("%s %s (%s)\n", digest, *out, ref)
}

func fail(err error) {
	fmt.Fprintf(os.Stderr, "imageoci: %v\n", err)
	os.Exit(1)
}

// build builds the binary and the image, writes the layout (and the tarball
// if asked), and returns the image's digest and ref.
func build(root, out, tarPath, commit, arch string) (digest, ref string, err error) {
	if commit == "" {
		if commit, err = gitCommit(root); err != nil {
			return "", "", err
		}
	}
	goVer, err := goVersion(root)
	if err != nil {
		return "", "", err
	}
	tmp, err := os.MkdirTemp("", "imageoci")
	if err != nil {
		return "", "", err
	}
	defer os.RemoveAll(tmp)
	bin := filepath.Join(tmp, "vsrsim")
	if err := buildBinary(root, bin, arch); err != nil {
		return "", "", err
	}
	data, err := os.ReadFile(bin)
	if err != nil {
		return "", "", err
	}
	img, err := newImage(data, imageSpec{commit: commit, goVersion: goVer, arch: arch})
	if err != nil {
		return "", "", err
	}
	ref = "vsrsim:" + commit
	if err := writeLayout(out, img, ref); err != nil {
		return "", "", err
	}
	if tarPath != "" {
		if err := writeTarball(tarPath, img, ref); err != nil {
			return "", "", err
		}
	}
	d, err := img.Digest()
	if err != nil {
		return "", "", err
	}
	return d.String(), ref, nil
}
