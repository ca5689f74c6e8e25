import Foundation

/// The read-only data beside the checkout (`../shared`: GitHub recordings, OpenAPI pieces, the Mustache
/// spec). Tests read it from there and fail loudly, never skip, when it is missing.
public enum SharedData {
  /// The absolute path of `../shared` itself.
  public static func directory(filePath: String = #filePath) throws -> String {
    let root = try ProcessRunner.packageRoot(filePath: filePath)
    return URL(fileURLWithPath: root).deletingLastPathComponent().appendingPathComponent("shared").path
  }

  /// The absolute path of `relative` inside `../shared`, or an error naming where it was expected.
  public static func path(_ relative: String, filePath: String = #filePath) throws -> String {
    let path = try directory(filePath: filePath) + "/" + relative
    guard FileManager.default.fileExists(atPath: path) else {
      throw WebDriverError.process("\(path) is missing: ../shared must sit next to the package")
    }
    return path
  }
}
