# Which sources include LibTorch, directly or through the project's own headers.
#
# Loading the precompiled <torch/torch.h> (about 570 MB with GCC 12) costs a compiler about
# 4.5 s, more than a whole source without torch takes to compile; only the sources that
# include torch get the precompiled header.

# Sets `result` to ON when `file` includes a torch, ATen or c10 header, directly or through
# quoted includes found in `search_dirs` or beside the file. Results are memoised per file.
function(olv2_file_uses_torch file search_dirs result)
  get_property(known GLOBAL PROPERTY "OLV2_USES_TORCH:${file}" SET)
  if(known)
    get_property(value GLOBAL PROPERTY "OLV2_USES_TORCH:${file}")
    set(${result} ${value} PARENT_SCOPE)
    return()
  endif()
  set_property(GLOBAL PROPERTY "OLV2_USES_TORCH:${file}" OFF)  # include cycles end here
  file(STRINGS ${file} include_lines REGEX "^[ \t]*#[ \t]*include")
  get_filename_component(file_dir ${file} DIRECTORY)
  set(value OFF)
  foreach(line IN LISTS include_lines)
    if(line MATCHES "<(torch|ATen|c10)/")
      set(value ON)
      break()
    endif()
    if(line MATCHES "\"([^\"]+)\"")
      set(included ${CMAKE_MATCH_1})
      foreach(dir IN LISTS file_dir search_dirs)
        if(EXISTS ${dir}/${included})
          olv2_file_uses_torch(${dir}/${included} "${search_dirs}" included_uses_torch)
          if(included_uses_torch)
            set(value ON)
          endif()
          break()
        endif()
      endforeach()
      if(value)
        break()
      endif()
    endif()
  endforeach()
  set_property(GLOBAL PROPERTY "OLV2_USES_TORCH:${file}" ${value})
  set(${result} ${value} PARENT_SCOPE)
endfunction()

# Marks the sources of `sources` that do not include torch to skip the precompiled header
# (a property of the calling directory's targets).
function(olv2_skip_pch_without_torch sources search_dirs)
  foreach(source IN LISTS sources)
    olv2_file_uses_torch(${source} "${search_dirs}" uses_torch)
    if(NOT uses_torch)
      set_source_files_properties(${source} PROPERTIES SKIP_PRECOMPILE_HEADERS ON)
    endif()
  endforeach()
endfunction()

# Unity build in groups: the sources of one layer (first directory under `base_dir`) that share
# torch use, in as few groups of at most `batch_size` as hold them, of even sizes, so a group
# compiles with the precompiled header loaded once, or without it at all. Most of a torch
# group's cost is what every group repeats (the header's loading, LibTorch's inline templates
# instantiated and compiled again), so fewer, larger groups build faster from clean.
function(olv2_group_for_unity_build target sources base_dir search_dirs batch_size)
  set_target_properties(${target} PROPERTIES UNITY_BUILD ON UNITY_BUILD_MODE GROUP)
  set(keys "")
  foreach(source IN LISTS sources)
    file(RELATIVE_PATH relative ${base_dir} ${source})
    string(REGEX REPLACE "/.*" "" layer ${relative})
    olv2_file_uses_torch(${source} "${search_dirs}" uses_torch)
    if(uses_torch)
      set(kind torch)
    else()
      set(kind plain)
    endif()
    set(key "${target}_${layer}_${kind}")
    if(NOT DEFINED sources_${key})
      list(APPEND keys ${key})
      set(torch_${key} ${uses_torch})
    endif()
    list(APPEND sources_${key} ${source})
  endforeach()
  foreach(key IN LISTS keys)
    list(LENGTH sources_${key} count)
    math(EXPR groups "(${count} + ${batch_size} - 1) / ${batch_size}")
    set(index 0)
    foreach(source IN LISTS sources_${key})
      math(EXPR batch "${index} * ${groups} / ${count}")
      math(EXPR index "${index} + 1")
      set_source_files_properties(${source} PROPERTIES UNITY_GROUP "${key}_${batch}")
      if(NOT torch_${key})
        set_source_files_properties(
          ${CMAKE_CURRENT_BINARY_DIR}/CMakeFiles/${target}.dir/Unity/unity_${key}_${batch}_cxx.cxx
          PROPERTIES SKIP_PRECOMPILE_HEADERS ON)
      endif()
    endforeach()
  endforeach()
endfunction()
