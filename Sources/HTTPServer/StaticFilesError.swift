/// Why `StaticFiles` cannot serve a folder: a configuration mistake found at startup, not an answer
/// to a request.
public enum StaticFilesError: Error, Equatable, CustomStringConvertible {
  /// The root folder does not exist (or cannot be resolved).
  case missingRoot(String)
  /// The root exists but is not a folder.
  case notAFolder(String)

  /// Names the root and what is wrong with it, for the startup error.
  public var description: String {
    switch self {
    case .missingRoot(let root): "static root \(root) does not exist"
    case .notAFolder(let root): "static root \(root) is not a folder"
    }
  }
}
