import Synchronization

/// What a client has seen of its servers, for metrics: where its connections go and what that
/// server said it is, the failovers it followed, and its TLS handshakes. Connections report into it
/// as they open; read it with `snapshot`.
public final class RedisTelemetry: Sendable {
  /// Upper bounds of the TLS handshake buckets, in seconds: loopback and a LAN in the first few,
  /// another zone or region in the middle, a struggling server at the top.
  public static let handshakeBounds: [Double] = [
    0.0005, 0.001, 0.002, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 1,
  ]

  /// The figures at one moment.
  public struct Snapshot: Sendable, Equatable {
    /// The server connections go to (`host:port`): the URL's, or the master the sentinels named.
    public var server: String?
    /// What that server answered to `ROLE` when a connection last opened; nil before any did.
    public var role: RedisRole?
    /// Master changes followed: a `+switch-master`, or the sentinels naming another master.
    public var failovers = 0
    /// TLS handshakes per bucket of `handshakeBounds` (not cumulative; over the last bound are in
    /// `handshakeCount` only).
    public var handshakeBuckets = [Int](repeating: 0, count: RedisTelemetry.handshakeBounds.count)
    /// TLS handshakes completed.
    public var handshakeCount = 0
    /// Their total time, in seconds.
    public var handshakeSeconds = 0.0
    /// Connections that failed for a TLS reason: a refused certificate, a protocol failure, or a
    /// handshake that did not finish in time.
    public var tlsFailures = 0
  }

  private let state = Mutex(Snapshot())

  /// Nothing seen yet.
  public init() {}

  /// The figures now.
  public var snapshot: Snapshot { state.withLock { $0 } }

  /// A TLS handshake finished after `seconds`.
  func handshook(after seconds: Double) {
    state.withLock { state in
      state.handshakeCount += 1
      state.handshakeSeconds += seconds
      if let index = Self.handshakeBounds.firstIndex(where: { seconds <= $0 }) {
        state.handshakeBuckets[index] += 1
      }
    }
  }

  /// A connection failed for a TLS reason.
  func tlsFailed() { state.withLock { $0.tlsFailures += 1 } }

  /// A connection opened to `server`, which answered `ROLE` with `role`.
  func connected(to server: RedisServerAddress, role: RedisRole) {
    state.withLock { state in
      state.server = server.description
      state.role = role
    }
  }

  /// The master changed to `server`.
  func followedFailover(to server: RedisServerAddress) {
    state.withLock { state in
      state.failovers += 1
      state.server = server.description
      state.role = nil
    }
  }
}
