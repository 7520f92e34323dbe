#!/bin/sh
# The library runtime (libcuvil_embed.a) goes into model libraries that C
# programs link: it must not need the C++ runtime library (operator new,
# exceptions, RTTI, std:: functions). Lists any symbol the archive uses but
# does not define that would.
#   tests/embed/check_freestanding.sh NM ARCHIVE
set -eu
defined=$(mktemp)
trap 'rm -f "$defined"' EXIT
"$1" --defined-only "$2" | awk 'NF == 3 {print $3}' | sort -u >"$defined"
found=$("$1" -u "$2" | awk 'NF >= 2 {print $NF}' | sort -u | comm -23 - "$defined" |
  grep -E '^(_Z|__cxa_|__gxx_|_Unwind_)' || true)
if [ -n "$found" ]; then
  echo "$2 needs the C++ runtime library for:"
  echo "$found"
  exit 1
fi
echo "$2 needs libc and pthreads only"
