import Sockets
import Synchronization

/// One connection to a Redis server, ready after `AUTH` and `SELECT`. Safe to share between tasks:
/// concurrent calls are pipelined on the socket in the order they reach it and each gets its own
/// replies. Most code uses `RedisClient`, which pools these and reconnects; use a connection directly
/// for commands that change connection state (`MULTI`, `WATCH`, `CLIENT` settings).
public final class RedisConnection: RedisCommandRunner {
  let core: RedisConnectionCore
  /// The settings it was opened with (the timeouts apply to its commands).
  public let configuration: RedisConfiguration
  private let io: RedisIOLoop
  private let ownsLoop: Bool

  private init(core: RedisConnectionCore, configuration: RedisConfiguration, io: RedisIOLoop, ownsLoop: Bool)
  {
    self.core = core
    self.configuration = configuration
    self.io = io
    self.ownsLoop = ownsLoop
  }

  deinit {
    let core = self.core
    io.execute { core.fail(.connectionLost("connection closed by the client")) }
    if ownsLoop { io.shutdown(.shutDown) }
  }

  /// Opens a standalone connection on its own loop thread (stopped when the connection is released).
  /// Fails with `.connectionLost` (refused, unresolvable), `.timeout(.connect)` or `.authFailed`.
  public static func connect(_ configuration: RedisConfiguration) async throws(RedisError) -> RedisConnection
  {
    let io: RedisIOLoop
    do {
      io = try RedisIOLoop()
    } catch {
      throw .connectionLost(error.description)
    }
    do {
      return try await connect(configuration, io: io, ownsLoop: true)
    } catch {
      io.shutdown(.shutDown)
      throw error
    }
  }

  /// Opens a connection on `io`: TCP connect (each resolved address in turn while they refuse), then
  /// `AUTH` and `SELECT` pipelined, all within the connect timeout.
  static func connect(_ configuration: RedisConfiguration, io: RedisIOLoop, ownsLoop: Bool = false)
    async throws(RedisError) -> RedisConnection
  {
    let deadline = Milliseconds.deadline(after: configuration.connectTimeout)
    var opened: RedisConnectionCore?
    var lastError = RedisError.connectionLost("no address for \(configuration.host)")
    for address in try SocketAddress.resolve(host: configuration.host, port: configuration.port) {
      do {
        opened = try await openTCP(to: address, configuration, io: io, deadline: deadline)
        break
      } catch {
        guard case .connectionLost = error else { throw error }
        lastError = error
      }
    }
    guard let opened else { throw lastError }
    let connection = RedisConnection(core: opened, configuration: configuration, io: io, ownsLoop: ownsLoop)
    var handshake: [RedisCommand] = []
    if let password = configuration.password {
      if let username = configuration.username {
        handshake.append(RedisCommand("AUTH", RedisArgument(username), RedisArgument(password)))
      } else {
        handshake.append(RedisCommand("AUTH", RedisArgument(password)))
      }
    }
    if configuration.database != 0 {
      handshake.append(RedisCommand("SELECT", RedisArgument(configuration.database)))
    }
    if handshake.isEmpty { return connection }
    let replies = try await connection.send(handshake, deadline: deadline, kind: .connect)
    for (command, reply) in zip(handshake, replies) {
      guard let message = reply.errorMessage else { continue }
      if command.description == "AUTH" { throw .authFailed(message) }
      throw .server(message)
    }
    return connection
  }

  /// False once the connection was closed by either side, timed out or failed; a closed connection
  /// fails every call with the error that closed it.
  public var isOpen: Bool { core.isOpen.load(ordering: .relaxed) }

  /// Sends `commands` in one write and returns their replies in order. Error replies stay in the
  /// array as `.error` values; the call throws only when the connection fails, times out, or the
  /// task is cancelled. `timeout` replaces the configured command timeout for this call.
  public func pipeline(_ commands: [RedisCommand], timeout: Duration?) async throws(RedisError) -> [RESPValue]
  {
    try await send(
      commands, deadline: Milliseconds.deadline(after: timeout ?? configuration.commandTimeout),
      kind: .command)
  }

  /// Routes pub/sub messages to `onMessage` from now on, and calls `onClose` once when the connection
  /// ends. Both run on the loop thread and must not block.
  func routeMessages(
    to onMessage: @escaping @Sendable (RESPValue) -> Void, onClose: @escaping @Sendable (RedisError) -> Void
  ) {
    let core = self.core
    io.execute({ core.routeMessages(to: onMessage, onClose: onClose) }, otherwise: { onClose(.shutDown) })
  }

  /// Closes the connection; calls waiting on it fail with `.connectionLost`.
  public func close() {
    let core = self.core
    io.execute { core.fail(.connectionLost("connection closed by the client")) }
  }

  /// A TCP connection to one address, connected before `deadline`; closed again if that fails.
  private static func openTCP(
    to address: SocketAddress, _ configuration: RedisConfiguration, io: RedisIOLoop, deadline: Int
  ) async throws(RedisError) -> RedisConnectionCore {
    let fd: Int32
    do {
      fd = try address.startConnect()
    } catch {
      throw .connectionLost(error.description)
    }
    let connected = ReplySlot<Void>()
    let core = RedisConnectionCore(
      io: io, fd: fd, limits: configuration.parserLimits, connected: connected, deadline: deadline)
    do {
      try await connected.wait { io.execute({ core.start() }, otherwise: { core.abandon(.shutDown) }) }.get()
    } catch {
      // Cancelled while connecting: the socket is still registered.
      io.execute { core.fail(error) }
      throw error
    }
    return core
  }

  /// Sends `commands` and collects `expectedReplies` replies (one per command unless given: `SUBSCRIBE`
  /// answers once per channel).
  func send(
    _ commands: [RedisCommand], expectedReplies: Int? = nil, deadline: Int, kind: RedisTimeoutKind
  )
    async throws(RedisError)
    -> [RESPValue]
  {
    var encoded: [UInt8] = []
    for command in commands { command.encode(into: &encoded) }
    let bytes = encoded
    let slot = ReplySlot<[RESPValue]>()
    let core = self.core
    let count = expectedReplies ?? commands.count
    return try await slot.wait {
      io.execute(
        { core.enqueue(bytes, count: count, slot: slot, deadline: deadline, kind: kind) },
        otherwise: { slot.finish(.failure(.shutDown)) })
    }.get()
  }
}
