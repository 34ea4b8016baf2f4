#include "ibpulse/converters/pipeline_stats.h"

#include <chrono>

#include "ibpulse/base/check.h"

namespace ibpulse::converters {

namespace {

using S = const PipelineStatus&;
constexpr StatKind kLevel = StatKind::kLevel;

// The stop line's entries first, in its order; then the ones only the metrics and the MIB show.
constexpr PipelineStat kStats[] = {
    {.metric = "ibpulse_sweeps_total",
     .help = "Full sweeps of the fabric's counters",
     .log_key = "sweeps",
     .snmp_scalar = 5,
     .count = [](S s) { return s.poller.sweeps; }},
    {.help = "Samples the poller read and handed to the converter",
     .log_key = "samples",
     .count = [](S s) { return s.poller.samples; }},
    {.metric = "ibpulse_samples_converted_total",
     .help = "Samples the converter applied",
     .log_key = "converted",
     .count = [](S s) { return s.converter.samples; }},
    {.metric = "ibpulse_ring_drops_total",
     .help = "Samples dropped because the converter's ring was full",
     .log_key = "ring_drops",
     .count = [](S s) { return s.poller.ring_drops; }},
    {.metric = "ibpulse_late_reads_total",
     .help = "Reads that came due before the previous ones completed: the sweeps lag their "
             "interval",
     .log_key = "late_reads",
     .count = [](S s) { return s.poller.late_reads; }},
    {.metric = "ibpulse_mads_sent_total",
     .help = "PMA MADs sent, retries included",
     .log_key = "mad_sent",
     .snmp_scalar = 9,
     .count = [](S s) { return s.poller.mad.sent; }},
    {.metric = "ibpulse_mads_answered_total",
     .help = "PMA MADs answered",
     .log_key = "mad_answered",
     .count = [](S s) { return s.poller.mad.answered; }},
    {.metric = "ibpulse_mad_timeouts_total",
     .help = "MAD attempts that timed out",
     .log_key = "mad_timeouts",
     .snmp_scalar = 10,
     .count = [](S s) { return s.poller.mad.attempt_timeouts; }},
    {.metric = "ibpulse_mad_late_replies_total",
     .help = "Answers that came after their attempt had timed out (dropped: the read was retried "
             "or failed)",
     .log_key = "mad_late_replies",
     .count = [](S s) { return s.poller.mad.stale_replies; }},
    {.help = "MAD attempts that came back undelivered",
     .log_key = "mad_unreachable",
     .count = [](S s) { return s.poller.mad.attempt_unreachable; }},
    {.help = "MADs sent again after an attempt failed",
     .log_key = "mad_retried",
     .count = [](S s) { return s.poller.mad.retried; }},
    {.metric = "ibpulse_mads_failed_total",
     .help = "MADs that failed after every retry, by reason: timeout (no answer), unreachable "
             "(came back undelivered), status (an error status, e.g. an attribute the PMA does "
             "not support), redirect (the PMA asks to be reached elsewhere; not followed), "
             "send_error (the send itself failed)",
     .log_key = "failed",
     .snmp_scalar = 11,
     .by_reason = [](S s, collector::MadFailure f) { return s.poller.mad.failed_for(f); }},
    {.help = "PortInfo SMPs read between discoveries",
     .log_key = "port_info_reads",
     .count = [](S s) { return s.poller.port_info_reads; }},
    {.help = "PortInfo SMPs unanswered or refused (ports down, M_Key)",
     .log_key = "port_info_failures",
     .count = [](S s) { return s.poller.port_info_failures; }},
    {.metric = "ibpulse_partition_reads_total",
     .help = "PKeyTable SMPs answered (each port's P_Key table, read at each discovery)",
     .log_key = "partition_reads",
     .count = [](S s) { return s.poller.partition_reads; }},
    {.metric = "ibpulse_partition_read_failures_total",
     .help = "PKeyTable SMPs unanswered or refused: the port keeps the table read before, and "
             "is read again at the next discovery",
     .log_key = "partition_read_failures",
     .count = [](S s) { return s.poller.partition_read_failures; }},
    {.metric = "ibpulse_sm_info_reads_total",
     .help = "SMInfo SMPs answered: the subnet managers on the ports whose PortInfo says IsSM, "
             "read after each discovery and every poll.port-info-interval",
     .log_key = "sm_info_reads",
     .count = [](S s) { return s.poller.sm_info_reads; }},
    {.metric = "ibpulse_sm_info_failures_total",
     .help = "SMInfo SMPs unanswered or refused",
     .log_key = "sm_info_failures",
     .count = [](S s) { return s.poller.sm_info_failures; }},
    {.help = "Ports whose link state, width or speed a PortInfo read found changed",
     .log_key = "port_changes",
     .count = [](S s) { return s.poller.port_changes; }},
    {.help = "Sets clearing counters the poller sent, as the converter asked",
     .log_key = "clears_sent",
     .count = [](S s) { return s.poller.clears_sent; }},
    {.metric = "ibpulse_own_clears_total",
     .help = "Counters cleared by ibpulse (counters.clear-policy)",
     .log_key = "own_clears",
     .count = [](S s) { return s.converter.own_clears; }},
    {.metric = "ibpulse_own_clears_failed_total",
     .help = "Clears ibpulse sent that the PMA did not confirm",
     .log_key = "own_clears_failed",
     .count = [](S s) { return s.converter.own_clears_failed; }},
    {.metric = "ibpulse_foreign_clears_total",
     .help = "Readings below the previous one that ibpulse did not cause (out-of-band clears)",
     .log_key = "foreign_clears",
     .count = [](S s) { return s.converter.foreign_clears; }},
    {.metric = "ibpulse_saturations_total",
     .help = "Readings that found a narrow counter latched at all ones (counts beyond it are "
             "lost)",
     .log_key = "lossy_intervals",
     .count = [](S s) { return s.converter.lossy_intervals; }},
    {.metric = "ibpulse_source_switches_total",
     .help = "Counters that moved between 32- and 64-bit sources",
     .log_key = "source_switches",
     .count = [](S s) { return s.converter.source_switches; }},
    {.metric = "ibpulse_readings_held_total",
     .help = "Samples with counters held back until their own copy is read again: restored ones "
             "read from the other copy (narrow or 64-bit) than the last run's, and 64-bit ones "
             "read narrow while their node's ClassPortInfo goes unanswered",
     .log_key = "readings_held",
     .count = [](S s) { return s.converter.readings_held; }},
    {.help = "Time between reading counters and clearing them, summed over the clears",
     .log_key = "clear_window_seconds",
     .seconds = [](S s) { return s.converter.clear_window_seconds; }},
    {.help = "Upper bound of the counts lost between a read and its clear",
     .kind = kLevel,
     .log_key = "clear_window_lost_max",
     .count = [](S s) { return s.converter.clear_window_lost_max; }},

    {.metric = "ibpulse_last_sweep_duration_seconds",
     .help = "Duration of the last full sweep",
     .kind = kLevel,
     .snmp_scalar = 6,
     .seconds = [](S s) { return s.poller.last_sweep.seconds; }},
    {.metric = "ibpulse_last_sweep_lag_seconds",
     .help = "How much longer than poll.counters-interval the last sweep took (0: keeping up)",
     .kind = kLevel,
     .snmp_scalar = 7,
     .seconds = [](S s) { return s.poller.last_sweep.lag_seconds; }},
    {.metric = "ibpulse_last_sweep_stale_ports",
     .help = "Ports the last sweep could not read",
     .kind = kLevel,
     .snmp_scalar = 8,
     .count = [](S s) { return uint64_t{s.poller.last_sweep.stale}; }},
    {.metric = "ibpulse_fabric_nodes",
     .help = "Nodes in the last discovery",
     .kind = kLevel,
     .snmp_scalar = 1,
     .count = [](S s) { return uint64_t{s.poller.nodes}; }},
    {.metric = "ibpulse_fabric_ports",
     .help = "Ports in the last discovery",
     .kind = kLevel,
     .snmp_scalar = 2,
     .count = [](S s) { return uint64_t{s.poller.ports}; }},
    {.metric = "ibpulse_shards_configured",
     .help = "shard.count: collectors sharing the fabric",
     .kind = kLevel,
     .count = [](S s) { return uint64_t{s.poller.shard.count}; }},
    {.metric = "ibpulse_shard_nodes",
     .help = "Nodes this collector polls and exports (shard.*)",
     .kind = kLevel,
     .count = [](S s) { return uint64_t{s.poller.owned_nodes}; }},
    {.metric = "ibpulse_discoveries_total",
     .help = "Fabric discoveries run",
     .snmp_scalar = 3,
     .count = [](S s) { return s.poller.discoveries; }},
    {.metric = "ibpulse_discovery_failures_total",
     .help = "Fabric discoveries that failed",
     .snmp_scalar = 4,
     .count = [](S s) { return s.poller.discovery_failures; }},
    {.metric = "ibpulse_discovery_missing_nodes",
     .help = "Nodes the last discovery did not find whose ports are still polled by their last "
             "LIDs (until discovery.missing-limit discoveries in a row miss them)",
     .kind = kLevel,
     .count = [](S s) { return uint64_t{s.poller.missing_nodes}; }},
    {.metric = "ibpulse_discovery_ports_without_port_info",
     .help = "Linked ports the last discovery read no PortInfo of (lost SMPs): polled by their "
             "last LIDs when an earlier discovery read it, else not until a discovery does",
     .kind = kLevel,
     .count = [](S s) { return uint64_t{s.poller.ports_without_port_info}; }},
    {.metric = "ibpulse_discovery_nodes_gone_total",
     .help = "Nodes dropped after discovery.missing-limit discoveries in a row missed them",
     .count = [](S s) { return s.poller.nodes_gone; }},
    {.metric = "ibpulse_xmit_wait_tick_asks_total",
     .help = "Nodes' PortSamplesControl asked for their PortXmitWait tick and answered (not "
             "reads; their failures are not in ibpulse_mads_failed_total)",
     .count = [](S s) { return s.poller.tick_asks_answered; }},
    {.metric = "ibpulse_xmit_wait_tick_asks_failed_total",
     .help = "Nodes' PortSamplesControl asks that failed after every retry (ibsim answers "
             "none): those nodes' ports use the default tick",
     .count = [](S s) { return s.poller.tick_asks_failed; }},
    {.metric = "ibpulse_mad_malformed_replies_total",
     .help = "Replies dropped because they were shorter than a MAD, answered another "
             "attribute under one of our transaction IDs, or were requests, not responses (the "
             "read is retried)",
     .count = [](S s) { return s.poller.mad.malformed_replies; }},
    {.metric = "ibpulse_saturated_counters",
     .help = "Narrow counters latched at all ones right now",
     .kind = kLevel,
     .snmp_scalar = 12,
     .count = [](S s) { return s.saturated_counters; }},
    {.metric = "ibpulse_discontinuities_total",
     .help = "Breaks in a counter's history: out-of-band clears, source switches, and ports "
             "whose totals restarted (back after they were forgotten, taken up by a shard)",
     .snmp_scalar = 13,
     .count = [](S s) { return s.converter.discontinuities(); }},
    {.metric = "ibpulse_snapshot_age_seconds",
     .help = "Age of the snapshot the scrape was rendered from",
     .kind = kLevel,
     .snmp_scalar = 14,
     .seconds = [](S s) { return s.snapshot_age_seconds; }},
};

constexpr uint32_t highest_scalar() {
  uint32_t n = 0;
  for (const PipelineStat& s : kStats)
    n = s.snmp_scalar > n ? s.snmp_scalar : n;
  return n;
}

// Each entry has exactly one reader, and the scalars 1..N are each named exactly once: a
// duplicate or a gap would serve one figure twice or none (checked when this compiles).
constexpr bool well_formed() {
  for (const PipelineStat& s : kStats) {
    const int readers = (s.count != nullptr) + (s.seconds != nullptr) + (s.by_reason != nullptr);
    if (readers != 1 || s.help.empty() || (s.metric.empty() && s.log_key.empty())) return false;
  }
  for (uint32_t n = 1; n <= highest_scalar(); ++n) {
    int named = 0;
    for (const PipelineStat& s : kStats)
      named += s.snmp_scalar == n;
    if (named != 1) return false;
  }
  return true;
}
static_assert(well_formed());

}  // namespace

PipelineStatus pipeline_status(collector::PollerStats poller, ConverterStats converter,
                               const FabricSnapshot* snapshot, Clock::time_point now) {
  PipelineStatus s{std::move(poller), converter};
  if (snapshot != nullptr) {
    s.saturated_counters = snapshot->saturated_counters();
    s.snapshot_age_seconds = std::chrono::duration<double>(now - snapshot->published).count();
  }
  return s;
}

std::span<const PipelineStat> pipeline_stats() {
  return kStats;
}

uint32_t pipeline_snmp_scalars() {
  return highest_scalar();
}

uint64_t whole_value(const PipelineStat& stat, const PipelineStatus& status) {
  if (stat.count != nullptr) return stat.count(status);
  if (stat.seconds != nullptr) return static_cast<uint64_t>(stat.seconds(status) * 1000);
  IBPULSE_CHECK(stat.by_reason != nullptr);
  uint64_t sum = 0;
  for (const collector::MadFailure reason : collector::kMadFailureReasons)
    sum += stat.by_reason(status, reason);
  return sum;
}

}  // namespace ibpulse::converters
