import TestSupport

extension ProcessRunner {
  /// `repo-scroll --demo` (sign-in included) on a free loopback port, with this package's templates
  /// and static files and 5–30 ms of upstream latency: the browser suites that need the real binary.
  static func fastDemo() throws -> ProcessRunner {
    let root = try ProcessRunner.packageRoot()
    return try ProcessRunner(
      executable: try ProcessRunner.builtProduct("repo-scroll"),
      arguments: [
        "--demo", "--demo-latency", "5..30", "--port", "0", "--templates", root + "/Templates", "--public",
        root + "/Public",
      ], name: "repo-scroll")
  }
}
