import Glibc

/// A failed system call: the operation's name and its errno.
public struct SocketError: Error, Sendable, CustomStringConvertible {
  /// The call that failed, for example `bind`.
  public let operation: String
  /// The errno it set.
  public let code: Int32

  /// An error for `operation` with `code`.
  public init(_ operation: String, code: Int32) {
    self.operation = operation
    self.code = code
  }

  /// `bind: Address already in use (98)`.
  public var description: String {
    let text = strerror(code).map { String(cString: $0) } ?? "error"
    return "\(operation): \(text) (\(code))"
  }
}

/// The outcome of a nonblocking call: a value, or "try again once the descriptor is ready".
public enum IOResult<Value: Sendable>: Sendable {
  /// The call completed.
  case done(Value)
  /// The call would block (EAGAIN / EWOULDBLOCK).
  case wouldBlock
}

/// The one place system calls are made: retries EINTR and reports would-block as a value.
public enum Syscall {
  /// Runs `body` until it stops failing with EINTR; EAGAIN becomes `.wouldBlock`, other errors throw.
  @inlinable
  public static func run<T: FixedWidthInteger & Sendable>(
    _ operation: String, _ body: () -> T
  ) throws(SocketError) -> IOResult<T> {
    while true {
      let result = body()
      if result >= 0 { return .done(result) }
      let code = errno
      if code == EINTR { continue }
      if code == EAGAIN || code == EWOULDBLOCK { return .wouldBlock }
      throw SocketError(operation, code: code)
    }
  }

  /// Like `run`, for calls that never legitimately block.
  @inlinable
  public static func check<T: FixedWidthInteger & Sendable>(
    _ operation: String, _ body: () -> T
  ) throws(SocketError) -> T {
    switch try run(operation, body) {
    case .done(let value): return value
    case .wouldBlock: throw SocketError(operation, code: EAGAIN)
    }
  }
}
