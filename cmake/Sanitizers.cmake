# OLV2_SANITIZE: every target of the project with AddressSanitizer (LeakSanitizer included) and
# UndefinedBehaviorSanitizer, GCC or Clang, with line tables for the reports. LibTorch, OpenMP
# and the other Debian libraries stay uninstrumented; what they report is suppressed in
# cmake/sanitizers/ (each entry with its reason), and scripts/check_sanitizers.sh runs the tests
# with those files. OLV2_FUZZ with Clang adds libFuzzer's coverage instrumentation to every
# object, so that the fuzz targets (tests/fuzz) see the parsers' branches.
if(OLV2_SANITIZE)
  if(MSVC)
    message(FATAL_ERROR "OLV2_SANITIZE: GCC or Clang only")
  endif()
  add_compile_options(-fsanitize=address,undefined -fno-omit-frame-pointer
                      -fno-sanitize-recover=undefined)
  add_link_options(-fsanitize=address,undefined)
  if(CMAKE_CXX_COMPILER_ID MATCHES "Clang")
    add_compile_options(-gline-tables-only)
  else()
    add_compile_options(-g1)
  endif()
endif()
if(OLV2_FUZZ AND CMAKE_CXX_COMPILER_ID MATCHES "Clang")
  add_compile_options(-fsanitize=fuzzer-no-link)
endif()
