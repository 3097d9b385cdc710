# vsrsim as a container image: the sweep runner for Kubernetes and any other
# engine that runs OCI images. `make image` builds it; deploy/k8s runs it.
#
# GO_VERSION is the go line of go.mod (make image passes it; the default here is
# kept equal to it by a test), so the image is built with the toolchain the
# module declares.
ARG GO_VERSION=1.26.0

FROM golang:${GO_VERSION} AS build
WORKDIR /src
# Dependencies first: a source change reuses the downloaded modules layer.
COPY go.mod go.sum ./
RUN go mod download
COPY . .
# CGO off: the binary is static, so it runs on an image with no libc.
RUN CGO_ENABLED=0 go build -trimpath -buildvcs=false -ldflags="-s -w" -o /out/vsrsim ./cmd/vsrsim

# distroless/static holds CA certificates, tzdata and a passwd entry for
# nonroot, and nothing else: no shell, no package manager.
FROM gcr.io/distroless/static-debian12:nonroot
COPY --from=build /out/vsrsim /usr/local/bin/vsrsim
# Numeric, so Kubernetes' runAsNonRoot can verify it without reading /etc/passwd.
USER 65532:65532
WORKDIR /home/nonroot
ENTRYPOINT ["/usr/local/bin/vsrsim"]
CMD ["--help"]
