#include "test_pki.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <fstream>

#include "ibpulse/sim/process.h"

namespace ibpulse::testing {

TestPki::TestPki(const std::string& prefix) {
  static std::atomic<int> runs{0};
  dir_ = std::filesystem::temp_directory_path() /
         (prefix + "-" + std::to_string(::getpid()) + "-" + std::to_string(runs++));
  std::filesystem::remove_all(dir_);
  std::filesystem::create_directories(dir_);
}

TestPki::~TestPki() {
  std::error_code ignored;
  std::filesystem::remove_all(dir_, ignored);
}

std::string TestPki::write(const std::string& name, const std::string& text) const {
  std::ofstream(dir_ / name) << text;
  return path(name);
}

bool TestPki::openssl(std::vector<std::string> args) {
  args.insert(args.begin(), "openssl");
  const auto run = sim::run_command(args, {}, std::chrono::seconds(60));
  EXPECT_TRUE(run) << (run ? "" : run.error());
  if (!run) return false;
  EXPECT_EQ(run->exit_code, 0) << run->out << run->err;
  return run->exit_code == 0;
}

void TestPki::make_ca(const std::string& name, const std::string& common_name) const {
  ASSERT_TRUE(
      openssl({"req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes",
               "-keyout", path(name + ".key"), "-out", path(name + ".pem"), "-days", "2", "-subj",
               "/CN=" + common_name, "-addext", "basicConstraints=critical,CA:TRUE", "-addext",
               "keyUsage=critical,keyCertSign,cRLSign"}));
}

void TestPki::make_signed(const std::string& name, const std::string& common_name,
                          const std::string& ext, const std::string& ca) {
  ASSERT_TRUE(
      openssl({"req", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes", "-keyout",
               path(name + ".key"), "-out", path(name + ".csr"), "-subj", "/CN=" + common_name}));
  ASSERT_TRUE(
      openssl({"x509", "-req", "-in", path(name + ".csr"), "-CA", path(ca + ".pem"), "-CAkey",
               path(ca + ".key"), "-set_serial", std::to_string(serial_++), "-days", "2", "-out",
               path(name + ".pem"), "-extfile", write(name + ".ext", ext)}));
}

}  // namespace ibpulse::testing
