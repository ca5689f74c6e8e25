import CommandLineOptions

extension AppConfiguration {
  /// Refuses `--demo` on an address other machines can reach. The demo is an offline demo: its
  /// GitHub double signs readers in with a client secret published in the source and serves a made-up
  /// catalog, so it listens on loopback only. It ships inside the release binary because one artefact
  /// is simpler to build, sign and deploy than two; this check is what keeps that safe.
  func refuseDemoOffLoopback() throws(OptionError) {
    guard demo, !Self.isLoopback(host) else { return }
    throw OptionError(
      "--demo listens on loopback only (127.0.0.1, ::1 or localhost), not on --host \(host): the demo's "
        + "GitHub double signs readers in with a published client secret")
  }

  /// Whether `host`, a listen address, is loopback: `localhost`, `::1` or an IPv4 address in 127/8.
  static func isLoopback(_ host: String) -> Bool {
    let lower = host.lowercased()
    if lower == "localhost" || lower == "::1" || lower == "[::1]" { return true }
    let parts = lower.split(separator: ".", omittingEmptySubsequences: false)
    return parts.count == 4 && parts[0] == "127" && parts.allSatisfy { $0.count <= 3 && UInt8($0) != nil }
  }
}
