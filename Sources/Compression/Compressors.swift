import CLibdeflate
import Synchronization

/// Reusable libdeflate compressors, one list per level. A compressor holds large tables: making one
/// per call would cost more than compressing a fragment, and one must not be shared by two threads
/// at once, so each call takes one out and puts it back.
final class Compressors: Sendable {
  /// A compressor handle. @unchecked Sendable: a handle is only used by the one caller that took
  /// it out of the pool, until it puts it back.
  struct Handle: @unchecked Sendable {
    let pointer: OpaquePointer
  }

  static let shared = Compressors()
  /// Handles kept per level; more are freed (a burst of threads cannot grow the pool for ever).
  static let keptPerLevel = 4

  private let pool = Mutex<[[Handle]]>(Array(repeating: [], count: 13))

  /// Runs `body` with a compressor for `level` (0...12), or returns nil when none can be allocated.
  func with<R>(level: Int, _ body: (OpaquePointer) -> R) -> R? {
    guard (0...12).contains(level) else { return nil }
    let handle =
      pool.withLock { $0[level].popLast() }
      ?? libdeflate_alloc_compressor(Int32(level)).map(Handle.init(pointer:))
    guard let handle else { return nil }
    let result = body(handle.pointer)
    let kept = pool.withLock { lists -> Bool in
      guard lists[level].count < Self.keptPerLevel else { return false }
      lists[level].append(handle)
      return true
    }
    if !kept { libdeflate_free_compressor(handle.pointer) }
    return result
  }
}
