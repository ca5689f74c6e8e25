/// One pub/sub message.
public struct RedisMessage: Sendable, Equatable {
  /// The channel it was published to.
  public let channel: String
  /// The pattern that matched, for pattern subscriptions.
  public let pattern: String?
  /// The published bytes.
  public let payload: [UInt8]

  /// A message on `channel`.
  public init(channel: String, pattern: String? = nil, payload: [UInt8]) {
    self.channel = channel
    self.pattern = pattern
    self.payload = payload
  }
}

/// A connection in subscriber mode (RESP2 `SUBSCRIBE`/`PSUBSCRIBE`), outside the pool. Messages arrive on
/// `messages` in publish order. The stream ends when the connection is lost or `close()` is called; Redis
/// does not replay what was published meanwhile, so after an end subscribe again and re-check state.
public final class RedisSubscription: Sendable {
  /// Messages for the subscribed channels and patterns. When more than `bufferLimit` are waiting
  /// unread, the oldest are dropped.
  public let messages: AsyncStream<RedisMessage>
  private let connection: RedisConnection
  private let continuation: AsyncStream<RedisMessage>.Continuation

  /// Unread messages kept per subscription.
  public static let bufferLimit = 4096

  init(connection: RedisConnection) {
    self.connection = connection
    let (stream, continuation) = AsyncStream.makeStream(
      of: RedisMessage.self, bufferingPolicy: .bufferingNewest(Self.bufferLimit))
    self.messages = stream
    self.continuation = continuation
    connection.routeMessages(
      to: { value in
        guard case .array(let items) = value, let payload = items.last?.bytes else { return }
        if items.count == 4 {
          continuation.yield(
            RedisMessage(channel: items[2].string ?? "", pattern: items[1].string, payload: payload))
        } else {
          continuation.yield(RedisMessage(channel: items[1].string ?? "", payload: payload))
        }
      },
      onClose: { _ in continuation.finish() })
  }

  deinit { close() }

  /// Adds channels (`SUBSCRIBE`); returns once the server confirmed every one.
  public func subscribe(_ channels: [String]) async throws(RedisError) {
    try await confirm("SUBSCRIBE", channels)
  }

  /// Adds glob patterns (`PSUBSCRIBE`), such as `news.*`; returns once the server confirmed every one.
  public func subscribe(patterns: [String]) async throws(RedisError) {
    try await confirm("PSUBSCRIBE", patterns)
  }

  /// Removes channels (`UNSUBSCRIBE`); returns once the server confirmed every one.
  public func unsubscribe(_ channels: [String]) async throws(RedisError) {
    try await confirm("UNSUBSCRIBE", channels)
  }

  /// Closes the connection and ends `messages`.
  public func close() {
    connection.close()
    continuation.finish()
  }

  private func confirm(_ name: String, _ names: [String]) async throws(RedisError) {
    if names.isEmpty { return }
    let command = RedisCommand(arguments: [RedisArgument(name)] + names.map { RedisArgument($0) })
    let replies = try await connection.send(
      [command], expectedReplies: names.count,
      deadline: connection.core.io.deadline(after: connection.configuration.commandTimeout), kind: .command)
    if let message = replies.lazy.compactMap(\.errorMessage).first { throw .server(message) }
  }
}

extension RedisClient {
  /// Opens a subscriber connection (not counted in the pool) and subscribes to `channels`.
  public func subscribe(to channels: [String]) async throws(RedisError) -> RedisSubscription {
    let subscription = RedisSubscription(connection: try await openDedicatedConnection())
    try await subscription.subscribe(channels)
    return subscription
  }
}
