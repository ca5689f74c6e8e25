import Clocks
import Foundation
import Redis
import TestSupport
import Testing

/// Shared mode end to end: real `redis-server`, one `github-double` and several `repo-scroll`
/// processes (and `nginx` where a load balancer matters), all on loopback.
@Suite(
  "Shared mode across instances: redis-server, github-double, repo-scroll and nginx on loopback", .serialized,
  .timeLimit(.minutes(10)))
struct ClusterTests {
  static let query = "/fragments/results?q=stars%3A%3E10"

  /// A walk of `rows` rows following each fragment's next link, hop `i` sent to `ports[i % count]`.
  /// `between` runs before each hop with the rows so far (to kill something mid-walk).
  static func walk(
    ports: @Sendable (Int) -> Int, rows: Int = 1_000, start: String = query,
    between: (Int) async throws -> Void = { _ in }
  ) async throws -> (ids: [Int], statuses: [Int]) {
    var ids: [Int] = []
    var statuses: [Int] = []
    var path: String? = start
    var hop = 0
    while let next = path, ids.count < rows {
      try await between(ids.count)
      let reply = try await Cluster.get(port: ports(hop), next)
      statuses.append(reply.status)
      guard reply.status == 200 else { break }
      ids += Cluster.cardIDs(reply.text)
      path = Cluster.nextFragment(reply.text)
      hop += 1
    }
    return (ids, statuses)
  }

  @Test(arguments: RedisTransport.allCases) func aThousandRowWalkOverThreeInstancesCostsTenSearches(
    _ transport: RedisTransport
  ) async throws {
    let cluster = try await Cluster.start(transport: transport)
    let ports = cluster.ports
    let walked = try await Self.walk(ports: { ports[$0 % 3] })
    expectTrue(walked.statuses.allSatisfy { $0 == 200 })
    expectTrue(walked.ids.count == 1_000 && Set(walked.ids).count == 1_000)
    try await expectEqual(cluster.searchCalls(), 10)
    let sharedHits = try await Cluster.metricSum("reposcroll_shared_hits_total", ports: ports)
    expectTrue(sharedHits >= 20, "consecutive fragments on other instances read the shared pages")
    // The Redis lines of /metrics: the role, the TLS handshakes, in a format Prometheus reads.
    let metrics = try await Cluster.get(port: ports[0], "/metrics").text
    expectTrue(metrics.contains("reposcroll_redis_role{role=\"master\"} 1"))
    expectTrue(
      metrics.contains(
        "reposcroll_redis_server_info{server=\"127.0.0.1:\(try #require(cluster.redis).port)\"} 1"))
    let handshakes = try await Cluster.metric("reposcroll_redis_tls_handshake_seconds_count", port: ports[0])
    expectTrue(transport == .tls ? (handshakes ?? 0) >= 1 : handshakes == 0)
    expectTrue(try await Self.promtoolAccepts(metrics))
    if transport == .tls { try await Self.anInstanceThatDoesNotTrustRedisFallsBack(cluster) }
    await cluster.stop()
  }

  /// An instance given another CA than the one Redis's certificate chains to: it starts, says why
  /// it cannot share, counts the refusal, and serves from local state.
  static func anInstanceThatDoesNotTrustRedisFallsBack(_ cluster: Cluster) async throws {
    let redis = try #require(cluster.redis)
    let certificates = try await TestCertificates.shared()
    let instance = try Cluster.launchInstance(
      doublePort: cluster.doublePort,
      redis: RedisTarget(
        arguments: ["--redis-ca-file", certificates.otherCA], environment: ["REDIS_URL": redis.url()]))
    let port = try await instance.waitForListeningPort()
    try await expectEqual(Cluster.get(port: port, Self.query).status, 200)
    expectTrue(try await Cluster.get(port: port, "/healthz").text.contains("redis unavailable"))
    expectTrue(instance.errorOutput.contains("server certificate refused"), "\(instance.errorOutput)")
    expectTrue((try await Cluster.metric("reposcroll_redis_tls_errors_total", port: port) ?? 0) >= 1)
    await instance.terminate()
  }

  /// Whether `promtool check metrics` accepts `text`.
  static func promtoolAccepts(_ text: String) async throws -> Bool {
    let file = NSTemporaryDirectory() + "metrics-\(UUID().uuidString.prefix(8)).txt"
    try text.write(toFile: file, atomically: true, encoding: .utf8)
    defer { try? FileManager.default.removeItem(atPath: file) }
    // ProcessRunner reaps by pid; Foundation's Process once missed a child's exit here for good.
    let promtool = try ProcessRunner(
      executable: "/bin/sh", arguments: ["-c", "promtool check metrics < \"$1\"", "sh", file],
      lineBuffered: false, name: "promtool")
    return try await promtool.waitForExit(timeout: .seconds(60)) == .exited(0)
  }

  @Test func twoReadersWalkingPastTheCapOverThreeInstancesCostTheSearchesOfOne() async throws {
    let start = "/fragments/results?q=stars%3A%3E%3D0&sort=stars&order=desc"
    // One reader alone, to row 2,000 (past GitHub's cap: windows, the stars:0 bucket's slices
    // excepted), hop after hop on the three instances.
    // Without read-ahead, every search is one a reader's batch asked for (nothing still on its way
    // when the walk ends is left uncounted).
    let calm = Cluster.InstanceExtras(arguments: ["--read-ahead", "0"])
    let alone = try await Cluster.start(extra: calm)
    let single = try await Self.walk(ports: { alone.ports[$0 % 3] }, rows: 2_000, start: start)
    let one = try await alone.searchCalls()
    await alone.stop()
    expectTrue(single.statuses.allSatisfy { $0 == 200 } && single.ids.count >= 2_000)
    expectEqual(Set(single.ids).count, single.ids.count)
    expectTrue(one >= 20, "2,000 rows by windows of a page")
    // Two readers at once on a fresh deployment, each starting on another instance: the windows
    // one of them reads (or is reading) are shared through Redis, so together they cost the same.
    let cluster = try await Cluster.start(extra: calm)
    let ports = cluster.ports
    async let first = Self.walk(ports: { ports[$0 % 3] }, rows: 2_000, start: start)
    async let second = Self.walk(ports: { ports[($0 + 1) % 3] }, rows: 2_000, start: start)
    let (a, b) = try await (first, second)
    expectTrue(a.ids == single.ids && b.ids == single.ids, "both read the same rows as the lone reader")
    try await expectEqual(cluster.searchCalls(), one)
    await cluster.stop()
  }

  @Test func fiftyConcurrentIdenticalFragmentsOverThreeInstancesCostOneSearch() async throws {
    let cluster = try await Cluster.start(doubleArguments: ["--latency-search", "400"])
    let ports = cluster.ports
    let replies = try await withThrowingTaskGroup(of: (Int, [Int]).self) { group in
      for index in 0..<50 {
        group.addTask {
          let reply = try await Cluster.get(port: ports[index % 3], Self.query + "&after=40")
          return (reply.status, Cluster.cardIDs(reply.text))
        }
      }
      var all: [(Int, [Int])] = []
      for try await reply in group { all.append(reply) }
      return all
    }
    expectTrue(replies.count == 50 && replies.allSatisfy { $0.0 == 200 })
    expectEqual(Set(replies.map(\.1)).count, 1, "every answer shows the same rows")
    try await expectEqual(cluster.searchCalls(), 1)
    await cluster.stop()
  }

  @Test func aRateLimitSeenByOneInstanceStopsEveryInstanceUntilTheReset() async throws {
    let cluster = try await Cluster.start()
    let ports = cluster.ports
    // The window is on the wall clocks of the double and the instances, other processes: long enough
    // for the requests below on a busy machine, and its end is waited for as an event (searches resume).
    let reset = Int(Date().timeIntervalSince1970) + 6
    try await cluster.control("POST", "/_double/ratelimit?resource=search&remaining=0&reset=\(reset)")
    // One instance meets the 403; then every instance is asked for other searches.
    _ = try await Cluster.get(port: ports[0], "/fragments/results?q=first")
    for (index, port) in ports.enumerated() {
      for round in 0..<3 {
        let reply = try await Cluster.get(port: port, "/fragments/results?q=other\(index)x\(round)")
        expectTrue(reply.status < 500)
      }
    }
    let log = try await cluster.control("GET", "/_double/requests?endpoint=search")
    let statuses = (log["requests"]?.array ?? []).map { $0["status"]?.int ?? 0 }
    expectEqual(statuses, [403], "one search learned of the limit; no instance called again: \(statuses)")
    expectTrue(
      Date().timeIntervalSince1970 < Double(reset),
      "the requests outlasted the window, so the check above proves less: the machine was too slow")
    // After the reset, searches are made again: asked until cards come back, every refused answer
    // made without calling GitHub (one search in all after the 403).
    let resumed = await eventually(within: .seconds(30), poll: .milliseconds(200)) {
      let after = try await Cluster.get(port: ports[2], "/fragments/results?q=stars%3A%3E30")
      return after.status == 200 && !Cluster.cardIDs(after.text).isEmpty
    }
    expectTrue(resumed, "searches resumed after the reset")
    expectTrue(Date().timeIntervalSince1970 >= Double(reset), "no search before the reset")
    try await expectEqual(cluster.searchCalls(), 2)
    await cluster.stop()
  }

  @Test func losingRedisMidWalkFallsBackAndSharingResumesAfterItsRestart() async throws {
    let cluster = try await Cluster.start()
    let ports = cluster.ports
    let redis = try #require(cluster.redis)
    let walked = try await Self.walk(ports: { ports[$0 % 3] }) { rows in
      if rows == 500 { await redis.kill() }
    }
    expectTrue(walked.statuses.allSatisfy { $0 == 200 })
    expectTrue(walked.ids.count == 1_000 && Set(walked.ids).count == 1_000, "no row duplicated or missing")
    for port in ports {
      try await expectEqual(Cluster.metric("reposcroll_shared_store_up", port: port), 0)
      let health = try await Cluster.get(port: port, "/healthz")
      expectTrue(health.status == 200 && health.text.contains("unavailable"))
    }
    let searchesWhileDown = try await cluster.searchCalls()

    try await redis.restart()
    for port in ports {
      // Each instance probes Redis again on its own retry interval.
      expectTrue(
        await eventually(poll: .milliseconds(50)) {
          try await Cluster.get(port: port, "/healthz").text.contains("redis available")
        })
    }
    // Shared again: a new walk over the three instances costs one search per page (best match reads
    // GitHub's own pages of 100, so 1,000 rows are 10 searches).
    let again = try await Self.walk(ports: { ports[$0 % 3] }, start: "/fragments/results?q=stars%3A%3E11")
    expectTrue(
      again.ids.count == 1_000 && again.statuses.allSatisfy { $0 == 200 },
      "\(again.ids.count) rows, \(again.statuses)")
    try await expectEqual(cluster.searchCalls(), searchesWhileDown + 10)
    for port in ports {
      let transitions = try await Cluster.metric("reposcroll_shared_store_transitions_total", port: port)
      expectEqual(transitions, 2, "\(String(describing: transitions)) transitions")
    }
    await cluster.stop()
  }

  @Test func hostileOrForeignValuesInRedisAreMisses() async throws {
    let cluster = try await Cluster.start()
    let ports = cluster.ports
    let redis = try #require(cluster.redis)
    let first = try await Self.walk(ports: { _ in ports[0] }, rows: 200)
    let client = try RedisClient(RedisConfiguration(url: redis.url()), time: .system)
    defer { client.shutdown() }
    let keys = (try await client.execute(["KEYS", "reposcroll:v1:*"]).array ?? []).compactMap(\.string)
    expectTrue(keys.contains { $0.hasPrefix("reposcroll:v1:cache:") })
    let hostile: [[UInt8]] = [
      Array("<script>alert(1)</script>".utf8),
      [0x52, 0x53, 0x43, 1, 1, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF],
      [0x52, 0x53, 0x43, 9], Array(repeating: 0x80, count: 100_000),
    ]
    for (index, key) in keys.enumerated() {
      // Every value replaced by junk; the ledger hash becomes a plain string (a type Lua cannot read).
      try await client.set(key, hostile[index % hostile.count])
    }
    let searchesBefore = try await cluster.searchCalls()
    let second = try await Self.walk(ports: { ports[1 + $0 % 2] }, rows: 200)
    expectTrue(second.statuses.allSatisfy { $0 == 200 })
    expectEqual(second.ids, first.ids)
    // Pages 1 and 2 are fetched again (read-ahead may fetch page 3 again too).
    expectTrue(try await cluster.searchCalls() >= searchesBefore + 2, "the junk pages were fetched again")
    let rejected = try await Cluster.metricSum("reposcroll_shared_rejected_total", ports: ports)
    expectTrue(rejected >= 2)
    let errorReplies = try await Cluster.metricSum(
      "reposcroll_shared_store_error_replies_total", ports: ports)
    expectTrue(errorReplies >= 1, "the ledger planted as a string is refused by Redis and counted")
    await cluster.stop()
  }

  @Test func aPasswordProtectedRedisWorksWithTheRightPasswordAndStopsStartupWithAWrongOne() async throws {
    let redis = try await RedisServerProcess(password: "right-Pa55")
    let double = try ProcessRunner(
      executable: try ProcessRunner.builtProduct("github-double"), arguments: ["--port", "0"],
      name: "github-double")
    let doublePort = try await double.waitForListeningPort()
    let good = try Cluster.launchInstance(doublePort: doublePort, redis: .server(redis))
    let port = try await good.waitForListeningPort()
    expectTrue(try await Cluster.get(port: port, "/healthz").text.contains("redis available"))
    try await expectEqual(Cluster.get(port: port, Self.query).status, 200)

    let wrongURL = "redis://:wrong-Pa55@127.0.0.1:\(redis.port)/0"
    let bad = try Cluster.launchInstance(doublePort: doublePort, redis: .server(redis, url: wrongURL))
    let status = try await bad.waitForExit(timeout: .seconds(10))
    expectTrue(status != .exited(0))
    expectTrue(bad.errorOutput.contains("--redis") && bad.errorOutput.contains("authentication failed"))
    expectTrue(!bad.errorOutput.contains("wrong-Pa55") && !bad.output.contains("wrong-Pa55"))
    await good.terminate()
    await double.terminate()
    await redis.stop()
  }

  @Test func throughNginxAnInstanceKilledMidWalkIsSkipped() async throws {
    let cluster = try await Cluster.start(withNginx: true)
    let port = cluster.nginxPort
    let victim = cluster.instances[1]
    let walked = try await Self.walk(ports: { _ in port }) { rows in
      if rows == 400 { _ = await victim.terminate(signal: SIGKILL) }
    }
    expectTrue(walked.statuses.allSatisfy { $0 == 200 })
    expectTrue(walked.ids.count == 1_000 && Set(walked.ids).count == 1_000)
    // Ten pages; the killed instance may have died holding a page's lock (reading ahead), which
    // another instance fetches again once the lock expires.
    let calls = try await cluster.searchCalls()
    expectTrue((10...11).contains(calls), "\(calls) search calls")
    await cluster.stop()
  }
}
