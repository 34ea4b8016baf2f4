#pragma once
// The daemon's converter thread: drains the pollers' rings (one per local port: each ring has
// one producer) into the Converter, publishes a
// snapshot every publish interval and logs what operators must know (foreign clears, our own
// clears, latched counters). It also loads the state file at the first discovery and saves it
// on an interval and at stop (state_saver.h), and before our own clears go out: a clear erases
// the counts the hardware held, so the reading that asked for it must be on disk first (a
// SIGKILL or power loss right after the clear would otherwise lose the counts since the last
// save).
//
// Thread safety: run() on one thread; set_topology(), update_port() and stats() from any.

#include <atomic>
#include <map>
#include <memory>
#include <mutex>
#include <utility>
#include <vector>

#include "ibpulse/collector/poller.h"
#include "ibpulse/converters/converter.h"
#include "ibpulse/converters/state_saver.h"

namespace ibpulse::converters {

struct ConvertLoopOptions {
  // hold_clears is set by the loop: it releases clears once a save holds their readings.
  ConverterOptions converter;
  std::chrono::milliseconds publish_interval{1000};
  // This many foreign clears in a window, one counter set cleared twice: a warning that
  // another manager clears counters routinely.
  std::chrono::milliseconds foreign_clear_window{600000};
  std::filesystem::path state_dir;  // empty: no state file
  std::chrono::milliseconds state_save_interval{60000};
};

class ConvertLoop {
 public:
  using SampleLogger = void (*)(const collector::RawSample&);
  ConvertLoop(const ConvertLoopOptions& options, std::vector<collector::SampleRing*> rings,
              collector::ClearRings& clears, SnapshotStore& store,
              SampleLogger trace_sample = nullptr);

  void run(const std::atomic<bool>& stop);

  void set_topology(const collector::Topology& topology);
  void update_port(const collector::Port& port);  // a PortInfo read saw it change
  // P_Key tables the pollers read (sorted by port): they replace the ports' earlier ones.
  void update_partitions(std::vector<collector::PortPartitions> tables);
  // The subnet managers a round of SMInfo reads of one subnet found (any thread): they replace
  // that subnet's in the next snapshots.
  void update_subnet_managers(uint8_t subnet, std::vector<collector::SubnetManagerInfo> managers);

  ConverterStats stats() const;
  // At trace level: every port's non-zero totals (what the exporters will serve).
  void log_totals() const;

 private:
  void report(const collector::RawSample& s, const ApplyEvents& events);
  void take_topology();
  void merge_partitions(const std::vector<std::vector<collector::PortPartitions>>& batches);
  void trim_after_snapshots(Clock::time_point now);  // malloc_trim, now and then
  // Our own clears go to the pollers only once a save holds the readings that asked for them.
  void pass_on_clears();

  std::vector<collector::SampleRing*> rings_;
  SampleLogger trace_sample_;
  SnapshotStore& store_;
  std::chrono::milliseconds publish_interval_;
  std::chrono::milliseconds foreign_clear_window_;
  Converter converter_;
  StateSaver state_;
  // Guards pending_, topology_, pending_partitions_, pending_managers_, stats_.
  mutable std::mutex mutex_;
  std::shared_ptr<collector::Topology> pending_;
  std::shared_ptr<const collector::Topology> topology_;
  // P_Key tables handed over, merged into partitions_ (every table read so far) by the
  // converter's thread.
  std::vector<std::vector<collector::PortPartitions>> pending_partitions_;
  std::shared_ptr<const collector::PartitionTables> partitions_;
  // Every subnet's last round (guarded by mutex_), and the merged view handed over, taken by
  // the converter's thread at its next turn.
  std::vector<std::vector<collector::SubnetManagerInfo>> managers_by_subnet_;
  std::vector<uint64_t> manager_rounds_;
  std::shared_ptr<const collector::SubnetManagers> pending_managers_;
  ConverterStats stats_;
  Clock::time_point last_trim_{};
  unsigned foreign_logged_ = 0;
  uint64_t published_ = 0;  // snapshots published: the next one's sequence number
  std::vector<collector::ClearRequest> held_clears_;    // asked, no save started for them yet
  std::vector<collector::ClearRequest> awaiting_save_;  // waiting for save number saved_for_
  uint64_t saved_for_ = 0;
  // Foreign clears in the current window: several mean another manager clears counters.
  struct ForeignClearWindow {
    std::chrono::steady_clock::time_point start{};
    uint64_t clears = 0;
    // Clears per port and attribute: a reboot or one perfquery -R clears each once.
    std::map<std::pair<collector::PortKey, schema::Attribute>, unsigned> per_counter_set;
  } foreign_window_;
  void note_foreign_clear(const collector::RawSample& s);
  // At the end of a window (or at stop: `final`), warns if the clears were frequent.
  void report_foreign_clears(std::chrono::steady_clock::time_point now, bool final = false);
};

}  // namespace ibpulse::converters
