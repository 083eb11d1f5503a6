# Writes OUT (a header) with the version and the git revision of SOURCE_DIR, rewriting it only
# when its text changes (so a build after a commit relinks, and a build without one does not).
# Run at every build by the binrecover_version target: the revision is never stale.
execute_process(COMMAND git -C "${SOURCE_DIR}" rev-parse --short=12 HEAD
  OUTPUT_VARIABLE rev OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET RESULT_VARIABLE rc)
if(NOT rc EQUAL 0 OR rev STREQUAL "")
  set(rev "unknown (not built from a git checkout)")
else()
  execute_process(COMMAND git -C "${SOURCE_DIR}" status --porcelain --untracked-files=no
    OUTPUT_VARIABLE dirty OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET)
  if(NOT dirty STREQUAL "")
    string(APPEND rev "-dirty")
  endif()
endif()
set(text "#pragma once\n#define BINRECOVER_VERSION \"${VERSION}\"\n#define BINRECOVER_REVISION \"${rev}\"\n")
if(EXISTS "${OUT}")
  file(READ "${OUT}" old)
else()
  set(old "")
endif()
if(NOT old STREQUAL text)
  file(WRITE "${OUT}" "${text}")
endif()
