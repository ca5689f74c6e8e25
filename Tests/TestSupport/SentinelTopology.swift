import Clocks
import Foundation
import Redis
import TLS

/// Redis Sentinel on loopback for failover tests: one master, one replica of it and three
/// `redis-sentinel` processes monitoring it with a quorum of two, plain or TLS, with optional
/// passwords for the data servers and for the sentinels. A sentinel declares the master down after
/// `downAfter` without an answer, so a killed master is replaced within about that plus a second.
///
/// ```swift
/// let topology = try await SentinelTopology.start(.tls, password: "data-pw", sentinelPassword: "s-pw")
/// let client = try RedisClient(topology.configuration(), time: .system)
/// await topology.master.kill()      // the replica is promoted; the client follows
/// ```
public final class SentinelTopology: Sendable {
  /// The name the sentinels monitor the master under.
  public let masterName = "reposcroll"
  /// The master at the start.
  public let master: RedisServerProcess
  /// Its replica at the start.
  public let replica: RedisServerProcess
  /// The three sentinels.
  public let sentinels: [ProcessRunner]
  /// Their ports.
  public let sentinelPorts: [Int]
  /// The data servers' password, if any.
  public let password: String?
  /// The sentinels' password, if any.
  public let sentinelPassword: String?
  /// TLS settings shared by every server; nil for plain text.
  public let tls: RedisTLSOptions?
  private let directory: String

  private init(
    master: RedisServerProcess, replica: RedisServerProcess, sentinels: [ProcessRunner], sentinelPorts: [Int],
    password: String?, sentinelPassword: String?, tls: RedisTLSOptions?, directory: String
  ) {
    self.master = master
    self.replica = replica
    self.sentinels = sentinels
    self.sentinelPorts = sentinelPorts
    self.password = password
    self.sentinelPassword = sentinelPassword
    self.tls = tls
    self.directory = directory
  }

  deinit { try? FileManager.default.removeItem(atPath: directory) }

  /// Starts the master, the replica and the sentinels, and returns once every sentinel knows the
  /// replica and the two other sentinels (a failover needs both).
  public static func start(
    _ transport: RedisTransport, password: String? = nil, sentinelPassword: String? = nil,
    downAfter: Duration = .milliseconds(1000)
  ) async throws -> SentinelTopology {
    let tls = transport == .tls ? RedisTLSOptions(certificates: try await TestCertificates.shared()) : nil
    let auth = password.map { ["--masterauth", $0] } ?? []
    let master = try await RedisServerProcess(password: password, tls: tls, extraArguments: auth)
    let replica = try await RedisServerProcess(
      password: password, tls: tls, extraArguments: auth + ["--replicaof", "127.0.0.1", String(master.port)])
    let directory = NSTemporaryDirectory() + "sentinels-\(UUID().uuidString.prefix(8))"
    try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
    var sentinels: [ProcessRunner] = []
    var ports: [Int] = []
    let downAfterMilliseconds = Int((downAfter / .milliseconds(1)).rounded())
    for index in 0..<3 {
      let port = try ProcessRunner.freeLoopbackPort()
      var lines = [
        "bind 127.0.0.1", "dir \(directory)", "daemonize no",
        "sentinel monitor reposcroll 127.0.0.1 \(master.port) 2",
        "sentinel down-after-milliseconds reposcroll \(downAfterMilliseconds)",
        "sentinel failover-timeout reposcroll 10000", "sentinel parallel-syncs reposcroll 1",
      ]
      if let tls {
        let (certificate, key) = tls.certificates.server(.valid)
        lines += [
          "port 0", "tls-port \(port)", "tls-cert-file \(certificate)", "tls-key-file \(key)",
          "tls-ca-cert-file \(tls.certificates.ca)", "tls-auth-clients no", "tls-replication yes",
        ]
      } else {
        lines.append("port \(port)")
      }
      if let password { lines.append("sentinel auth-pass reposcroll \(password)") }
      if let sentinelPassword {
        lines += ["requirepass \(sentinelPassword)", "sentinel sentinel-pass \(sentinelPassword)"]
      }
      // A sentinel rewrites its configuration file, so each has its own.
      let file = directory + "/sentinel-\(index).conf"
      try (lines.joined(separator: "\n") + "\n").write(toFile: file, atomically: true, encoding: .utf8)
      let sentinel = try ProcessRunner(
        executable: "redis-sentinel", arguments: [file], name: "redis-sentinel")
      _ = try await sentinel.waitForLine(matching: "monitor master", timeout: .seconds(10))
      sentinels.append(sentinel)
      ports.append(port)
    }
    let topology = SentinelTopology(
      master: master, replica: replica, sentinels: sentinels, sentinelPorts: ports, password: password,
      sentinelPassword: sentinelPassword, tls: tls, directory: directory)
    try await topology.waitUntilReady()
    return topology
  }

  /// `host:port,host:port,host:port`, as `--redis-sentinels` takes them.
  public var sentinelList: String { sentinelPorts.map { "127.0.0.1:\($0)" }.joined(separator: ",") }

  /// A client configuration that finds the master through the sentinels.
  public func configuration() throws -> RedisConfiguration {
    var configuration = try RedisConfiguration(url: "\(tls == nil ? "redis" : "rediss")://\(masterName)/0")
    configuration.password = password
    configuration.tls?.caFile = tls?.certificates.ca
    var sentinel = try RedisSentinelConfiguration(sentinels: sentinelList, masterName: masterName)
    sentinel.password = sentinelPassword
    configuration.sentinel = sentinel
    return configuration
  }

  /// The port of the master the first sentinel that answers names now.
  public func masterPort() async throws -> Int? {
    for port in sentinelPorts {
      guard
        let reply = try? await ask(port, ["SENTINEL", "get-master-addr-by-name", RedisArgument(masterName)]),
        let text = reply.array?.last?.string
      else { continue }
      return Int(text)
    }
    return nil
  }

  /// Stops every process.
  public func stop() async {
    for sentinel in sentinels { await sentinel.terminate() }
    await replica.stop()
    await master.stop()
  }

  /// Waits until each sentinel lists the replica as up and knows the two other sentinels.
  private func waitUntilReady() async throws {
    try await waitUntil(
      "the sentinels know the replica and each other", timeout: .seconds(30), poll: .milliseconds(100)
    ) {
      for port in sentinelPorts {
        let replicas = try await ask(port, ["SENTINEL", "replicas", RedisArgument(masterName)]).array ?? []
        let others = try await ask(port, ["SENTINEL", "sentinels", RedisArgument(masterName)]).array ?? []
        let upReplicas = replicas.filter { Self.field("flags", in: $0) == "slave" }
        if upReplicas.isEmpty || others.count < 2 { return false }
      }
      return true
    }
  }

  /// One command to the sentinel on `port`.
  private func ask(_ port: Int, _ command: [RedisArgument]) async throws -> RESPValue {
    var configuration = try RedisConfiguration(url: "\(tls == nil ? "redis" : "rediss")://127.0.0.1:\(port)")
    configuration.password = sentinelPassword
    configuration.tls?.caFile = tls?.certificates.ca
    configuration.connectTimeout = .seconds(5)
    configuration.commandTimeout = .seconds(5)
    let connection = try await RedisConnection.connect(configuration, time: .system)
    defer { connection.close() }
    return try await connection.execute(command)
  }

  /// The value after `name` in a flat `[name, value, …]` reply.
  private static func field(_ name: String, in reply: RESPValue) -> String? {
    guard let items = reply.array else { return nil }
    var index = 0
    while index + 1 < items.count {
      if items[index].string == name { return items[index + 1].string }
      index += 2
    }
    return nil
  }
}
