import Glibc

/// The standard `process_*` metrics Prometheus client libraries export, read from `/proc/self`:
/// CPU seconds, resident and virtual memory, open and maximum descriptors, and the start time.
struct ProcessMetrics: Sendable {
  /// Clock ticks per second, for the CPU times and start time in `/proc/self/stat`.
  private let ticks = Double(max(1, sysconf(Int32(_SC_CLK_TCK))))
  private let pageSize = Double(max(1, sysconf(Int32(_SC_PAGESIZE))))
  /// Unix seconds the process started: boot time plus the start tick, read once.
  private let startTime: Double

  init() {
    let stat = ProcessMetrics.statFields()
    let boot = ProcessMetrics.bootTime()
    let startTicks = stat.count > 19 ? Double(stat[19]) ?? 0 : 0
    startTime = boot + startTicks / Double(max(1, sysconf(Int32(_SC_CLK_TCK))))
  }

  /// Appends the families; a value `/proc` cannot give is left out rather than reported as 0.
  func render(into out: inout MetricsText) {
    // Fields after the command name (`comm`, which may hold spaces): index 0 is `state`, so
    // utime is 11, stime 12, starttime 19, vsize 20, rss 21 (proc(5) numbers minus 3).
    let stat = Self.statFields()
    if stat.count > 21, let user = Double(stat[11]), let system = Double(stat[12]) {
      out.single(
        "process_cpu_seconds_total", .counter, "Total user and system CPU time spent in seconds.",
        (user + system) / ticks)
      if let virtual = Double(stat[20]) {
        out.single("process_virtual_memory_bytes", .gauge, "Virtual memory size in bytes.", virtual)
      }
      if let pages = Double(stat[21]) {
        out.single(
          "process_resident_memory_bytes", .gauge, "Resident memory size in bytes.", pages * pageSize)
      }
    }
    out.single(
      "process_start_time_seconds", .gauge, "Start time of the process since unix epoch in seconds.",
      startTime)
    if let open = Self.openDescriptors() {
      out.single("process_open_fds", .gauge, "Number of open file descriptors.", open)
    }
    var limit = rlimit()
    if getrlimit(__rlimit_resource_t(RLIMIT_NOFILE.rawValue), &limit) == 0 {
      out.single(
        "process_max_fds", .gauge, "Maximum number of open file descriptors.", Double(limit.rlim_cur))
    }
  }

  /// The whitespace-separated fields of `/proc/self/stat` after `(comm)`.
  private static func statFields() -> [Substring] {
    guard let text = readSmallFile("/proc/self/stat"), let close = text.lastIndex(of: ")") else { return [] }
    return text[text.index(after: close)...].split(separator: " ")
  }

  /// `btime` from `/proc/stat`: when the system booted, in Unix seconds.
  private static func bootTime() -> Double {
    guard let text = readSmallFile("/proc/stat") else { return 0 }
    for line in text.split(separator: "\n") where line.hasPrefix("btime ") {
      return Double(line.dropFirst(6)) ?? 0
    }
    return 0
  }

  /// Entries of `/proc/self/fd`, less the one the listing itself holds open.
  private static func openDescriptors() -> Int? {
    guard let dir = opendir("/proc/self/fd") else { return nil }
    defer { closedir(dir) }
    var count = 0
    while let entry = readdir(dir) {
      let first = withUnsafeBytes(of: entry.pointee.d_name) { $0.first ?? 0 }
      if first != UInt8(ascii: ".") { count += 1 }
    }
    return max(0, count - 1)
  }

  /// A `/proc` file read whole (they report size 0, so read until end), at most 64 KiB.
  private static func readSmallFile(_ path: String) -> String? {
    let fd = open(path, O_RDONLY | O_CLOEXEC)
    guard fd >= 0 else { return nil }
    defer { close(fd) }
    var bytes: [UInt8] = []
    var chunk = [UInt8](repeating: 0, count: 4096)
    while bytes.count < 65536 {
      // Writes only within the array's own storage.
      let n = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
      if n < 0 && errno == EINTR { continue }
      if n <= 0 { break }
      bytes += chunk[0..<n]
    }
    return String(decoding: bytes, as: UTF8.self)
  }
}
