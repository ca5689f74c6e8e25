/// Prometheus text exposition, written into one string: each family's `# HELP` and `# TYPE` lines
/// once, then its samples.
///
/// ```swift
/// var text = MetricsText()
/// text.family("reposcroll_cache_bytes", .gauge, "Bytes held by the GitHub response cache.")
/// text.sample("reposcroll_cache_bytes", 4096)
/// ```
struct MetricsText {
  /// The metric kinds this app exposes.
  enum Kind: String {
    case counter, gauge, histogram
  }

  private(set) var text = ""

  init() { text.reserveCapacity(4096) }

  /// The `# HELP` and `# TYPE` lines that open a family.
  mutating func family(_ name: String, _ kind: Kind, _ help: String) {
    text += "# HELP \(name) \(help)\n# TYPE \(name) \(kind.rawValue)\n"
  }

  /// One sample; `labels` is the already-quoted `key="value",…` list, or empty.
  mutating func sample(_ name: String, labels: String = "", _ value: some CustomStringConvertible) {
    text += labels.isEmpty ? "\(name) \(value)\n" : "\(name){\(labels)} \(value)\n"
  }

  /// A histogram's samples from per-bucket counts (not cumulative) for `bounds`: the cumulative
  /// `_bucket` lines, `+Inf` (every observation, `count`), `_sum` and `_count`.
  mutating func histogram(
    _ name: String, labels: String = "", bounds: [Double], buckets: [Int], count: Int, sum: Double
  ) {
    let prefix = labels.isEmpty ? "" : labels + ","
    var cumulative = 0
    for (bound, inBucket) in zip(bounds, buckets) {
      cumulative += inBucket
      sample(name + "_bucket", labels: prefix + "le=\"\(bound)\"", cumulative)
    }
    sample(name + "_bucket", labels: prefix + "le=\"+Inf\"", count)
    sample(name + "_sum", labels: labels, sum)
    sample(name + "_count", labels: labels, count)
  }

  /// A family with a single unlabelled sample.
  mutating func single(_ name: String, _ kind: Kind, _ help: String, _ value: some CustomStringConvertible) {
    family(name, kind, help)
    sample(name, value)
  }
}
