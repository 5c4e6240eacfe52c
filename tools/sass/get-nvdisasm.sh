#!/usr/bin/env bash
# Fetches nvdisasm (NVIDIA's SASS disassembler) for tools/sass/sass.py: the CUDA 13 toolkit on
# these machines has nvcc and ptxas but no nvdisasm or cuobjdump, and Debian ships them only in
# non-free (nvidia-cuda-toolkit 11.8, which reads sm_90 code). The package is downloaded with
# a private apt configuration (the system's sources stay as they are) and only the two
# binaries are kept: $MXC_SASS_DIR (default ~/.cache/mxc/nvdisasm)/nvdisasm and cuobjdump.
# Prints the directory. Not needed by the build or the tests.
set -euo pipefail
dir=${MXC_SASS_DIR:-$HOME/.cache/mxc/nvdisasm}
if [ -x "$dir/nvdisasm" ]; then echo "$dir"; exit 0; fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/lists/partial" "$work/cache/archives/partial" "$dir"
printf 'Types: deb\nURIs: http://deb.debian.org/debian\nSuites: bookworm\nComponents: non-free\nSigned-By: /usr/share/keyrings/debian-archive-keyring.gpg\n' > "$work/nonfree.sources"
opts=(-o "Dir::Etc::SourceList=/dev/null" -o "Dir::Etc::SourceParts=$work/parts" -o "Dir::State::Lists=$work/lists"
      -o "Dir::Cache=$work/cache" -o "APT::Sandbox::User=root" -o "Debug::NoLocking=1")
mkdir -p "$work/parts" && mv "$work/nonfree.sources" "$work/parts/"
apt-get "${opts[@]}" update -qq >&2
(cd "$work" && apt-get "${opts[@]}" download -qq nvidia-cuda-toolkit >&2)
dpkg-deb -x "$work"/nvidia-cuda-toolkit_*.deb "$work/x"
cp "$work/x/usr/bin/nvdisasm" "$work/x/usr/bin/cuobjdump" "$dir/"
echo "$dir"
