"""Every environment variable the compiler reads while it builds (getenv("NAME") in compiler/,
codegen/, passes/ and ir/) is part of the whole-build cache's key (compiler/build_cache.cpp's
environment()) or decides nothing in the library (where the caches and temporaries live, how
programs are found: the compiler's identity is in the key). Prints the names it checked."""
import pathlib
import re
import sys

root = pathlib.Path(sys.argv[1])
read = set()
for d in ("compiler", "codegen", "passes", "ir"):
    for f in sorted((root / d).rglob("*.[ch]pp")):
        read |= set(re.findall(r'getenv\("([A-Z_0-9]+)"\)', f.read_text()))
src = (root / "compiler/build_cache.cpp").read_text()
body = re.search(r"environment\(\) \{(.*?)\n\}", src, re.S).group(1)
keyed = set(re.findall(r'"([A-Z_0-9]+)"', body))
ignored = {"HOME", "XDG_CACHE_HOME", "MXC_CACHE_DIR", "TMPDIR", "PATH"}
missing = sorted(read - keyed - ignored)
if missing:
    sys.exit("not in the whole-build cache's key: " + ", ".join(missing))
print("keyed: " + " ".join(sorted(read & keyed)))
