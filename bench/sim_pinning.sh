# shellcheck shell=bash
# Sourced by the bench scripts: the simulated fabric on CPU 0, every client on the other CPUs,
# as a fabric answers from its own hardware. Left to the kernel, the simulator's thread and a
# client's two (its own and umad2sim's receiver) land differently from window to window: the
# same client's rate moved by 0.4x between rounds (a poller round at 132k answered MADs/s, the
# next at 228k, the raw client steady at 206k), and a daemon's own threads took the CPU ibsim
# answers with (the ceiling swung 76k-235k within one run). Pinned, both sides measure within
# a few percent from round to round. SCALE_BENCH_PIN=0 (or one CPU): no pinning.

# The command prefix that puts a client on the CPUs the simulator does not use (none: unpinned).
client_pin=()
if [[ ${SCALE_BENCH_PIN:-1} != 0 ]] && (($(nproc) >= 2)); then
  client_pin=(taskset -c "1-$(($(nproc) - 1))")
fi

# simulator_pids STATE_FILE: ibsim's and each subnet manager's pid, from `sim up`'s state.json.
simulator_pids() {
  python3 -c 'import json, sys
s = json.load(open(sys.argv[1]))
print(s["ibsim"]["pid"], *(p["subnet_manager"]["pid"] for p in s["parts"]))' "$1"
}

# pin_simulator STATE_FILE: every thread of the fabric's ibsim and subnet managers on CPU 0.
pin_simulator() {
  ((${#client_pin[@]})) || return 0
  local pid t
  for pid in $(simulator_pids "$1"); do
    for t in /proc/"$pid"/task/*; do taskset -p -c 0 "${t##*/}" >/dev/null; done
  done
}
