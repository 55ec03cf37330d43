#include "gradient_tolerance.h"

#include <sstream>

namespace olv2::test {

double gradient_parity_tolerance() {
  return std::string(OLV2_BUILT_LIBTORCH) == "debian" ? 5e-5 : 1e-5;
}

std::string gradient_parity_tolerance_text() {
  std::ostringstream text;
  text << gradient_parity_tolerance();
  return text.str();
}

}  // namespace olv2::test
