# Prints (one per line, to stdout) the sources under src/ that include no LibTorch header,
# directly or through the project's own headers: `cmake -DOLV2_SOURCE_DIR=. -P <this file>`.
include(${CMAKE_CURRENT_LIST_DIR}/TorchUsers.cmake)
file(GLOB_RECURSE sources ${OLV2_SOURCE_DIR}/src/*.cpp)
list(SORT sources)
foreach(source IN LISTS sources)
  olv2_file_uses_torch(${source} "${OLV2_SOURCE_DIR}/include;${OLV2_SOURCE_DIR}/src/apps"
                       uses_torch)
  if(NOT uses_torch)
    file(RELATIVE_PATH relative ${OLV2_SOURCE_DIR} ${source})
    execute_process(COMMAND ${CMAKE_COMMAND} -E echo ${relative})
  endif()
endforeach()
