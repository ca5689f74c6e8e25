import CurlClient
import Foundation
import HTTP
import Synchronization
import TestSupport
import Testing

/// Redis failing over under readers, and one instance cut off from Redis (in the serialized cluster
/// suite, so two clusters never compete for the machine).
extension ClusterTests {
  /// What the browsing readers saw: every answer's status, and when each was signed in.
  final class Readings: Sendable {
    struct Reading: Sendable {
      let reader: Int
      let at: Double
      let status: Int
      /// A page (fragments have no header, so they cannot show who is signed in).
      let page: Bool
      let signedIn: Bool
    }
    private let state = Mutex<[Reading]>([])
    private let moments = Mutex<(killed: Double?, finished: Bool)>((nil, false))
    func record(_ reading: Reading) { state.withLock { $0.append(reading) } }
    var all: [Reading] { state.withLock { $0 } }
    /// When the master was killed.
    var killedAt: Double? {
      get { moments.withLock { $0.killed } }
      set { moments.withLock { $0.killed = newValue } }
    }
    /// True once the walk is done and readers stop.
    var finished: Bool {
      get { moments.withLock { $0.finished } }
      set { moments.withLock { $0.finished = newValue } }
    }
  }

  /// A number that goes up by one at each `next()`.
  final class Counter: Sendable {
    private let value = Mutex(1000)
    func next() -> Int {
      value.withLock {
        $0 += 1; return $0
      }
    }
  }

  /// The proxies a cluster's start made.
  final class Proxies: Sendable {
    private let state = Mutex<[PartitionProxy]>([])
    func add(_ proxy: PartitionProxy) { state.withLock { $0.append(proxy) } }
    var first: PartitionProxy? { state.withLock { $0.first } }
  }

  static func now() -> Double { Double(DispatchTime.now().uptimeNanoseconds) / 1e9 }

  /// Signs reader `index` in through nginx (the double's OAuth form) and returns their cookies.
  static func signIn(_ index: Int, site: String, double: String) async throws -> SignInClusterTests.Jar {
    let jar = SignInClusterTests.Jar()
    _ = try await SignInClusterTests.signIn(
      "reader\(index)", site: site, double: double, path: "/login?return_to=%2F", into: jar)
    return jar
  }

  /// One master, one replica and three sentinels (TLS, passwords on both), three instances behind
  /// nginx, 20 signed-in readers and a Chromium reader walking 1,000 rows: the master is killed at
  /// row 300. No request fails, the list is whole, every reader who signed in before the kill is
  /// signed in afterwards, and every instance follows the new master within 15 s of the kill.
  @Test func aMasterKilledUnderReadersIsFollowedWithoutAFailedRequestOrALostSession() async throws {
    let started = Self.now()
    let topology = try await SentinelTopology.start(
      .tls, password: "data-Pa55", sentinelPassword: "sentinel-Pa55")
    let sign = try SignInSite(clientID: "Iv1.demo-client", clientSecret: "demo-secret")
    defer { sign.removeKeyFile() }
    let site = sign.site
    let cluster = try await Cluster.start(
      withNginx: true, nginxPort: sign.nginxPort, sentinels: topology, extra: sign.extra)
    let double = "http://127.0.0.1:\(cluster.doublePort)"
    var jars: [SignInClusterTests.Jar] = []
    let clusterReady = Self.now()
    for index in 0..<20 { jars.append(try await Self.signIn(index, site: site, double: double)) }
    let signedIn = Self.now()
    let readers = jars
    let readings = Readings()
    let replicaPort = topology.replica.port
    let ports = cluster.ports

    async let browsing: Void = withThrowingTaskGroup(of: Void.self) { group in
      for (index, jar) in readers.enumerated() {
        group.addTask {
          var round = 0
          while !readings.finished {
            let page = round % 2 == 0
            let path =
              page ? "/?q=topic%3Ar\(index)" : "/fragments/results?q=stars%3A%3E10&after=\(20 * (round % 10))"
            let response = try await SignInClusterTests.send(site + path, jar)
            readings.record(
              .init(
                reader: index, at: Self.now(), status: response.status.code, page: page,
                signedIn: SignInClusterTests.text(response).contains("account-login")))
            round += 1
            // Real time: a reader's pace, so twenty of them leave the machine room for the rest.
            try await Task.sleep(for: .milliseconds(300))
          }
        }
      }
      try await group.waitForAll()
    }
    async let following: [Double] = withThrowingTaskGroup(of: Double.self) { group in
      for port in ports {
        group.addTask {
          try await waitUntil("the master is killed", timeout: .seconds(120), poll: .milliseconds(20)) {
            readings.killedAt != nil
          }
          try await waitUntil(
            "instance \(port) follows the new master", timeout: .seconds(60), poll: .milliseconds(50)
          ) {
            let health = try await Cluster.get(port: port, "/healthz").text
            return health.contains("redis available") && health.contains("127.0.0.1:\(replicaPort) (master)")
          }
          return Self.now() - (readings.killedAt ?? 0)
        }
      }
      return try await group.reduce(into: []) { $0.append($1) }
    }

    try await withChromeSession { session in
      try await session.navigate(to: "\(site)/?q=stars%3A%3E10")
      var count = try await session.waitForScript(Self.cardCount, timeout: .seconds(15)).int ?? 0
      // The document keeps only the cards near the reader: every row is recorded as it comes.
      try await FeedRows.track(session)
      while count < 1_000 {
        if count >= 300, readings.killedAt == nil {
          await topology.master.kill()
          readings.killedAt = Self.now()
        }
        count = try await Self.scrollToEnd(session, past: count)
      }
      try await Self.expectCompleteList(session)
    }
    let followTimes = try await following
    readings.finished = true
    try await browsing

    let killed = try #require(readings.killedAt)
    let all = readings.all
    expectTrue(
      all.allSatisfy { $0.status == 200 }, "failed: \(all.filter { $0.status != 200 }.map(\.status))")
    expectTrue(followTimes.count == 3 && followTimes.allSatisfy { $0 < 15 }, "\(followTimes)")
    // Every reader signed in before the kill is signed in again after it, on every instance.
    for (index, jar) in readers.enumerated() {
      let port = ports[index % 3]
      let back = await eventually(within: .seconds(20), poll: .milliseconds(100)) {
        SignInClusterTests.text(try await SignInClusterTests.send("http://127.0.0.1:\(port)/?q=swift", jar))
          .contains("reader\(index)")
      }
      expectTrue(back, "reader \(index) was signed out by the failover")
    }
    for port in ports {
      try await expectEqual(Cluster.metric("reposcroll_redis_failovers_total", port: port), 1)
      try await expectEqual(Cluster.metric("reposcroll_redis_role{role=\"master\"}", port: port), 1)
    }
    // Readers' view: from the kill to the first signed-in answer after the gap.
    let gap =
      all.filter { $0.page && $0.at > killed && !$0.signedIn }.map(\.at).max().map { $0 - killed } ?? 0
    print(
      String(
        format: "failover: topology and cluster %.1f s, sign-ins %.1f s, walk %.1f s; ",
        clusterReady - started,
        signedIn - clusterReady, Self.now() - signedIn)
        + "\(all.count) reader requests, \(all.filter { $0.status != 200 }.count) failed; instances "
        + "followed after \(followTimes.sorted().map { String(format: "%.2f", $0) }) s; readers anonymous until "
        + String(format: "%.2f", gap) + " s after the kill")
    await cluster.stop()
  }

  /// One instance cut off from Redis by a proxy that drops its traffic: it degrades to local state
  /// with a notice while the other two go on sharing, and it rejoins when the partition heals.
  @Test func anInstancePartitionedFromRedisDegradesAloneAndRejoins() async throws {
    let proxies = Proxies()
    // Without read-ahead, a walk of N pages costs exactly N searches, and no fetch outlives its walk.
    let cluster = try await Cluster.start(
      target: { index, redis in
        guard index == 0 else { return .server(redis) }
        let started = try await PartitionProxy(targetPort: redis.port)
        proxies.add(started)
        return .server(redis, url: "redis://127.0.0.1:\(started.port)/0")
      }, extra: Cluster.InstanceExtras(arguments: ["--read-ahead", "0"]))
    let cut = try #require(proxies.first)
    let ports = cluster.ports
    let first = try await Self.walk(ports: { ports[$0 % 3] }, rows: 200)
    expectTrue(first.statuses.allSatisfy { $0 == 200 })

    cut.cut()
    // The partitioned instance answers every request (from local state) and says so.
    // Each request a new search, so it needs Redis (its lock and ledger) and meets the partition.
    let searches = Counter()
    try await waitUntil("instance 0 falls back", timeout: .seconds(30), poll: .milliseconds(50)) {
      let reply = try await Cluster.get(port: ports[0], "/fragments/results?q=stars%3A%3E\(searches.next())")
      expectEqual(reply.status, 200)
      return try await Cluster.get(port: ports[0], "/healthz").text.contains("redis unavailable")
    }
    try await expectEqual(Cluster.metric("reposcroll_shared_store_up", port: ports[0]), 0)
    let alone = try await Self.walk(ports: { _ in ports[0] }, rows: 100, start: Self.query + "&sort=stars")
    expectTrue(alone.statuses.allSatisfy { $0 == 200 } && alone.ids.count >= 100)
    // The other two still share: a new walk over them costs one search per page (best match reads
    // GitHub's own pages of 100; an order read by windows would cost what its windows cost).
    let other = "/fragments/results?q=stars%3A%3E12"
    let before = try await cluster.searchCalls()
    let shared = try await Self.walk(ports: { ports[1 + $0 % 2] }, rows: 300, start: other)
    expectTrue(shared.statuses.allSatisfy { $0 == 200 } && shared.ids.count == 300)
    // Three pages, each fetched once for both instances.
    try await expectEqual(cluster.searchCalls(), before + 3, "the others went on sharing")
    for port in ports.dropFirst() {
      expectTrue(try await Cluster.get(port: port, "/healthz").text.contains("redis available"))
    }

    cut.heal()
    try await waitUntil("instance 0 rejoins", timeout: .seconds(30), poll: .milliseconds(50)) {
      try await Cluster.get(port: ports[0], "/healthz").text.contains("redis available")
    }
    // Shared again: a page the others fetched comes from Redis, not GitHub.
    let calls = try await cluster.searchCalls()
    let again = try await Self.walk(ports: { _ in ports[0] }, rows: 300, start: other)
    expectEqual(again.ids, shared.ids)
    try await expectEqual(cluster.searchCalls(), calls, "instance 0 read the shared pages")
    try await expectEqual(Cluster.metric("reposcroll_shared_store_transitions_total", port: ports[0]), 2)
    await cut.stop()
    await cluster.stop()
  }
}
