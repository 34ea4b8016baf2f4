// `ibpulse top`: the worst links and the congestion roots of a running daemon, refreshed every
// second in the terminal (or once, as text or JSON, for scripts). It reads the daemon's
// /api/health (health_view.h); with --local it starts a daemon of its own on a free loopback
// port and reads that one.
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/ioctl.h>
#include <sys/wait.h>
#include <termios.h>
#include <unistd.h>

#include <cerrno>
#include <filesystem>
#include <fstream>
#include <optional>
#include <regex>
#include <sstream>
#include <thread>

#include "commands.h"
#include "config_flags.h"
#include "ibpulse/exporters/alerts/health_text.h"
#include "ibpulse/exporters/prometheus/http_fetch.h"

namespace ibpulse::cli {
namespace {

using namespace std::chrono_literals;
using exporters::alerts::HealthDocument;
using exporters::alerts::HealthSort;
using exporters::alerts::HealthTextView;
using exporters::prometheus::http_get_body;
using exporters::prometheus::HttpUrl;
using exporters::prometheus::parse_http_url;

struct TopArgs {
  std::string url = "http://127.0.0.1:9731";
  bool local = false;
  std::string config;  // --local: the daemon's configuration file
  bool once = false;
  bool json = false;
  std::string sort = "state";
  std::string filter;
  double interval = 1;
};

// The terminal in raw mode (keys without Enter, no echo) while it lives, the cursor hidden.
class RawTerminal {
 public:
  RawTerminal() {
    if (tcgetattr(STDIN_FILENO, &saved_) != 0) return;
    termios raw = saved_;
    raw.c_lflag &= ~static_cast<tcflag_t>(ICANON | ECHO);
    raw.c_cc[VMIN] = 0;
    raw.c_cc[VTIME] = 0;
    active_ = tcsetattr(STDIN_FILENO, TCSANOW, &raw) == 0;
    fputs("\x1b[?25l", stdout);
  }
  ~RawTerminal() {
    fputs("\x1b[?25h\n", stdout);
    fflush(stdout);
    if (active_) tcsetattr(STDIN_FILENO, TCSANOW, &saved_);
  }
  RawTerminal(const RawTerminal&) = delete;
  RawTerminal& operator=(const RawTerminal&) = delete;

 private:
  termios saved_{};
  bool active_ = false;
};

std::pair<unsigned, unsigned> terminal_size() {
  winsize w{};
  if (ioctl(STDOUT_FILENO, TIOCGWINSZ, &w) == 0 && w.ws_col > 0 && w.ws_row > 0)
    return {w.ws_col, w.ws_row};
  return {80, 24};
}

// A daemon of top's own (--local): started on a free loopback port, stopped with top.
class LocalDaemon {
 public:
  static Result<std::unique_ptr<LocalDaemon>> start(const std::string& config) {
    auto d = std::unique_ptr<LocalDaemon>(new LocalDaemon());
    d->log_ = std::filesystem::temp_directory_path() /
              ("ibpulse-top-" + std::to_string(getpid()) + ".log");
    std::vector<std::string> args = {
        "/proc/self/exe", "run", "--web.listen-address",  "127.0.0.1:0",
        "--snmp.listen",  "off", "--state.save-interval", "off"};
    if (!config.empty()) args.insert(args.end(), {"--config", config});
    std::vector<char*> argv;
    argv.reserve(args.size() + 1);
    for (auto& a : args)
      argv.push_back(a.data());
    argv.push_back(nullptr);
    posix_spawn_file_actions_t files;
    posix_spawn_file_actions_init(&files);
    posix_spawn_file_actions_addopen(&files, STDERR_FILENO, d->log_.c_str(),
                                     O_WRONLY | O_CREAT | O_TRUNC, 0600);
    posix_spawn_file_actions_addopen(&files, STDOUT_FILENO, "/dev/null", O_WRONLY, 0);
    const int rc = posix_spawn(&d->pid_, argv[0], &files, nullptr, argv.data(), environ);
    posix_spawn_file_actions_destroy(&files);
    if (rc != 0) return Err("cannot start a local daemon: {}", std::strerror(rc));
    fmt::print(stderr, "top: starting a local daemon (log {})\n", d->log_.string());
    for (auto until = std::chrono::steady_clock::now() + 60s;
         std::chrono::steady_clock::now() < until;) {
      if (auto port = d->web_port()) {
        d->url_ = fmt::format("http://127.0.0.1:{}", *port);
        return d;
      }
      if (waitpid(d->pid_, nullptr, WNOHANG) == d->pid_) {
        d->pid_ = -1;
        return Err("the local daemon stopped: see {}", d->log_.string());
      }
      std::this_thread::sleep_for(100ms);
    }
    return Err("the local daemon did not listen within 60 s: see {}", d->log_.string());
  }
  ~LocalDaemon() {
    if (pid_ > 0) {
      kill(pid_, SIGTERM);
      waitpid(pid_, nullptr, 0);
    }
  }
  const std::string& url() const { return url_; }

 private:
  LocalDaemon() = default;
  std::optional<unsigned> web_port() const {
    std::ifstream in(log_);
    std::stringstream text;
    text << in.rdbuf();
    std::smatch m;
    const std::string s = text.str();
    static const std::regex re("event=web_listening .* port=([0-9]+)");
    if (!std::regex_search(s, m, re)) return std::nullopt;
    return static_cast<unsigned>(std::stoul(m[1]));
  }
  pid_t pid_ = -1;
  std::filesystem::path log_;
  std::string url_;
};

// One fetch: the document, or the error in view.error (the last good document stays shown).
bool fetch(const HttpUrl& url, HealthDocument& health, HealthTextView& view) {
  auto body = http_get_body(url, 5s);
  auto parsed = body ? HealthDocument::parse(*body) : Result<HealthDocument>(Error{body.error()});
  if (!parsed) {
    view.error = parsed.error();
    return false;
  }
  view.error.clear();
  health = std::move(*parsed);
  return true;
}

// `text` for a URL's query: unreserved characters as they are, the rest %XX.
std::string percent_encoded(std::string_view text) {
  std::string out;
  for (const char c : text) {
    if (std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '-' || c == '.' || c == '_' ||
        c == '~') {
      out.push_back(c);
    } else {
      out += fmt::format("%{:02X}", static_cast<unsigned>(static_cast<unsigned char>(c)));
    }
  }
  return out;
}

// Waits up to `wait` for a key; 0: none. Standard input at its end (top run from a script with
// </dev/null) is readable at once and forever: then it just waits, rather than spin.
char read_key(std::chrono::milliseconds wait) {
  static bool input_ended = false;
  if (!input_ended) {
    pollfd p{STDIN_FILENO, POLLIN, 0};
    if (poll(&p, 1, static_cast<int>(wait.count())) != 1) return 0;
    char c = 0;
    const ssize_t n = read(STDIN_FILENO, &c, 1);
    if (n == 1) return c;
    if (n == 0) input_ended = true;
    if (n < 0 && errno != EINTR && errno != EAGAIN) input_ended = true;
    return 0;
  }
  std::this_thread::sleep_for(wait);
  return 0;
}

int run_top(const TopArgs& a) {
  HealthTextView view;
  if (a.sort == "ber") view.sort = HealthSort::kBer;
  if (a.sort == "flaps") view.sort = HealthSort::kFlaps;
  std::shared_ptr<const exporters::alerts::NameFilter> filter;
  if (!a.filter.empty()) {
    auto compiled = exporters::alerts::NameFilter::compile(a.filter);
    if (!compiled) return fail(fmt::format("--filter: {}", compiled.error()));
    filter = std::move(*compiled);
    view.filter = filter.get();
    view.filter_text = a.filter;
  }
  std::unique_ptr<LocalDaemon> local;
  std::string url_text = a.url;
  if (a.local) {
    auto started = LocalDaemon::start(a.config);
    if (!started) return fail(started.error());
    local = std::move(*started);
    url_text = local->url();
  }
  auto url = parse_http_url(url_text);
  if (!url) return fail(fmt::format("--url: {}", url.error()));
  if (url->path == "/") url->path = "/api/health";
  // The daemon filters, so a switch's links are found beyond the fabric's worst hundred.
  if (!a.filter.empty()) url->path += "?filter=" + percent_encoded(a.filter);
  view.source = url_text;
  HealthDocument health;
  if (a.once) {
    // A local daemon needs a discovery and a sweep before its first judgement of the fabric.
    const auto judged = [&] { return health.links() > 0; };
    for (int tries = 0; !fetch(*url, health, view) || (local && !judged()); ++tries) {
      if (!local || tries > 100) return fail(view.error.empty() ? "no health yet" : view.error);
      std::this_thread::sleep_for(300ms);
    }
    if (a.json) {
      fmt::print("{}\n", arrange(health, view));
      return 0;
    }
    std::tie(view.width, view.height) =
        isatty(STDOUT_FILENO) ? terminal_size() : std::pair{160u, 200u};
    for (const auto& line : render_health_text(health, view))
      fmt::print("{}\n", line);
    return 0;
  }
  RawTerminal terminal;
  const auto interval = std::chrono::milliseconds(static_cast<int64_t>(a.interval * 1000));
  for (;;) {
    fetch(*url, health, view);
    std::tie(view.width, view.height) = terminal_size();
    ++view.refresh;
    std::string frame = "\x1b[H\x1b[2J";
    for (const auto& line : render_health_text(health, view))
      frame += line + "\r\n";
    fputs(frame.c_str(), stdout);
    fflush(stdout);
    const auto next = std::chrono::steady_clock::now() + interval;
    for (auto left = interval; left.count() > 0;
         left = std::chrono::duration_cast<std::chrono::milliseconds>(
             next - std::chrono::steady_clock::now())) {
      const char key = read_key(left);
      if (key == 'q' || key == 'Q') return 0;
      if (key == 's' || key == 'S') {
        view.sort = next_sort(view.sort);
        break;  // redraw now
      }
    }
  }
}

}  // namespace

void add_top_command(CLI::App& app, Action& action) {
  auto* top = app.add_subcommand(
      "top",
      "The worst links (health state, BERs, flaps, reasons, both ends by name) and the "
      "congestion roots with their victim counts, refreshed every second from a running "
      "daemon's /api/health, like top for the fabric. Keys: s changes the sort, q quits. Works "
      "in an 80x24 terminal over ssh; --once --json for scripts.");
  auto a = std::make_shared<TopArgs>();
  top->add_option("--url", a->url, "The daemon's web address (plain http)")->capture_default_str();
  top->add_flag("--local", a->local,
                "Start a daemon of top's own on a free loopback port (this host's fabric) and "
                "show it; stopped when top ends")
      ->excludes(top->get_option("--url"));
  top->add_option("--config", a->config, "With --local: the daemon's configuration file")
      ->check(CLI::ExistingFile);
  top->add_flag("--once", a->once, "Print one frame (or, with --json, the document) and exit");
  top->add_flag("--json", a->json,
                "With --once: the /api/health document, links and roots filtered and sorted");
  top->add_option("--sort", a->sort, "Links by state (then BER), ber, or flaps")
      ->capture_default_str()
      ->check(CLI::IsMember({"state", "ber", "flaps"}));
  top->add_option("--filter", a->filter,
                  "Only links and roots with an end whose node name or GUID matches this "
                  "regular expression (a switch's name, a rack's prefix)");
  add_seconds_option(*top, "--interval", a->interval,
                     "Time between refreshes: seconds or a duration (500ms, 1m)", 0.2, 3600)
      ->default_str("1s");
  top->callback([a, &action] {
    action = [a] {
      if (a->json && !a->once) return fail("--json needs --once: the live view is for people");
      return run_top(*a);
    };
  });
}

}  // namespace ibpulse::cli
