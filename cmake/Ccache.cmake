# Use ccache when present. The precompiled header needs the sloppiness below, or every call
# is uncacheable.
find_program(OLV2_CCACHE ccache)
# (Not with MSVC, whose precompiled headers ccache cannot cache.)
if(OLV2_CCACHE AND NOT MSVC AND NOT CMAKE_CXX_COMPILER_LAUNCHER)
  set(CMAKE_CXX_COMPILER_LAUNCHER
      ${CMAKE_COMMAND} -E env
      "CCACHE_SLOPPINESS=pch_defines,time_macros,include_file_mtime,include_file_ctime"
      ${OLV2_CCACHE})
endif()
