import Redis
import TestSupport
import Testing

/// Pub/sub on a dedicated subscriber connection.
@Suite(.timeLimit(.minutes(3))) struct RedisSubscriptionTests {
  @Test(arguments: RedisTransport.allCases) func receivesChannelAndPatternMessagesInOrder(
    _ transport: RedisTransport
  ) async throws {
    try await RedisClient.withServer(transport) { _, client in
      let subscription = try await client.subscribe(to: ["filled"])
      try await subscription.subscribe(patterns: ["lock.*"])
      try await expectEqual(client.publish(Array("page:1".utf8), to: "filled"), 1)
      try await expectEqual(client.publish(Array("x".utf8), to: "lock.7"), 1)
      try await expectEqual(client.publish(Array("page:2".utf8), to: "filled"), 1)
      try await expectEqual(client.publish(Array("ignored".utf8), to: "other"), 0)
      var iterator = subscription.messages.makeAsyncIterator()
      await expectEqual(iterator.next(), RedisMessage(channel: "filled", payload: Array("page:1".utf8)))
      await expectEqual(
        iterator.next(), RedisMessage(channel: "lock.7", pattern: "lock.*", payload: Array("x".utf8)))
      await expectEqual(iterator.next(), RedisMessage(channel: "filled", payload: Array("page:2".utf8)))
      // The subscriber connection is outside the pool, and the pool keeps working beside it.
      expectEqual(client.statistics.open, 1)
      try await subscription.unsubscribe(["filled"])
      try await expectEqual(client.publish([1], to: "filled"), 0)
      subscription.close()
      await expectEqual(iterator.next(), nil)
    }
  }

  @Test(arguments: RedisTransport.allCases) func theStreamEndsWhenTheServerGoesAway(
    _ transport: RedisTransport
  ) async throws {
    try await RedisClient.withServer(transport) { server, client in
      let subscription = try await client.subscribe(to: ["filled"])
      await server.kill()
      var iterator = subscription.messages.makeAsyncIterator()
      await expectEqual(iterator.next(), nil)
    }
  }
}
