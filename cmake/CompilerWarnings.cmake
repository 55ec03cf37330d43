# The project's warning and source-charset flags, by compiler: MSVC gets its own spelling
# (/utf-8 for the sources' UTF-8 comments, /bigobj for the large unity batches), GCC and Clang
# the usual pair.
function(olv2_compile_flags target)
  if(MSVC)
    target_compile_options(${target} PRIVATE /W4 /permissive- /utf-8 /bigobj)
  elseif(CMAKE_CXX_COMPILER_ID MATCHES "GNU|Clang")
    target_compile_options(${target} PRIVATE -Wall -Wextra)
  endif()
endfunction()
