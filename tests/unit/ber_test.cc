// The BER rules: the 95% Poisson lower bound, and UFM-style windows scaled by the port's rate.
#include "ber.h"

#include <gtest/gtest.h>

#include <cmath>

namespace ibpulse::exporters::alerts {
namespace {

TEST(Ber, PoissonLowerBoundMatchesTheChiSquareTable) {
  // λ_L(k) = χ²(0.05; 2k) / 2.
  EXPECT_EQ(poisson_lower_bound_95(0), 0);
  EXPECT_NEAR(poisson_lower_bound_95(1), 0.05129, 1e-5);
  EXPECT_NEAR(poisson_lower_bound_95(2), 0.35536, 1e-5);
  EXPECT_NEAR(poisson_lower_bound_95(3), 0.81769, 1e-5);
  EXPECT_NEAR(poisson_lower_bound_95(10), 5.42541, 1e-4);
}

// A 4X HDR port (200 Gb/s) over 10 minutes: 1.2e14 bits. At the 1e-12 spec, 120 errors are the
// expectation; the lower bound crosses 120 somewhere above it, where chance no longer explains
// the count.
TEST(Ber, OneErrorInFewBitsIsNotAboveSpecManyAre) {
  const double bits = 200e9 * 600;
  const double spec = 1e-12;
  // One second of the port covered (2e11 bits): one error proves nothing, a thousand do.
  EXPECT_FALSE(ber_above_spec(1, 200e9, spec));
  EXPECT_TRUE(ber_above_spec(1000, 200e9, spec));
  EXPECT_FALSE(ber_above_spec(0, bits, spec));
  EXPECT_FALSE(ber_above_spec(120, bits, spec));
  EXPECT_TRUE(ber_above_spec(1000, bits, spec));
  uint64_t boundary = 0;
  for (uint64_t k = 120; k < 1000 && boundary == 0; ++k) {
    if (ber_above_spec(k, bits, spec)) boundary = k;
  }
  // λ_L(k) > 120 first at k = 140 or so (the normal approximation: 120 + 1.645 sqrt(120) = 138).
  EXPECT_GE(boundary, 135u);
  EXPECT_LE(boundary, 145u);
  EXPECT_FALSE(ber_above_spec(5, 0, spec)) << "no covered bits: nothing is proven";
}

TEST(Ber, UfmWindowsScaleWithThePortsRate) {
  const auto windows = default_ufm_windows();
  ASSERT_EQ(windows.size(), 2u);
  // UFM's NDR counts on a 4X NDR port (400 Gb/s): 2.88 errors in 12 min, 3 in 125 min.
  EXPECT_NEAR(ufm_allowed_errors(windows[0], 400e9), 2.88, 1e-9);
  EXPECT_NEAR(ufm_allowed_errors(windows[1], 400e9), 3.0, 1e-9);
  // A 2X NDR port (200 Gb/s) sends half the bits: half the errors.
  EXPECT_NEAR(ufm_allowed_errors(windows[0], 200e9), 1.44, 1e-9);
}

}  // namespace
}  // namespace ibpulse::exporters::alerts
