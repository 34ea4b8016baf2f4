#pragma once
// Names the calling thread (up to 15 characters: the kernel's limit), so that top -H, ps -L
// and /proc/<pid>/task/<tid>/comm tell the daemon's threads apart (poller, converter, alerts,
// SNMP agent, remote-write senders). Longer names are cut.
//
// Thread safety: names only the calling thread.

#include <string>

namespace ibpulse {

void name_this_thread(const std::string& name);

}  // namespace ibpulse
