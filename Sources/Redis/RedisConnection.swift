import Clocks
import Sockets
import Synchronization
import TLS

/// One connection to a Redis server, ready after `AUTH` and `SELECT`. Safe to share between tasks:
/// concurrent calls are pipelined on the socket in the order they reach it and each gets its own
/// replies. Most code uses `RedisClient`, which pools these and reconnects; use a connection directly
/// for commands that change connection state (`MULTI`, `WATCH`, `CLIENT` settings).
public final class RedisConnection: RedisCommandRunner {
  let core: RedisConnectionCore
  /// The settings it was opened with (the timeouts apply to its commands; `host` and `port` are the
  /// server it went to, which for a client of sentinels is the master they named).
  public let configuration: RedisConfiguration
  /// What the server answered to `ROLE` when the connection opened.
  public let role: RedisRole
  /// The client's master generation when it opened: a connection of an older one is not reused.
  let generation: Int
  private let io: RedisIOLoop
  private let ownsLoop: Bool
  private let readOnly = Atomic<Bool>(false)

  private init(
    core: RedisConnectionCore, configuration: RedisConfiguration, role: RedisRole, generation: Int,
    io: RedisIOLoop, ownsLoop: Bool
  ) {
    self.core = core
    self.configuration = configuration
    self.role = role
    self.generation = generation
    self.io = io
    self.ownsLoop = ownsLoop
  }

  deinit {
    let core = self.core
    io.execute { core.close(.connectionLost("connection closed by the client")) }
    if ownsLoop { io.shutdown(.shutDown) }
  }

  /// Opens a standalone connection on its own loop thread (stopped when the connection is released);
  /// with `sentinel` set, to the master the sentinels name (checked with `ROLE`). Fails with
  /// `.connectionLost` (refused, unresolvable, not the master), `.timeout`, `.tls` or `.authFailed`.
  /// `time` is where its deadlines are read; the executables pass `.system`.
  public static func connect(_ configuration: RedisConfiguration, time: TimeSource) async throws(RedisError)
    -> RedisConnection
  {
    let io: RedisIOLoop
    do {
      io = try RedisIOLoop(time: time)
    } catch {
      throw .connectionLost(error.description)
    }
    do {
      let tls = try configuration.tls.map { (settings) throws(RedisError) in
        try RedisConnection.context(settings)
      }
      var target = configuration
      if let sentinel = configuration.sentinel {
        let found = try await SentinelQuery.master(sentinel, of: configuration, io: io, tls: tls)
        target.host = found.master.host
        target.port = found.master.port
      }
      let dial = Dial(tls: tls, requireMaster: configuration.sentinel != nil)
      return try await connect(target, io: io, dial: dial, ownsLoop: true)
    } catch {
      io.shutdown(.shutDown)
      throw error
    }
  }

  /// A TLS context for `settings`, or `.tls` saying which file could not be used.
  static func context(_ settings: TLSClientConfiguration) throws(RedisError) -> TLSClientContext {
    do {
      return try TLSClientContext(settings)
    } catch {
      throw .tls(error)
    }
  }

  /// How a connection is opened besides its configuration.
  struct Dial: Sendable {
    /// TLS context for `rediss://` (nil: plain).
    var tls: TLSClientContext?
    /// Refuse a server that says it is not a master (the server came from sentinels).
    var requireMaster = false
    /// Ask `ROLE` and `SELECT` (data servers), or neither (sentinels, which have neither).
    var isSentinel = false
    /// The client's master generation, stamped on the connection.
    var generation = 0
    /// Where handshake times, TLS failures and the role go.
    var telemetry: RedisTelemetry?
  }

  /// Opens a connection on `io` to `configuration.host:port`: TCP connect (each resolved address in
  /// turn while they refuse), the TLS handshake if `dial.tls` is set, then `AUTH`, `SELECT` and
  /// `ROLE` pipelined, all within the connect timeout.
  static func connect(
    _ configuration: RedisConfiguration, io: RedisIOLoop, dial: Dial, ownsLoop: Bool = false
  )
    async throws(RedisError) -> RedisConnection
  {
    let deadline = io.deadline(after: configuration.connectTimeout)
    var opened: RedisConnectionCore?
    var lastError = RedisError.connectionLost("no address for \(configuration.host)")
    for address in try SocketAddress.resolve(host: configuration.host, port: configuration.port) {
      do {
        opened = try await openTCP(to: address, configuration, io: io, dial: dial, deadline: deadline)
        break
      } catch {
        guard case .connectionLost = error else { throw error }
        lastError = error
      }
    }
    guard let opened else { throw lastError }
    var handshake: [RedisCommand] = []
    if let password = configuration.password {
      if let username = configuration.username {
        handshake.append(RedisCommand("AUTH", RedisArgument(username), RedisArgument(password)))
      } else {
        handshake.append(RedisCommand("AUTH", RedisArgument(password)))
      }
    }
    if configuration.database != 0 && !dial.isSentinel {
      handshake.append(RedisCommand("SELECT", RedisArgument(configuration.database)))
    }
    if !dial.isSentinel && (configuration.asksRole || dial.requireMaster) {
      handshake.append(RedisCommand("ROLE"))
    }
    let address = RedisServerAddress(host: configuration.host, port: configuration.port)
    let role: RedisRole
    do {
      role = try await RedisConnection.handshake(handshake, on: opened, io: io, deadline: deadline)
    } catch {
      io.execute { opened.fail(error) }
      throw error
    }
    if dial.requireMaster && role != .master && role != .unknown {
      io.execute { opened.close(.connectionLost("not the master")) }
      throw .connectionLost("\(address) answers ROLE as \(role), not master")
    }
    if !dial.isSentinel { dial.telemetry?.connected(to: address, role: role) }
    return RedisConnection(
      core: opened, configuration: configuration, role: dial.isSentinel ? .sentinel : role,
      generation: dial.generation, io: io, ownsLoop: ownsLoop)
  }

  /// Sends the opening commands and checks their replies: a refused `AUTH` (or a `NOAUTH` answer to
  /// `ROLE`) throws `.authFailed`, a refused `SELECT` `.server`; a `ROLE` that is refused (an ACL
  /// user without it, a renamed command) only leaves the role unknown.
  private static func handshake(
    _ commands: [RedisCommand], on core: RedisConnectionCore, io: RedisIOLoop, deadline: Int
  ) async throws(RedisError) -> RedisRole {
    if commands.isEmpty { return .unknown }
    let replies = try await send(
      commands, expectedReplies: commands.count, core: core, io: io, deadline: deadline, kind: .connect)
    var role = RedisRole.unknown
    for (command, reply) in zip(commands, replies) {
      switch (command.description, reply.errorMessage) {
      case ("ROLE", let message?):
        if message.hasPrefix("NOAUTH") || message.hasPrefix("WRONGPASS") { throw .authFailed(message) }
      case ("ROLE", nil): role = RedisRole(reply: reply)
      case ("AUTH", let message?): throw .authFailed(message)
      case (_, let message?): throw .server(message)
      case (_, nil): break
      }
    }
    return role
  }

  /// False once the connection was closed by either side, timed out or failed; a closed connection
  /// fails every call with the error that closed it.
  public var isOpen: Bool { core.isOpen.load(ordering: .relaxed) }

  /// Sends `commands` in one write and returns their replies in order. Error replies stay in the
  /// array as `.error` values; the call throws only when the connection fails, times out, or the
  /// task is cancelled. `timeout` replaces the configured command timeout for this call.
  public func pipeline(_ commands: [RedisCommand], timeout: Duration?) async throws(RedisError) -> [RESPValue]
  {
    let replies = try await send(
      commands, deadline: io.deadline(after: timeout ?? configuration.commandTimeout),
      kind: .command)
    if replies.contains(where: Self.isReadOnly) { readOnly.store(true, ordering: .relaxed) }
    return replies
  }

  /// True once a command was answered `READONLY`: the server is a replica now (a demoted master).
  public var answeredReadOnly: Bool { readOnly.load(ordering: .relaxed) }

  /// A `READONLY` error reply.
  static func isReadOnly(_ reply: RESPValue) -> Bool {
    if case .error(let message) = reply { return message.hasPrefix("READONLY") }
    return false
  }

  /// Routes pub/sub messages to `onMessage` from now on, and calls `onClose` once when the connection
  /// ends. Both run on the loop thread and must not block.
  func routeMessages(
    to onMessage: @escaping @Sendable (RESPValue) -> Void, onClose: @escaping @Sendable (RedisError) -> Void
  ) {
    let core = self.core
    io.execute({ core.routeMessages(to: onMessage, onClose: onClose) }, otherwise: { onClose(.shutDown) })
  }

  /// Closes the connection (with TLS, after `close_notify`); calls waiting on it fail with `.connectionLost`.
  public func close() {
    let core = self.core
    io.execute { core.close(.connectionLost("connection closed by the client")) }
  }

  /// A TCP connection to one address, connected (and with TLS, handshaken) before `deadline`; closed
  /// again if that fails.
  private static func openTCP(
    to address: SocketAddress, _ configuration: RedisConfiguration, io: RedisIOLoop, dial: Dial, deadline: Int
  ) async throws(RedisError) -> RedisConnectionCore {
    var session: TLSClientSession?
    if let context = dial.tls {
      do {
        session = try TLSClientSession(context: context, serverName: configuration.host)
      } catch {
        throw .tls(error)
      }
    }
    let fd: Int32
    do {
      fd = try address.startConnect()
    } catch {
      throw .connectionLost(error.description)
    }
    let connected = ReplySlot<Void>()
    let core = RedisConnectionCore(
      io: io, fd: fd, limits: configuration.parserLimits, tls: session, telemetry: dial.telemetry,
      connected: connected, deadline: deadline)
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
    try await Self.send(
      commands, expectedReplies: expectedReplies ?? commands.count, core: core, io: io, deadline: deadline,
      kind: kind)
  }

  /// Sends `commands` on `core` and collects `count` replies.
  private static func send(
    _ commands: [RedisCommand], expectedReplies count: Int, core: RedisConnectionCore, io: RedisIOLoop,
    deadline: Int, kind: RedisTimeoutKind
  ) async throws(RedisError) -> [RESPValue] {
    var encoded: [UInt8] = []
    for command in commands { command.encode(into: &encoded) }
    let bytes = encoded
    let slot = ReplySlot<[RESPValue]>()
    return try await slot.wait {
      io.execute(
        { core.enqueue(bytes, count: count, slot: slot, deadline: deadline, kind: kind) },
        otherwise: { slot.finish(.failure(.shutDown)) })
    }.get()
  }
}
