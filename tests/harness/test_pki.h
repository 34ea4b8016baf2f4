#pragma once
// Certificates for TLS tests, made at test time with the openssl command line in a directory of
// the test's own (P-256 keys: fast): CAs, and certificates a CA signed with the extensions the
// test names. Nothing is checked in, so nothing expires in the repository.
//
// Thread safety: one test thread uses a TestPki.

#include <filesystem>
#include <string>
#include <vector>

namespace ibpulse::testing {

class TestPki {
 public:
  // A fresh directory named after `prefix`, the process and a counter; removed when destroyed.
  explicit TestPki(const std::string& prefix);
  ~TestPki();
  TestPki(const TestPki&) = delete;
  TestPki& operator=(const TestPki&) = delete;

  const std::filesystem::path& dir() const { return dir_; }
  std::string path(const std::string& name) const { return (dir_ / name).string(); }
  // Writes `text` to `name` in the directory; its path.
  std::string write(const std::string& name, const std::string& text) const;

  // `name`.pem and `name`.key: a self-signed CA. Fails the test when openssl does.
  void make_ca(const std::string& name, const std::string& common_name) const;
  // `name`.pem and `name`.key signed by CA `ca`, with the extensions of `ext` (an openssl
  // extfile: "subjectAltName=IP:127.0.0.1\nextendedKeyUsage=serverAuth\n").
  void make_signed(const std::string& name, const std::string& common_name, const std::string& ext,
                   const std::string& ca = "ca");

  // Runs `openssl ARGS...`; false (and a test failure) unless it exits 0.
  static bool openssl(std::vector<std::string> args);

 private:
  std::filesystem::path dir_;
  int serial_ = 2;
};

}  // namespace ibpulse::testing
