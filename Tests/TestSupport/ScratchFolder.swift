import Foundation
import Synchronization

/// Folders a test process makes for its fixtures (a static root, nginx's prefix, certificates), all
/// inside one folder of the process's own that is removed when the process exits. They are not
/// removed one by one, because a test may read a fixture after its processes stop (nginx's logs).
/// `script/test` also gives every run a `TMPDIR` it removes; this covers `swift test` run by hand.
///
/// ```swift
/// let prefix = try ScratchFolder.make("cluster-nginx")  // …/reposcroll-tests-<pid>/cluster-nginx-<id>
/// ```
public enum ScratchFolder {
  /// A new empty folder named `prefix-<random>` inside this process's scratch folder.
  public static func make(_ prefix: String) throws -> String {
    let path = try processFolder() + "/\(prefix)-\(UUID().uuidString.prefix(8))"
    try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    return path
  }

  /// The process's scratch folder, once made.
  private static let root = Mutex<String?>(nil)

  /// Makes the process's scratch folder the first time, and has it removed at exit.
  private static func processFolder() throws -> String {
    try root.withLock { root in
      if let root { return root }
      let path = NSTemporaryDirectory() + "reposcroll-tests-\(getpid())"
      try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
      root = path
      atexit { ScratchFolder.removeAll() }
      return path
    }
  }

  /// Removes the process's scratch folder (at exit; a process killed by a signal leaves it).
  private static func removeAll() {
    guard let path = root.withLock({ $0 }) else { return }
    try? FileManager.default.removeItem(atPath: path)
  }
}
