#!/bin/sh
# A C++ compiler for the compile-only test: g++, except that it rejects any source that
# instantiates the cpu `mul` kernel (as a broken template would be rejected).
for a in "$@"; do
  case $a in
    *.cpp) if grep -q 'mxc::cpu::mul<' "$a"; then echo "$a:1:1: error: mul does not compile here"; exit 1; fi ;;
  esac
done
exec g++ "$@"
