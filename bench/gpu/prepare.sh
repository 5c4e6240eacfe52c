#!/usr/bin/env bash
# Prepares a device session. Runs HERE (no GPU needed), in the checkout that calls the device
# tool (the device receives that checkout's working tree, not a helper's worktree):
#   - builds mxc and copies it, stripped, into the git-ignored folder .carry/ with the shared
#     libraries it needs beyond a glibc x86-64 system (protobuf, onnx_proto: Debian packages the
#     device lacks), and a wrapper .carry/bin/mxc that finds them (LD_LIBRARY_PATH for mxc and
#     its children only; nvcc and g++ load none of these sonames);
#   - packs the ONNX conformance data (../shared/onnx-tests, outside the repo, which the device
#     does not get) into .carry/onnx-tests.tar.xz for test/gpu/run.sh;
#   - prints the carry list for the device tool and the folder's size (limit: 64 MiB with the
#     working tree).
#   bash bench/gpu/prepare.sh [ONNX_TESTS_DIR]
set -euo pipefail
cd "$(dirname "$0")/../.."
tests=${1:-../shared/onnx-tests}
cmake -S . -B build -G Ninja >/dev/null
ninja -C build -j2 mxc
rm -rf .carry
mkdir -p .carry/bin .carry/lib
strip -o .carry/bin/mxc.bin build/mxc
# Everything the dynamic loader resolves for mxc, except the C and C++ runtime every glibc
# x86-64 Linux has (the device's are newer; an older libstdc++ on LD_LIBRARY_PATH would break
# the device's g++, which nvcc runs) and zlib.
ldd build/mxc | awk '$2 == "=>" && $3 ~ /^\// { print $1, $3 }' | while read -r soname path; do
  case $soname in
    libc.so.*|libm.so.*|libstdc++.so.*|libgcc_s.so.*|ld-linux*|libpthread.so.*|libdl.so.*|librt.so.*|libz.so.*) ;;
    *) cp -L "$path" ".carry/lib/$soname" ;;
  esac
done
cat > .carry/bin/mxc <<'EOF'
#!/bin/sh
# mxc with the shared libraries carried beside it (bench/gpu/prepare.sh).
d=$(dirname "$(readlink -f "$0")")
LD_LIBRARY_PATH="$d/../lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" exec "$d/mxc.bin" "$@"
EOF
chmod +x .carry/bin/mxc
.carry/bin/mxc version >/dev/null
# the commit the carried mxc was built from (the device's copy of the tree may hold another .git)
git describe --always --dirty > .carry/COMMIT
if [[ -d "$tests" ]]; then
  tar -C "$(dirname "$tests")" -cf - "$(basename "$tests")" | xz -T2 -6 > .carry/onnx-tests.tar.xz
else
  echo "prepare.sh: no $tests: test/gpu/run.sh will have no conformance data" >&2
fi
git check-ignore -q .carry || { echo "prepare.sh: .carry/ is not git-ignored (add /.carry/ to .gitignore)" >&2; exit 1; }
# The newest glibc / libstdc++ symbol versions the carried files need (the device must have them).
need=$(objdump -T .carry/bin/mxc.bin .carry/lib/* 2>/dev/null | grep -o 'GLIBC\(XX\)\?_[0-9.]*' | sort -Vu |
  awk -F_ '{ v[$1] = $2 } END { for (k in v) printf "%s_%s ", k, v[k] }')
echo "carried: $(cd .carry && find . -type f | sort | tr '\n' ' ')"
echo "needs on the device: ${need}libz.so.1 (Ubuntu 24.04 has GLIBC_2.39, GLIBCXX_3.4.33, zlib)"
echo "size: $(du -sh .carry | cut -f1) in .carry; working tree sent: $(git ls-files -co --exclude-standard -z | du -ch --files0-from=- 2>/dev/null | tail -1 | cut -f1)"
echo 'carry: [".carry"]'
