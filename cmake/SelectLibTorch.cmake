# Which LibTorch the project builds against (OLV2_LIBTORCH), and the include-path repair that
# PyTorch's own LibTorch needs beside Debian's libraries.
#
#   venv    (default) the LibTorch inside PyTorch 2.11 in the project's .venv, installed by
#           scripts/install_deps.sh: the CUDA build GPU users have, which also runs on the CPU
#   debian  Debian's libtorch-dev 1.13 (CPU only)
#   prefix  whatever find_package(Torch) finds on CMAKE_PREFIX_PATH / Torch_DIR, e.g. another
#           machine's PyTorch: -DCMAKE_PREFIX_PATH="$(python3 -c 'import torch;
#           print(torch.utils.cmake_prefix_path)')"
set(OLV2_LIBTORCH "venv" CACHE STRING "LibTorch to build against: venv, debian or prefix")
set_property(CACHE OLV2_LIBTORCH PROPERTY STRINGS venv debian prefix)
# With prefix, the Python whose PyTorch holds that LibTorch, whose torchrun the tests start ranks
# with (scripts/configure_gpu_build.sh names its own); empty: python3 on PATH.
set(OLV2_TORCH_PYTHON "" CACHE FILEPATH "With OLV2_LIBTORCH=prefix: the Python of that PyTorch")

macro(olv2_find_libtorch)
  if(OLV2_LIBTORCH STREQUAL "venv")
    file(GLOB olv2_venv_torch_configs
         ${PROJECT_SOURCE_DIR}/.venv/lib/python3*/site-packages/torch/share/cmake/Torch/TorchConfig.cmake)
    if(NOT olv2_venv_torch_configs)
      message(FATAL_ERROR
        "OLV2_LIBTORCH=venv: no PyTorch in ${PROJECT_SOURCE_DIR}/.venv; run "
        "scripts/install_deps.sh, or configure with -DOLV2_LIBTORCH=debian (Debian's LibTorch "
        "1.13) or -DOLV2_LIBTORCH=prefix (CMAKE_PREFIX_PATH)")
    endif()
    list(GET olv2_venv_torch_configs 0 olv2_venv_torch_config)
    get_filename_component(olv2_venv_torch ${olv2_venv_torch_config} DIRECTORY)
    get_filename_component(olv2_venv_torch ${olv2_venv_torch}/../../.. ABSOLUTE)
    # Searched first for packages (Caffe2's config) and libraries (libtorch.so): otherwise
    # Debian's copies, where installed, are found before the wheel's.
    list(PREPEND CMAKE_PREFIX_PATH ${olv2_venv_torch}/share/cmake ${olv2_venv_torch})
    set(Torch_DIR ${olv2_venv_torch}/share/cmake/Torch CACHE PATH "LibTorch's CMake package" FORCE)
  elseif(OLV2_LIBTORCH STREQUAL "debian")
    # Debian's package config, never one found first on CMAKE_PREFIX_PATH.
    set(Torch_DIR /usr/lib/${CMAKE_LIBRARY_ARCHITECTURE}/cmake/Torch CACHE PATH "LibTorch's CMake package" FORCE)
  elseif(NOT OLV2_LIBTORCH STREQUAL "prefix")
    message(FATAL_ERROR "OLV2_LIBTORCH is `${OLV2_LIBTORCH}`; expected venv, debian or prefix")
  endif()
  # Nothing here compiles CUDA code; a fixed architecture list keeps Caffe2's CMake from
  # probing for a GPU, which a build machine need not have.
  if(NOT DEFINED ENV{TORCH_CUDA_ARCH_LIST})
    set(ENV{TORCH_CUDA_ARCH_LIST} "9.0")
  endif()
  find_package(Torch REQUIRED)
  # One LibTorch only: a library or package of another installation found on the system paths
  # would mix two versions' headers and binaries.
  get_filename_component(olv2_torch_lib_dir ${TORCH_LIBRARY} DIRECTORY)
  get_filename_component(olv2_torch_lib_dir ${olv2_torch_lib_dir} REALPATH)
  get_filename_component(olv2_torch_prefix ${TORCH_INSTALL_PREFIX} REALPATH)
  get_filename_component(olv2_caffe2_dir ${Caffe2_DIR} REALPATH)
  if(NOT olv2_torch_lib_dir MATCHES "^${olv2_torch_prefix}/" OR
     NOT olv2_caffe2_dir MATCHES "^${olv2_torch_prefix}/")
    message(FATAL_ERROR
      "LibTorch from ${TORCH_INSTALL_PREFIX}, but its library ${TORCH_LIBRARY} and Caffe2 package "
      "${Caffe2_DIR} come from another installation; put ${TORCH_INSTALL_PREFIX} first on "
      "CMAKE_PREFIX_PATH")
  endif()
  message(STATUS "LibTorch ${Torch_VERSION} from ${Torch_DIR}")
  olv2_hide_torch_bundled_headers()
  # ProcessGroupNCCL's layout depends on nccl.h: the header of the NCCL the wheel loads (its
  # nvidia-nccl package) goes before any CUDA toolkit's copy, which may be another version.
  get_filename_component(olv2_wheel_nccl ${TORCH_INSTALL_PREFIX}/../nvidia/nccl/include ABSOLUTE)
  if(TORCH_CUDA_LIBRARIES AND EXISTS ${olv2_wheel_nccl}/nccl.h)
    get_target_property(olv2_torch_includes torch INTERFACE_INCLUDE_DIRECTORIES)
    set_target_properties(torch PROPERTIES INTERFACE_INCLUDE_DIRECTORIES
                          "${olv2_wheel_nccl};${olv2_torch_includes}")
  endif()
  # PyTorch's wheels are built with a newer GCC whose libstdc++ pieces (std::filesystem among
  # them) they carry and export without symbol versions. Linked after them, the system's
  # libstdc++ would lose those symbols to LibTorch's copies, which crash when called from code
  # built with another GCC (std::filesystem::remove_all jumps to a null weak reference): the
  # system libstdc++ goes first on the link line, so it comes first in the lookup order.
  set(OLV2_TORCH_LIBRARIES ${TORCH_LIBRARIES})
  if(CMAKE_CXX_COMPILER_ID MATCHES "GNU|Clang" AND CMAKE_SYSTEM_NAME STREQUAL "Linux")
    list(PREPEND OLV2_TORCH_LIBRARIES stdc++)
  endif()
endmacro()

# PyTorch's wheels ship the headers of the fmt and protobuf they were built with inside their
# include directory, which the compiler searches before /usr/include: Debian's spdlog (built
# on fmt 9) and the TensorBoard messages generated by Debian's protoc would compile against
# the wrong versions. The torch targets get a copy of that directory (symbolic links) without
# those two; the project never includes them through LibTorch.
function(olv2_hide_torch_bundled_headers)
  set(torch_include ${TORCH_INSTALL_PREFIX}/include)
  # A LibTorch installed into the system's include directory (Debian's) shares it with the
  # system's fmt and protobuf, the ones wanted.
  if(torch_include IN_LIST CMAKE_CXX_IMPLICIT_INCLUDE_DIRECTORIES OR
     (NOT EXISTS ${torch_include}/fmt AND NOT EXISTS ${torch_include}/google))
    return()
  endif()
  set(filtered ${PROJECT_BINARY_DIR}/torch_include)
  file(REMOVE_RECURSE ${filtered})
  file(MAKE_DIRECTORY ${filtered})
  file(GLOB entries RELATIVE ${torch_include} ${torch_include}/*)
  foreach(entry IN LISTS entries)
    if(NOT entry MATCHES "^(fmt|google)$")
      file(CREATE_LINK ${torch_include}/${entry} ${filtered}/${entry} RESULT linked SYMBOLIC)
      if(NOT linked EQUAL 0)  # no symbolic links here (Windows without the privilege)
        file(COPY ${torch_include}/${entry} DESTINATION ${filtered})
      endif()
    endif()
  endforeach()
  get_directory_property(imported IMPORTED_TARGETS)
  foreach(target IN LISTS imported)
    get_target_property(dirs ${target} INTERFACE_INCLUDE_DIRECTORIES)
    if(dirs)
      list(TRANSFORM dirs REPLACE "^${torch_include}($|/)" "${filtered}\\1")
      set_target_properties(${target} PROPERTIES INTERFACE_INCLUDE_DIRECTORIES "${dirs}")
    endif()
  endforeach()
  list(TRANSFORM TORCH_INCLUDE_DIRS REPLACE "^${torch_include}($|/)" "${filtered}\\1")
  set(TORCH_INCLUDE_DIRS ${TORCH_INCLUDE_DIRS} PARENT_SCOPE)
  message(STATUS "LibTorch's bundled fmt and protobuf headers hidden (${filtered})")
endfunction()
