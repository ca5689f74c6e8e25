import Foundation
import Testing

/// The read-only data beside the checkout (`../shared`): GitHub's recorded exchanges
/// (`github-recordings/normalized/`), the OpenAPI pieces (`github-openapi/`) and the Mustache spec
/// (`mustache-spec/`). Every test reads it through `path(_:)`, the one place that decides what its
/// absence means: the test is skipped ("skipped: needs ../shared"), or, with `CI=true`, it fails, so
/// that CI never passes without it.
///
/// ```swift
/// let folder = try SharedData.path("github-recordings/normalized")
/// ```
public enum SharedData {
  /// The absolute path of `../shared` itself (it may not exist), or `REPOSCROLL_SHARED_DIR` when set
  /// (a checkout elsewhere, or a missing folder to see what its absence does).
  public static func directory(filePath: String = #filePath) throws -> String {
    if let path = ProcessInfo.processInfo.environment["REPOSCROLL_SHARED_DIR"], !path.isEmpty { return path }
    let root = try ProcessRunner.packageRoot(filePath: filePath)
    return URL(fileURLWithPath: root).deletingLastPathComponent().appendingPathComponent("shared").path
  }

  /// True when the run must fail rather than skip without `../shared` (`CI=true`).
  public static var isRequired: Bool {
    ProcessInfo.processInfo.environment["CI"]?.lowercased() == "true"
  }

  /// The absolute path of `relative` inside `../shared`. When it is missing, the current test is
  /// skipped ("skipped: needs ../shared"), or, with `CI=true`, this throws an error naming the path.
  public static func path(_ relative: String, filePath: String = #filePath) throws -> String {
    let path = try directory(filePath: filePath) + "/" + relative
    guard FileManager.default.fileExists(atPath: path) else {
      if isRequired {
        throw Missing(path: path)
      }
      try Test.cancel("skipped: needs ../shared (\(relative))")
    }
    return path
  }

  /// `../shared` (or a file in it) is absent while `CI=true` says it must be there.
  public struct Missing: Error, CustomStringConvertible {
    /// The absolute path that was looked for.
    public let path: String
    /// What is missing and where it was expected.
    public var description: String {
      "\(path) is missing: ../shared must sit next to the package (CI=true: absence fails the run)"
    }
  }
}
