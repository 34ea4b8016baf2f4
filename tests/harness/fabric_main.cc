// main() for integration test binaries that share one simulated fabric.
#include <gtest/gtest.h>

#include "sim_fabric.h"

int main(int argc, char** argv) {
  ::testing::InitGoogleTest(&argc, argv);
  ::testing::AddGlobalTestEnvironment(new ibpulse::testing::SimFabricEnvironment());
  return RUN_ALL_TESTS();
}
