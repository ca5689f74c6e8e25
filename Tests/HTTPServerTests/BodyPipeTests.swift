import HTTPServer
import Synchronization
import TestSupport
import Testing

/// A piped stream runs in its reader: chunks are transformed in order, the end is reported once,
/// and a reader that drops the stream ends the producer's stream too.
@Suite(.timeLimit(.minutes(1))) struct BodyPipeTests {
  struct Doubling: BodyTransform {
    var count = 0
    mutating func transform(_ chunk: [UInt8]) -> [UInt8] {
      count += 1
      return chunk.isEmpty ? [] : chunk + chunk
    }
    mutating func finish() -> [UInt8]? { [UInt8(count)] }
  }

  @Test func chunksAreTransformedInOrderAndTheEndComesOnce() async throws {
    let (inner, continuation) = AsyncThrowingStream<[UInt8], any Error>.makeStream()
    for chunk: [UInt8] in [[1], [], [2, 3]] { continuation.yield(chunk) }
    continuation.finish()
    let ends = Mutex(0)
    let piped = BodyPipe.through(inner, Doubling(), finished: { ends.withLock { $0 += 1 } })
    var out: [[UInt8]] = []
    for try await chunk in piped { out.append(chunk) }
    expectEqual(out, [[1, 1], [2, 3, 2, 3], [3]])
    expectEqual(ends.withLock { $0 }, 1)
  }

  @Test func aDroppedStreamEndsTheProducersStreamAndIsReportedOnce() async throws {
    let terminated = Mutex(false)
    let ends = Mutex(0)
    var producer: AsyncThrowingStream<[UInt8], any Error>.Continuation?
    do {
      // Only the pipe holds the inner stream, as in a response.
      let (inner, continuation) = AsyncThrowingStream<[UInt8], any Error>.makeStream()
      continuation.onTermination = { _ in terminated.withLock { $0 = true } }
      producer = continuation
      let piped = BodyPipe.through(inner, finished: { ends.withLock { $0 += 1 } })
      continuation.yield([1])
      var iterator = piped.makeAsyncIterator()
      try await expectEqual(iterator.next(), [1])
    }
    expectEqual(ends.withLock { $0 }, 1, "dropped unfinished: reported once")
    expectTrue(terminated.withLock { $0 }, "the producer learns that nobody reads")
    expectTrue(producer != nil)
  }
}
