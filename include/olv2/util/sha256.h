#pragma once
// SHA-256 (FIPS 180-4), the digest by which published checkpoints are named.
#include <string>
#include <string_view>

namespace olv2 {

// The SHA-256 digest of `data` as 64 lower-case hexadecimal digits, as sha256sum prints it.
std::string sha256_hex(std::string_view data);

}  // namespace olv2
