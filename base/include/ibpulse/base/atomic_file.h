#pragma once
// Files that must survive a crash or power loss whole: the counters' state, the SNMPv3 engine
// ID and boots count (RFC 3414: a boots count that goes back lets old messages be replayed),
// the link health, the discovery cache, the simulated fabric's records.
//
// Thread safety: any thread; two writers of one path each leave a whole file (the last rename
// wins), as the temporary file is named after the process and thread.

#include <filesystem>
#include <string>

#include "ibpulse/base/result.h"

namespace ibpulse {

// Writes `bytes` to `path` so that a crash leaves the old content or the new one, never a torn
// or empty file: a temporary file in the same directory, fsync, rename, fsync of the directory.
// The file is created with mode 0600.
Status write_file_atomically(const std::filesystem::path& path, const std::string& bytes);

// The same for a file another writer made (a library writing to a path of its own): `written`
// is flushed to disk, renamed over `path`, and the directory flushed. On an error `written` is
// left where it is.
Status replace_file_durably(const std::filesystem::path& written,
                            const std::filesystem::path& path);

}  // namespace ibpulse
