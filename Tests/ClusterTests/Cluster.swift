import Foundation
import TestSupport

/// How an instance reaches Redis: the flags and environment it gets. A password goes in the
/// environment only (repo-scroll refuses one in a flag value).
struct RedisTarget: Sendable {
  var arguments: [String] = []
  var environment: [String: String] = [:]

  /// `server` directly, trusting the test CA when it speaks TLS; `url` replaces its own URL (a
  /// proxy in front of it).
  static func server(_ server: RedisServerProcess, url: String? = nil) -> RedisTarget {
    var target = RedisTarget(environment: ["REDIS_URL": url ?? server.url()])
    if let tls = server.tls { target.arguments += ["--redis-ca-file", tls.certificates.ca] }
    return target
  }

  /// The master `topology`'s sentinels name, with its passwords and TLS.
  static func sentinels(_ topology: SentinelTopology) -> RedisTarget {
    let scheme = topology.tls == nil ? "redis" : "rediss"
    var target = RedisTarget(arguments: [
      "--redis", "\(scheme)://\(topology.masterName)/0", "--redis-sentinels", topology.sentinelList,
    ])
    if let tls = topology.tls { target.arguments += ["--redis-ca-file", tls.certificates.ca] }
    if let password = topology.password { target.environment["REDIS_PASSWORD"] = password }
    if let password = topology.sentinelPassword { target.environment["REDIS_SENTINEL_PASSWORD"] = password }
    return target
  }
}

/// A local deployment over loopback for the shared-mode tests: a real `redis-server` (optional, with
/// an optional password) or a Sentinel topology, one `github-double` whose counters all instances
/// share, N `repo-scroll` instances, and optionally `nginx` round-robin in front, as `script/cluster`
/// starts them.
final class Cluster: Sendable {
  let redis: RedisServerProcess?
  /// The Sentinel topology the instances use instead of `redis`, if any.
  let sentinels: SentinelTopology?
  /// How each instance reaches Redis (nil: not shared).
  let targets: [RedisTarget?]
  let double: ProcessRunner
  let doublePort: Int
  let instances: [ProcessRunner]
  let ports: [Int]
  let nginx: ProcessRunner?
  let nginxPort: Int
  /// nginx's folder of logs (`access.log` in the shipped site's format, `error.log`); nil without nginx.
  let nginxLogs: String?
  /// Arguments and environment every instance is started with besides the defaults.
  let extra: InstanceExtras

  /// What every instance gets besides the defaults (sign-in flags, its secret in the environment).
  /// `{double}` in an argument stands for the double's base URL, known only once it runs.
  struct InstanceExtras: Sendable {
    var arguments: [String] = []
    var environment: [String: String] = [:]
  }

  private init(
    redis: RedisServerProcess?, sentinels: SentinelTopology?, targets: [RedisTarget?], double: ProcessRunner,
    doublePort: Int, instances: [ProcessRunner], ports: [Int], nginx: ProcessRunner?, nginxPort: Int,
    nginxLogs: String?, extra: InstanceExtras
  ) {
    self.nginxLogs = nginxLogs
    self.extra = extra
    self.redis = redis
    self.sentinels = sentinels
    self.targets = targets
    self.double = double
    self.doublePort = doublePort
    self.instances = instances
    self.ports = ports
    self.nginx = nginx
    self.nginxPort = nginxPort
  }

  /// Starts everything; `shared` runs the instances with `--redis` (over `transport`), or with
  /// `sentinels` through that topology. `nginxPort` fixes nginx's port ahead (sign-in needs the
  /// public URL before the instances start); `redisArguments` go to `redis-server` (persistence, for
  /// the tests that restart it); `target` picks how instance `i` reaches the server (a proxy).
  static func start(
    instances count: Int = 3, shared: Bool = true, doubleArguments: [String] = [], withNginx: Bool = false,
    nginxPort fixedNginxPort: Int? = nil, redisArguments: [String] = [], transport: RedisTransport = .plain,
    sentinels: SentinelTopology? = nil,
    target: (@Sendable (Int, RedisServerProcess) async throws -> RedisTarget)? = nil,
    extra: InstanceExtras = InstanceExtras()
  ) async throws -> Cluster {
    let redis =
      shared && sentinels == nil
      ? try await RedisServerProcess(transport, extraArguments: redisArguments) : nil
    let double = try ProcessRunner(
      executable: try ProcessRunner.builtProduct("github-double"),
      arguments: ["--port", "0", "--search-limit", "100000", "--core-limit", "1000000"] + doubleArguments,
      name: "github-double")
    let doublePort = try await double.waitForListeningPort()
    var instances: [ProcessRunner] = []
    var ports: [Int] = []
    var targets: [RedisTarget?] = []
    for index in 0..<count {
      var redisTarget = sentinels.map(RedisTarget.sentinels)
      if let redis { redisTarget = try await target?(index, redis) ?? .server(redis) }
      let app = try launchInstance(doublePort: doublePort, redis: redisTarget, extra: extra)
      instances.append(app)
      ports.append(try await app.waitForListeningPort())
      targets.append(redisTarget)
    }
    var nginx: ProcessRunner?
    var nginxPort = 0
    var nginxLogs: String?
    if withNginx {
      nginxPort = try fixedNginxPort ?? ProcessRunner.freeLoopbackPort()
      let started = try startNginx(port: nginxPort, upstreams: ports)
      nginx = started.runner
      nginxLogs = started.logs
      try await waitUntilAnswering(port: nginxPort)
    }
    return Cluster(
      redis: redis, sentinels: sentinels, targets: targets, double: double, doublePort: doublePort,
      instances: instances, ports: ports, nginx: nginx, nginxPort: nginxPort, nginxLogs: nginxLogs,
      extra: extra)
  }

  /// One `repo-scroll` against the double, in shared mode when `redis` is given.
  static func launchInstance(
    doublePort: Int, redis: RedisTarget?, port: Int = 0, extra: InstanceExtras = InstanceExtras()
  ) throws -> ProcessRunner {
    let root = try ProcessRunner.packageRoot()
    let doubleURL = "http://127.0.0.1:\(doublePort)"
    var arguments = [
      "--port", String(port), "--github-api", doubleURL, "--avatar-base", doubleURL, "--templates",
      root + "/Templates",
      "--public", root + "/Public", "--access-log", "false",
    ]
    // The tests check sharing, not the 50 ms default: on a heavily shared test machine a Redis
    // command can take longer, and an outage it caused would change the call counts asserted here.
    var environment = extra.environment
    if let redis {
      arguments += redis.arguments + ["--redis-timeout", "1000"]
      environment.merge(redis.environment) { _, new in new }
    }
    return try ProcessRunner(
      executable: try ProcessRunner.builtProduct("repo-scroll"),
      arguments: arguments + extra.arguments.map { $0.replacingOccurrences(of: "{double}", with: doubleURL) },
      environment: environment, name: "repo-scroll")
  }

  /// How long nginx skips a port that refused a connection (`fail_timeout`).
  static let failTimeoutSeconds = 1

  private static func startNginx(port: Int, upstreams: [Int]) throws -> (runner: ProcessRunner, logs: String)
  {
    let directory = try ScratchFolder.make("cluster-nginx")
    try FileManager.default.createDirectory(atPath: directory + "/logs", withIntermediateDirectories: true)
    let servers = upstreams.map {
      "    server 127.0.0.1:\($0) max_fails=1 fail_timeout=\(failTimeoutSeconds)s;"
    }.joined(
      separator: "\n")
    let configuration = """
      worker_processes 1;
      daemon off;
      pid \(directory)/nginx.pid;
      error_log \(directory)/logs/error.log warn;
      events { worker_connections 1024; }
      http {
      \(try shippedLogFormat())
        access_log \(directory)/logs/access.log reposcroll;
        upstream reposcroll {
      \(servers)
          keepalive 16;
        }
        server {
          listen 127.0.0.1:\(port);
          location / {
            proxy_pass http://reposcroll;
            proxy_http_version 1.1;
            proxy_set_header Connection "";
            proxy_next_upstream error timeout http_502 http_503 http_504;
            proxy_next_upstream_tries \(upstreams.count);
            proxy_connect_timeout 1s;
          }
        }
      }
      """
    try configuration.write(toFile: directory + "/nginx.conf", atomically: true, encoding: .utf8)
    let runner = try ProcessRunner(
      executable: "nginx", arguments: ["-p", directory, "-c", directory + "/nginx.conf"], name: "nginx")
    return (runner, directory + "/logs")
  }

  /// The access-log format of the shipped site (`deploy/nginx-reposcroll.conf`, between its
  /// `# log format:` markers), so that these tests log as production does.
  static func shippedLogFormat() throws -> String {
    let site = try String(
      contentsOfFile: try ProcessRunner.packageRoot() + "/deploy/nginx-reposcroll.conf", encoding: .utf8)
    guard let begin = site.range(of: "# log format: begin\n"), let end = site.range(of: "# log format: end")
    else { throw WebDriverError.process("deploy/nginx-reposcroll.conf has no log format markers") }
    return String(site[begin.upperBound..<end.lowerBound])
  }

  private static func waitUntilAnswering(port: Int) async throws {
    let answering = await eventually(within: .seconds(15), poll: .milliseconds(50)) {
      (try? await get(port: port, "/healthz"))?.status == 200
    }
    guard answering else { throw WebDriverError.process("nginx did not answer on \(port)") }
  }

  /// Replaces instance `index` as `script/cluster restart` does: SIGTERM (it drains), then a new
  /// instance on the same port, returned once its `/healthz` answers 200 and nginx's
  /// `fail_timeout` has passed (so nginx sends to it again before the next instance goes down).
  /// nginx meanwhile sends that port's share to the other instances.
  func replace(_ index: Int, old: ProcessRunner) async throws -> ProcessRunner {
    let status = await old.terminate(signal: SIGTERM, grace: .seconds(15))
    guard status == .exited(0) else { throw WebDriverError.process("instance \(index) ended with \(status)") }
    let fresh = try Self.launchInstance(
      doublePort: doublePort, redis: targets[index], port: ports[index], extra: extra)
    let port = ports[index]
    let ready = await eventually(poll: .milliseconds(50)) {
      (try? await Self.get(port: port, "/healthz"))?.status == 200
    }
    guard ready else { throw WebDriverError.process("the new instance \(index) did not become ready") }
    // Real time: nginx's fail_timeout runs on its own clock, in another process.
    try await Task.sleep(for: .milliseconds(Self.failTimeoutSeconds * 1000 + 500))
    return fresh
  }

  /// Stops nginx, the instances, the double and Redis.
  func stop() async {
    await nginx?.terminate()
    for instance in instances { await instance.terminate() }
    await double.terminate()
    await redis?.stop()
    await sentinels?.stop()
  }

  /// One GET on loopback.
  static func get(port: Int, _ path: String) async throws -> WebDriverLoopbackHTTP.Reply {
    try await WebDriverLoopbackHTTP.exchange(
      port: port, method: "GET", path: path, body: nil, timeout: .seconds(20))
  }

  /// Search calls the double has answered since its last reset.
  func searchCalls() async throws -> Int {
    let counters = try await control("GET", "/_double/counters")
    return counters["endpoints"]?["search"]?["calls"]?.int ?? 0
  }

  /// A call to the double's control API.
  @discardableResult
  func control(_ method: String, _ path: String) async throws -> WebDriverJSON {
    let reply = try await WebDriverLoopbackHTTP.exchange(
      port: doublePort, method: method, path: path, body: method == "POST" ? [] : nil, timeout: .seconds(10))
    guard reply.status == 200 else { throw WebDriverError.process("double \(path) answered \(reply.status)") }
    return try WebDriverJSON.parse(Data(reply.body))
  }

  /// The value of an unlabelled or labelled sample in an instance's `/metrics`.
  static func metric(_ name: String, port: Int) async throws -> Double? {
    let text = try await get(port: port, "/metrics").text
    for line in text.split(separator: "\n") where line.hasPrefix(name + " ") || line.hasPrefix(name + "{") {
      return line.split(separator: " ").last.flatMap { Double($0) }
    }
    return nil
  }

  /// `name` summed over the instances on `ports` (an instance without the metric counts 0).
  static func metricSum(_ name: String, ports: [Int]) async throws -> Double {
    var sum = 0.0
    for port in ports { sum += try await metric(name, port: port) ?? 0 }
    return sum
  }

  /// The repository ids of the cards in a fragment or page, in order.
  static func cardIDs(_ html: String) -> [Int] {
    html.matches(of: #/data-repo-id="(\d+)"/#).compactMap { Int($0.1) }
  }

  /// The next fragment's URL in a fragment or page, unescaped.
  static func nextFragment(_ html: String) -> String? {
    html.firstMatch(of: #/data-fragment="([^"]*)"/#).map { String($0.1).replacing("&amp;", with: "&") }
  }
}
