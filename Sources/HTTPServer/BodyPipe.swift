import HTTP

/// What a `BodyPipe` does to each chunk of a streamed body, and what it adds after the last.
/// A `SendableMetatype`: the pump's `@Sendable` pull closure holds a `Pump<T>`.
public protocol BodyTransform: SendableMetatype {
  /// The bytes to send for `chunk` (empty: nothing this time).
  mutating func transform(_ chunk: [UInt8]) throws -> [UInt8]
  /// The bytes to send after the last chunk, if any.
  mutating func finish() throws -> [UInt8]?
}

/// A streamed body passed through a transformation chunk by chunk, pulled by whoever reads it: no
/// task is started, so the transformation runs in the reader's task and stops when the reader stops;
/// a reader that leaves (or drops the stream) ends the inner stream, whose producer is told by its
/// `onTermination`.
///
/// ```swift
/// let counted = BodyPipe.through(stream, finished: { print("sent") })
/// let packed = BodyPipe.through(stream, GzipChunks(level: 1))
/// ```
public enum BodyPipe {
  /// `inner` unchanged; `finished` runs once, when the stream ended, failed, or was dropped.
  public static func through(
    _ inner: AsyncThrowingStream<[UInt8], any Error>, finished: @escaping @Sendable () -> Void
  ) -> AsyncThrowingStream<[UInt8], any Error> {
    through(inner, Unchanged(), finished: finished)
  }

  /// `inner` through `transform`; `finished`, when given, runs once, when the stream ended, failed,
  /// or was dropped.
  public static func through<T: BodyTransform>(
    _ inner: AsyncThrowingStream<[UInt8], any Error>, _ transform: sending T,
    finished: (@Sendable () -> Void)? = nil
  ) -> AsyncThrowingStream<[UInt8], any Error> {
    let pump = Pump(inner.makeAsyncIterator(), transform, finished: finished)
    return AsyncThrowingStream(unfolding: { try await pump.next() })
  }

  private struct Unchanged: BodyTransform {
    func transform(_ chunk: [UInt8]) -> [UInt8] { chunk }
    func finish() -> [UInt8]? { nil }
  }

  /// The inner iterator, the transformation and whether the end was reported.
  private final class Pump<T: BodyTransform>: @unchecked Sendable {
    // @unchecked Sendable: a stream has one reader, which calls `next` only after the previous call
    // returned, so this state is never touched by two tasks at once; deinit runs after the last call.
    private var iterator: AsyncThrowingStream<[UInt8], any Error>.AsyncIterator
    private var transform: T
    private var finished: (@Sendable () -> Void)?
    private var done = false

    init(
      _ iterator: AsyncThrowingStream<[UInt8], any Error>.AsyncIterator, _ transform: T,
      finished: (@Sendable () -> Void)?
    ) {
      self.iterator = iterator
      self.transform = transform
      self.finished = finished
    }

    deinit { finished?() }

    func next() async throws -> [UInt8]? {
      if done { return nil }
      do {
        while let chunk = try await iterator.next() {
          let piece = try transform.transform(chunk)
          if !piece.isEmpty { return piece }
        }
        done = true
        let last = try transform.finish()
        end()
        return last
      } catch {
        done = true
        end()
        throw error
      }
    }

    private func end() {
      finished?()
      finished = nil
    }
  }
}
