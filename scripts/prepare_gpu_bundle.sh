#!/usr/bin/env bash
# Prepares gpu_bundle/: every build dependency except LibTorch, for a GPU machine that has
# PyTorch 2.x, CMake, ninja, nvcc and a C++ compiler but none of our Debian packages and no
# network; scripts/gpu_check.sh builds and runs the project there against it. Run on Debian 12
# (amd64) as root; it runs scripts/install_deps.sh first. Idempotent: a rerun rebuilds the
# bundle and reuses the OpenCV build kept in ${XDG_CACHE_HOME:-~/.cache}/olv2/gpu_bundle/, outside
# the checkout, so that a fresh clone on the same machine (CI's) reuses it too. JOBS=N sets the
# build jobs.
#
# What it holds, and why (measured on Debian 12; 45 MiB in all):
# - yaml-cpp, spdlog on fmt 9, protobuf with protoc, and zlib, which protobuf needs: Debian's
#   shared libraries, 8.5 MB, each given the RUNPATH $ORIGIN (protoc $ORIGIN/../lib) so that
#   they load from the bundle, never from a system copy.
# - The headers of those and of CLI11, nlohmann_json, GoogleTest and Gloo (PyTorch's wheels
#   ship no Gloo headers, but their ProcessGroupGloo.hpp includes them), 6 MB; GoogleTest's
#   static libraries, 1 MB.
# - OpenCV 4.6.0 core, imgproc and imgcodecs, built here from Debian's source package (the
#   version and patches of the installed libopencv-dev) as static libraries with JPEG and PNG
#   only, on Debian's static libjpeg-turbo, libpng and zlib: 23.5 MB of libraries and 4 MB of
#   headers; 7.5 to 9 min from scratch on one core (JOBS=1). Debian's own libopencv-imgcodecs
#   would bring 138 libraries, 217 MB (GDAL, GDCM, OpenEXR, ...); core and imgproc alone 19,
#   59 MB (OpenBLAS, LAPACK, TBB, X11). As in Debian's build: an SSE2 baseline with the same
#   dispatched SSE4/AVX/AVX2/AVX-512 kernels. Unlike it: OpenCV's own thread pool instead of
#   TBB, and no OpenCL, LAPACK or other image formats, none of which the project uses.
# - The golden fixtures' two input files (3.4 MB), for the CUDA tests.
# - CMake package configs for all of them, with paths relative to the bundle (include/, lib/,
#   lib/cmake/, share/cmake/, bin/protoc). FindProtobuf is CMake's own module: it takes
#   Protobuf_INCLUDE_DIR, Protobuf_LIBRARY and Protobuf_PROTOC_EXECUTABLE, which
#   scripts/gpu_check.sh passes.
# The bundle must stay under 60 MiB. It travels to the GPU machine with the checkout packed as
# gpu_bundle.tar.xz (which scripts/gpu_check.sh unpacks), and the two together must stay under
# 50 MiB. At the
# end a small CMake project is built against the bundle alone (system search paths off) and
# run; its headers must come from the bundle or from the compiler, glibc and the kernel, and
# its shared libraries from the bundle or glibc/libstdc++.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
bundle=$root/gpu_bundle
cache=${XDG_CACHE_HOME:-$HOME/.cache}/olv2/gpu_bundle
jobs=${JOBS:-$(nproc)}
archive=$root/gpu_bundle.tar.xz
max_bytes=$((60 * 1024 * 1024))
# The GPU machine takes at most 64 MiB of files; the project keeps 14 in reserve for the
# checkout's growth.
max_travel_bytes=$((50 * 1024 * 1024))
arch=x86_64-linux-gnu
started=$SECONDS

say() { echo "prepare_gpu_bundle: $*"; }
fail() { echo "prepare_gpu_bundle: $*" >&2; exit 1; }

# Libraries every glibc/libstdc++ system has; everything else a bundled binary needs is bundled.
system_libs='^(linux-vdso|ld-linux-x86-64|libc|libm|libmvec|libdl|libpthread|librt|libutil|libstdc\+\+|libgcc_s)\.so'

# shellcheck source=/dev/null
codename=$(. /etc/os-release && echo "${VERSION_CODENAME:-}")
if [ "$codename" != bookworm ] || [ "$(dpkg --print-architecture)" != amd64 ]; then
  fail "needs Debian 12 (bookworm) on amd64; this is ${codename:-an unknown system}"
fi

# --- packages -------------------------------------------------------------------------------
# libgmock-dev: the bundle carries GoogleMock beside GoogleTest (scripts/install_test_deps.sh
# installs it for the tests; the main job's install_deps.sh does not).
bash scripts/install_deps.sh patchelf dpkg-dev libjpeg62-turbo-dev libpng-dev zlib1g-dev libgmock-dev

# --- OpenCV ---------------------------------------------------------------------------------
opencv_version=$(dpkg-query -W -f='${source:Version}' libopencv-dev)
opencv_src=$cache/source/opencv
opencv_build=$cache/opencv-build
opencv_install=$cache/opencv-install
multiarch_lib=/usr/lib/$arch
opencv_args=(
  -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_INSTALL_PREFIX="$opencv_install"
  -DCMAKE_INSTALL_LIBDIR=lib -DBUILD_SHARED_LIBS=OFF "-DBUILD_LIST=core,imgproc,imgcodecs"
  -DCPU_BASELINE=SSE2 -DCPU_BASELINE_DISABLE=SSE3
  -DBUILD_TESTS=OFF -DBUILD_PERF_TESTS=OFF -DBUILD_EXAMPLES=OFF -DBUILD_DOCS=OFF
  -DBUILD_opencv_apps=OFF -DBUILD_INFO_SKIP_TIMESTAMP=ON -DOPENCV_PYTHON_SKIP_DETECTION=ON
  -DOPENCV_GENERATE_PKGCONFIG=OFF -DENABLE_PRECOMPILED_HEADERS=OFF -DOPENCV_DOWNLOAD_TRIES_LIST=
  -DWITH_JPEG=ON -DWITH_PNG=ON -DBUILD_JPEG=OFF -DBUILD_PNG=OFF -DBUILD_ZLIB=OFF
  -DJPEG_LIBRARY="$multiarch_lib/libjpeg.a" -DPNG_LIBRARY="$multiarch_lib/libpng16.a"
  -DZLIB_LIBRARY="$multiarch_lib/libz.a"
  -DWITH_TIFF=OFF -DWITH_WEBP=OFF -DWITH_OPENJPEG=OFF -DWITH_JASPER=OFF -DWITH_OPENEXR=OFF
  -DWITH_GDAL=OFF -DWITH_GDCM=OFF -DWITH_TBB=OFF -DWITH_OPENMP=OFF -DWITH_IPP=OFF -DWITH_ITT=OFF
  -DWITH_OPENCL=OFF -DWITH_LAPACK=OFF -DWITH_EIGEN=OFF -DWITH_PROTOBUF=OFF -DWITH_ADE=OFF
  -DWITH_QUIRC=OFF -DWITH_FFMPEG=OFF -DWITH_GSTREAMER=OFF -DWITH_V4L=OFF -DWITH_1394=OFF
  -DWITH_GTK=OFF -DWITH_QT=OFF -DWITH_VTK=OFF -DWITH_OPENGL=OFF -DWITH_VA=OFF -DWITH_VA_INTEL=OFF
  -DWITH_GPHOTO2=OFF -DWITH_CAROTENE=OFF
)
stamp=$opencv_install/.prepared-with
if [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$opencv_version ${opencv_args[*]}" ]; then
  say "reusing the OpenCV build in $opencv_install"
else
  if [ ! -f "$opencv_src/CMakeLists.txt" ]; then
    # Debian's source package through a private source list: the system's apt configuration
    # (no deb-src lines) stays as it is.
    say "downloading OpenCV $opencv_version (Debian source package)"
    apt_dir=$cache/apt
    mkdir -p "$apt_dir/lists/partial" "$cache/source"
    echo "deb-src [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] http://deb.debian.org/debian bookworm main" \
      >"$apt_dir/sources.list"
    apt_options=(-o Dir::Etc::SourceList="$apt_dir/sources.list" -o Dir::Etc::SourceParts=/nonexistent
                 -o Dir::State::Lists="$apt_dir/lists" -o APT::Sandbox::User=root)
    apt-get "${apt_options[@]}" update -qq
    (cd "$cache/source" && apt-get "${apt_options[@]}" source --download-only -qq "opencv=$opencv_version")
    rm -rf "$opencv_src"
    # apt has checked the files against Debian's signed index; the .dsc's own signature would
    # need the debian-keyring package.
    dpkg-source --no-check -x "$cache/source/opencv_$opencv_version.dsc" "$opencv_src" >/dev/null
  fi
  say "building OpenCV core, imgproc, imgcodecs ($jobs jobs; 7.5 to 9 min on one core)"
  rm -rf "$opencv_build" "$opencv_install"
  cmake -S "$opencv_src" -B "$opencv_build" "${opencv_args[@]}" >"$cache/opencv-configure.log" ||
    fail "OpenCV's configure failed; see $cache/opencv-configure.log"
  # Progress lines only: OpenCV's intrinsics draw GCC 12 warnings by the hundred (in the log).
  cmake --build "$opencv_build" -j"$jobs" 2>&1 | tee "$cache/opencv-build.log" |
    grep --line-buffered '^\[' || fail "OpenCV's build failed; see $cache/opencv-build.log"
  cmake --install "$opencv_build" >/dev/null
  echo "$opencv_version ${opencv_args[*]}" >"$stamp"
fi

# --- the bundle -----------------------------------------------------------------------------
say "assembling $bundle"
rm -rf "$bundle"
mkdir -p "$bundle/include" "$bundle/lib/cmake" "$bundle/share/cmake" "$bundle/bin"

# Copies a library and the chain of symbolic links that leads to it (libfmt.so -> libfmt.so.9
# -> libfmt.so.9.1.0), all from one directory, and links its soname where no link did.
copy_library() {
  local path=$1 soname
  while [ -L "$path" ]; do
    cp -P "$path" "$bundle/lib/"
    path=$(dirname "$path")/$(readlink "$path")
  done
  cp "$path" "$bundle/lib/"
  if [[ $path == *.so.* ]]; then
    soname=$(patchelf --print-soname "$path")
    [ -e "$bundle/lib/$soname" ] || ln -s "$(basename "$path")" "$bundle/lib/$soname"
  fi
}

# Each package's headers, CMake configs and libraries, in the bundle's layout.
copy_package() {
  local package=$1 path
  while read -r path; do
    [ -d "$path" ] && continue
    case $path in
      /usr/include/*) mkdir -p "$(dirname "$bundle/include/${path#/usr/include/}")"
                      cp -P "$path" "$bundle/include/${path#/usr/include/}" ;;
      $multiarch_lib/cmake/*) mkdir -p "$(dirname "$bundle/lib/cmake/${path#"$multiarch_lib"/cmake/}")"
                              cp "$path" "$bundle/lib/cmake/${path#"$multiarch_lib"/cmake/}" ;;
      /usr/share/cmake/*) mkdir -p "$(dirname "$bundle/share/cmake/${path#/usr/share/cmake/}")"
                          cp "$path" "$bundle/share/cmake/${path#/usr/share/cmake/}" ;;
      $multiarch_lib/lib*.so) copy_library "$path" ;;
      $multiarch_lib/libg*.a) copy_library "$path" ;;  # GoogleTest: static libraries only
    esac
  done < <(dpkg -L "$package")
}

for package in libyaml-cpp-dev libspdlog-dev libfmt-dev libcli11-dev nlohmann-json3-dev \
               libgtest-dev libgmock-dev libprotobuf-dev; do
  copy_package "$package"
done
# Gloo: the headers only (the wheel's LibTorch carries its own Gloo library).
while read -r path; do
  if [ -f "$path" ] && [[ $path == /usr/include/gloo/* ]]; then
    mkdir -p "$(dirname "$bundle/include/${path#/usr/include/}")"
    cp "$path" "$bundle/include/${path#/usr/include/}"
  fi
done < <(dpkg -L libgloo-dev)
rm -f "$bundle"/lib/libprotobuf-lite.so*
cp /usr/bin/protoc "$bundle/bin/"
copy_library "$multiarch_lib/libprotoc.so.32"

# Debian's configs sit in lib/<arch>/cmake/<name>/ and find their prefix four directories up;
# here they sit in lib/cmake/<name>/, three up (the targets files: the sed removes their first
# step), and the libraries in lib/. Their special case for being loaded from /usr through a
# symbolic link goes.
for file in "$bundle"/lib/cmake/*/*.cmake; do
  # shellcheck disable=SC2016  # ${...} is CMake's, not the shell's
  sed -i -e "s#/lib/$arch/#/lib/#g" \
         -e 's#"${CMAKE_CURRENT_LIST_DIR}/../../../../"#"${CMAKE_CURRENT_LIST_DIR}/../../../"#' \
         -e '0,/^get_filename_component(_IMPORT_PREFIX "${_IMPORT_PREFIX}" PATH)$/{//d}' \
         -e '/^# Use original install prefix/,/^unset(_realCurr)$/d' "$file"
done

cp -r "$opencv_install/include/opencv4" "$bundle/include/"
cp "$opencv_install"/lib/*.a "$bundle/lib/"
cp -r "$opencv_install/lib/cmake/opencv4" "$bundle/lib/cmake/"
# OpenCV's static targets name the image libraries by their Debian paths.
for library in libjpeg.a libpng16.a libz.a; do
  cp "$multiarch_lib/$library" "$bundle/lib/"
done
sed -i -E "s#$multiarch_lib/(libjpeg|libpng16|libz)\\.a#\${_IMPORT_PREFIX}/lib/\\1.a#g" \
  "$bundle/lib/cmake/opencv4/OpenCVModules.cmake"
if grep -rlE "/usr/|$root/" "$bundle"/lib/cmake "$bundle"/share/cmake; then
  fail "the CMake files above still name a path outside the bundle"
fi

# Shared libraries: what they need beyond glibc/libstdc++ comes along, found through RUNPATH.
# shellcheck disable=SC2016  # $ORIGIN is the dynamic loader's, not the shell's
patchelf --set-rpath '$ORIGIN/../lib' "$bundle/bin/protoc"
while :; do
  added=0
  for file in "$bundle"/bin/protoc "$bundle"/lib/*.so*; do
    [ -L "$file" ] && continue
    # shellcheck disable=SC2016
    if [ "$file" != "$bundle/bin/protoc" ]; then patchelf --set-rpath '$ORIGIN' "$file"; fi
    while read -r name resolved; do
      [[ $name =~ $system_libs ]] && continue
      [ -e "$bundle/lib/$name" ] && continue
      [ -n "$resolved" ] || fail "$file needs $name, which is not installed here"
      cp -L "$resolved" "$bundle/lib/$name"
      added=1
    done < <(ldd "$file" | awk '$2 == "=>" {print $1, ($3 == "not" ? "" : $3)}')
  done
  [ $added = 0 ] && break
done
find "$bundle/lib" -name '*.a' -exec strip --strip-debug {} +

# The golden fixtures' inputs, which the CUDA tests run both models on (the fixture weights,
# 70 MB, stay behind: those tests compare the GPU with the CPU on seeded weights).
fixtures=${OLV2_FIXTURES:-$root/../shared/fixtures}
mkdir -p "$bundle/fixtures"
for input in baseline_input.pt baseline_large_input.pt; do
  [ -f "$fixtures/$input" ] || fail "$fixtures/$input not found (set OLV2_FIXTURES)"
  cp "$fixtures/$input" "$bundle/fixtures/"
done

# --- the check ------------------------------------------------------------------------------
say "checking the bundle with a test project built against it alone"
check=$cache/check
rm -rf "$check"
mkdir -p "$check"
cat >"$check/CMakeLists.txt" <<'EOF'
cmake_minimum_required(VERSION 3.21)
project(gpu_bundle_check LANGUAGES CXX)
set(CMAKE_CXX_STANDARD 17)
find_package(Protobuf REQUIRED)
find_package(yaml-cpp REQUIRED)
find_package(spdlog REQUIRED)
find_package(CLI11 REQUIRED)
find_package(OpenCV REQUIRED COMPONENTS core imgproc imgcodecs)
find_package(nlohmann_json 3 REQUIRED)
find_package(GTest REQUIRED)
add_custom_command(OUTPUT check.pb.cc check.pb.h
  COMMAND protobuf::protoc --proto_path=${PROJECT_SOURCE_DIR} --cpp_out=${PROJECT_BINARY_DIR}
          ${PROJECT_SOURCE_DIR}/check.proto
  DEPENDS check.proto)
add_executable(check check.cpp ${PROJECT_BINARY_DIR}/check.pb.cc)
target_include_directories(check PRIVATE ${PROJECT_BINARY_DIR})
target_link_libraries(check PRIVATE protobuf::libprotobuf yaml-cpp spdlog::spdlog CLI11::CLI11
  ${OpenCV_LIBS} nlohmann_json::nlohmann_json GTest::gtest GTest::gtest_main GTest::gmock)
EOF
cat >"$check/check.proto" <<'EOF'
syntax = "proto3";
message Check { string name = 1; repeated float values = 2; }
EOF
cat >"$check/check.cpp" <<'EOF'
#include <CLI/CLI.hpp>
#include <fmt/format.h>
#include <gloo/algorithm.h>
#include <gloo/rendezvous/store.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>
#include <opencv2/core.hpp>
#include <opencv2/imgcodecs.hpp>
#include <opencv2/imgproc.hpp>
#include <spdlog/spdlog.h>
#include <yaml-cpp/yaml.h>

#include "check.pb.h"

TEST(Bundle, Yaml) { EXPECT_EQ(YAML::Load("a: [1, 2]")["a"][1].as<int>(), 2); }
TEST(Bundle, SpdlogOnFmt) {
  spdlog::info("spdlog {} on fmt {}", SPDLOG_VER_MAJOR, FMT_VERSION);
  EXPECT_EQ(fmt::format("{:.2f}", 1.5), "1.50");
}
TEST(Bundle, Cli11) {
  CLI::App app;
  int n = 0;
  app.add_option("--n", n);
  const char* argv[] = {"check", "--n", "3"};
  app.parse(3, argv);
  EXPECT_EQ(n, 3);
}
TEST(Bundle, Json) { EXPECT_EQ(nlohmann::json::parse(R"({"a": 2})")["a"].get<int>(), 2); }
TEST(Bundle, Protobuf) {
  Check message;
  message.set_name("x");
  message.add_values(1.5f);
  Check back;
  ASSERT_TRUE(back.ParseFromString(message.SerializeAsString()));
  EXPECT_EQ(back.values(0), 1.5f);
}
TEST(Bundle, OpenCvJpegAndPng) {
  cv::Mat image(64, 48, CV_8UC3);
  cv::randu(image, 0, 255);
  cv::Mat small;
  cv::resize(image, small, cv::Size(24, 32), 0, 0, cv::INTER_LINEAR);
  std::vector<uchar> png, jpeg;
  ASSERT_TRUE(cv::imencode(".png", small, png));
  ASSERT_TRUE(cv::imencode(".jpg", small, jpeg));
  EXPECT_EQ(cv::norm(cv::imdecode(png, cv::IMREAD_UNCHANGED), small, cv::NORM_INF), 0.0);
  EXPECT_EQ(cv::imdecode(jpeg, cv::IMREAD_COLOR).size(), small.size());
}
TEST(Bundle, GlooAndGmockHeaders) {
  EXPECT_THAT(sizeof(gloo::rendezvous::Store), testing::Gt(0u));
}
EOF
# The system's search paths (PATH included) are off, so the compiler and ninja are named.
cmake -S "$check" -B "$check/build" -G Ninja -DCMAKE_BUILD_TYPE=Release \
  -DCMAKE_CXX_COMPILER="$(command -v c++)" -DCMAKE_MAKE_PROGRAM="$(command -v ninja)" \
  -DCMAKE_PREFIX_PATH="$bundle" -DCMAKE_FIND_USE_CMAKE_SYSTEM_PATH=OFF \
  -DCMAKE_FIND_USE_SYSTEM_ENVIRONMENT_PATH=OFF \
  -DProtobuf_INCLUDE_DIR="$bundle/include" -DProtobuf_LIBRARY="$bundle/lib/libprotobuf.so.32" \
  -DProtobuf_PROTOC_EXECUTABLE="$bundle/bin/protoc" >"$check/configure.log" ||
  fail "the test project's configure failed; see $check/configure.log"
for package in yaml-cpp spdlog fmt CLI11 OpenCV nlohmann_json GTest; do
  dir=$(sed -n "s/^${package}_DIR:[A-Z]*=//p" "$check/build/CMakeCache.txt")
  [[ $dir == "$bundle"/* ]] || fail "the test project found $package in \`$dir\`, not in the bundle"
done
cmake --build "$check/build" -j"$jobs" >"$check/build.log" ||
  fail "the test project's build failed; see $check/build.log"

# Headers: from the bundle, the test project, the compiler, or glibc and the kernel's headers.
dpkg -L libc6-dev linux-libc-dev | grep '^/usr/include/' | LC_ALL=C sort >"$check/libc-headers.txt"
ninja -C "$check/build" -t deps | awk '/^    \//{print $1}' | xargs -r realpath | LC_ALL=C sort -u |
  grep -vE "^($bundle|$check)/|^/usr/include/(c\\+\\+|$arch/c\\+\\+)/|^/usr/lib/gcc/" |
  comm -23 - "$check/libc-headers.txt" >"$check/foreign-headers.txt"
[ ! -s "$check/foreign-headers.txt" ] ||
  fail "the test project read headers from outside the bundle: $(head -3 "$check/foreign-headers.txt" | tr '\n' ' ')"
# Shared libraries: from the bundle, or glibc/libstdc++.
while read -r name resolved; do
  [[ $name =~ $system_libs ]] || [[ $resolved == "$bundle"/lib/* ]] ||
    fail "the test program loads $name from $resolved, not from the bundle"
done < <(ldd "$check/build/check" | awk '$2 == "=>" {print $1, $3}')
"$check/build/check" --gtest_brief=1 >"$check/run.log" 2>&1 ||
  fail "the test program failed; see $check/run.log"

symbols=$(objdump -T "$bundle"/bin/protoc "$bundle"/lib/*.so.*)
glibc=$(grep -o 'GLIBC_[0-9.]*' <<<"$symbols" | sort -uV | tail -1)
glibcxx=$(grep -o 'GLIBCXX_[0-9.]*' <<<"$symbols" | sort -uV | tail -1)
bytes=$(du -sb "$bundle" | cut -f1)
[ "$bytes" -le "$max_bytes" ] ||
  fail "$bundle is $((bytes / 1024 / 1024)) MiB, over the 60 MiB it may take"
# What travels is the archive: xz takes the libraries to about a third.
rm -f "$archive"
tar -C "$root" -cf - gpu_bundle | xz -T"$jobs" -6 >"$archive.partial"
mv "$archive.partial" "$archive"
archive_bytes=$(stat -c %s "$archive")
# What travels to the GPU machine: the checkout's files (tracked, and untracked ones git does
# not ignore) and the archive.
tree_bytes=$(git ls-files -z --cached --others --exclude-standard |
  xargs -0 -r du -cb --apparent-size 2>/dev/null | awk '$2 == "total" {sum += $1} END {print sum + 0}')
travel_bytes=$((tree_bytes + archive_bytes))
[ "$travel_bytes" -le "$max_travel_bytes" ] ||
  fail "the checkout's files ($((tree_bytes / 1024 / 1024)) MiB) and $archive together are" \
       "$((travel_bytes / 1024 / 1024)) MiB, over the $((max_travel_bytes / 1024 / 1024)) MiB" \
       "that may travel to the GPU machine"
say "done in $(( (SECONDS - started) / 60 )) min $(( (SECONDS - started) % 60 )) s: $bundle," \
    "$((bytes / 1024 / 1024)) MiB ($bytes bytes), packed in $archive, $((archive_bytes / 1024 / 1024))" \
    "MiB; with the checkout's files $((travel_bytes / 1024 / 1024)) MiB of" \
    "$((max_travel_bytes / 1024 / 1024)) travel; its libraries need $glibc and $glibcxx or newer"
