import Clocks
import CurlClient
import Foundation
import HTTP
import Redis
import TestSupport
import Testing

/// Privacy across instances with the double playing a GitHub App installed on an organisation: three
/// instances behind nginx with one Redis (persistence on). Reader A, a member, searches what matches
/// the organisation's private repositories; anonymous reader B and signed-in non-member C ask the
/// same on every instance and never get them (page, fragment, owner list, history, a 304), whoever
/// asked first; A does. Redis (keys, values, RDB and AOF) holds no private text and no token. And a
/// server token that sees private data shows anonymous readers none, and the instance warns once.
@Suite("Privacy across instances", .serialized, .timeLimit(.minutes(6)))
struct PrivacyClusterTests {
  typealias Jar = SignInClusterTests.Jar
  static let send = SignInClusterTests.send
  static let text = SignInClusterTests.text

  /// The installed organisation as the double describes it.
  struct Installation {
    var org: String
    var names: [String]
    var descriptions: [String]
    /// What must never be anywhere but A's answers: the repositories' names and descriptions (their
    /// topics are words an attacker types in a query, so a page or key may echo them).
    var secrets: [String] { names + descriptions }
  }

  static func installation(_ cluster: Cluster) async throws -> Installation {
    let json = try await cluster.control("GET", "/_double/installation")
    let org = try #require(json["organisation"]?.string)
    let repositories = json["repositories"]?.array ?? []
    let names = repositories.compactMap { $0["full_name"]?.string }.map {
      String($0.split(separator: "/")[1])
    }
    let descriptions = repositories.compactMap { $0["description"]?.string }
    expectTrue(names.count == 4 && descriptions.count == 4)
    return Installation(org: org, names: names, descriptions: descriptions)
  }

  /// Signs `login` in through `site` (nginx): /login, the double's Authorize form, the callback.
  static func signIn(_ login: String, site: String, double: String) async throws -> Jar {
    let jar = Jar()
    let landed = try await SignInClusterTests.signIn(login, site: site, double: double, into: jar).landed
    expectEqual(landed.status.code, 303, "\(login) signed in")
    expectTrue(jar.cookies["reposcroll_session"] != nil)
    return jar
  }

  /// Every place a card, a history or a list comes from.
  static func targets(_ i: Installation) -> [String] {
    [
      "/?q=vault", "/fragments/results?q=vault&after=0", "/owners/\(i.org)",
      "/fragments/owners/\(i.org)?after=0",
      "/?q=topic%3Ainstalled-app",
      "/fragments/stars?" + i.names.map { "r=\(i.org)/\($0)" }.joined(separator: "&"),
    ] + i.names.map { "/fragments/stars/\(i.org)/\($0)" }
  }

  /// What `jar` gets from `base` at every target holds nothing private (a history answer names the
  /// repositories its request named, so it is checked for history data instead).
  static func expectNothingPrivate(_ base: String, _ jar: Jar, _ i: Installation, _ who: String) async throws
  {
    for target in targets(i) {
      let response = try await Self.send(base + target, jar, .get, nil)
      let page = Self.text(response)
      expectEqual(response.status.code, 200, "\(who) \(base)\(target)")
      if target.hasPrefix("/fragments/stars") {
        expectTrue(
          !page.contains("data-state=\"loaded\""), "\(who) got a private history at \(base)\(target)")
      } else {
        for secret in i.secrets {
          expectTrue(!page.contains(secret), "\(who) got \(secret) at \(base)\(target)")
        }
      }
      expectTrue(!page.contains(">Private · "), "\(who) got a private card at \(base)\(target)")
    }
  }

  /// A sees every private repository in the search and each one's history, on `base`.
  static func expectMemberSeesThem(_ base: String, _ jar: Jar, _ i: Installation) async throws {
    let page = Self.text(try await Self.send(base + "/?q=vault", jar, .get, nil))
    expectTrue(page.contains("account-login"), "A is signed in on \(base)")
    for name in i.names { expectTrue(page.contains("\(i.org)/\(name)<"), "A sees \(name) on \(base)") }
    for name in i.names {
      let stars = Self.text(try await Self.send(base + "/fragments/stars/\(i.org)/\(name)", jar, .get, nil))
      expectTrue(stars.contains("data-state=\"loaded\""), "A gets \(name)'s history on \(base)")
    }
  }

  @Test func aMembersPrivateRepositoriesStayTheirsOnEveryInstanceAndNothingPrivateIsInRedis() async throws {
    // The demo GitHub App: ghu_ tokens without scopes, which may see private repositories.
    let sign = try SignInSite(clientID: "Iv23.demo-app", clientSecret: "demo-app-secret")
    defer { sign.removeKeyFile() }
    let cluster = try await sign.persistentCluster()
    try await cluster.run { try await Self.isolation($0, site: sign.site) }
  }

  static func isolation(_ cluster: Cluster, site: String) async throws {
    let double = "http://127.0.0.1:\(cluster.doublePort)"
    let i = try await installation(cluster)
    let direct = cluster.ports.map { "http://127.0.0.1:\($0)" }
    let a = try await signIn("mona", site: site, double: double)
    let c = try await signIn("carol", site: site, double: double)
    let b = Jar()
    // B and C first on one instance (their answers fill the caches), then A everywhere, then B and C
    // everywhere (A's answers are in the caches now).
    try await expectNothingPrivate(direct[2], b, i, "anonymous B")
    try await expectNothingPrivate(direct[2], c, i, "non-member C")
    for base in direct + [site] { try await expectMemberSeesThem(base, a, i) }
    for base in direct + [site] {
      try await expectNothingPrivate(base, b, i, "anonymous B")
      try await expectNothingPrivate(base, c, i, "non-member C")
    }
    // A 304 never stands in for A's answer: B and C revalidating with A's tag get their own pages.
    let mine = try await Self.send(direct[0] + "/?q=vault", a, .get, nil)
    expectEqual(mine.headers["Cache-Control"], "private, no-store")
    if let tag = mine.headers["ETag"] {
      for jar in [b, c] {
        var headers: HTTPHeaders = ["If-None-Match": tag]
        if !jar.cookies.isEmpty { headers.add(name: "Cookie", value: jar.header) }
        let response = try await http.execute(ClientRequest(url: direct[1] + "/?q=vault", headers: headers))
        expectEqual(response.status.code, 200)
        for secret in i.secrets { expectTrue(!Self.text(response).contains(secret)) }
      }
    }
    // A still gets them after B's and C's answers are cached everywhere.
    for base in direct { try await expectMemberSeesThem(base, a, i) }
    // Nothing private in /metrics or in the instances' logs.
    for base in direct {
      let metrics = Self.text(try await Self.send(base + "/metrics", Jar(), .get, nil))
      for secret in i.secrets { expectTrue(!metrics.contains(secret), "/metrics of \(base) names \(secret)") }
    }
    let logs = cluster.instances.map { $0.output + $0.errorOutput }.joined()
    for secret in i.secrets { expectTrue(!logs.contains(secret), "an instance logged \(secret)") }
    try await expectRedisHoldsNothingPrivate(try #require(cluster.redis), i)
  }

  static let http = CurlHTTPClient(configuration: CurlClientConfiguration(totalTimeout: .seconds(20)))

  /// Every key and value (strings, hashes) and the RDB and AOF files hold no private text and no token.
  static func expectRedisHoldsNothingPrivate(_ redis: RedisServerProcess, _ i: Installation) async throws {
    let client = try RedisClient(try RedisConfiguration(url: redis.url()), time: .system)
    defer { client.shutdown() }
    let keys = try await client.execute(["KEYS", "*"]).array?.compactMap { $0.bytes } ?? []
    expectTrue(keys.count > 3, "the shared store was used: \(keys.count) keys")
    var everything: [UInt8] = []
    for key in keys {
      everything += key + [10]
      let type = try await client.execute(["TYPE", .bytes(key)]).string ?? ""
      switch type {
      case "string": everything += try await client.execute(["GET", .bytes(key)]).bytes ?? []
      case "hash":
        for field in try await client.execute(["HGETALL", .bytes(key)]).array ?? [] {
          everything += field.bytes ?? []
        }
      default: everything += try await client.execute(["DUMP", .bytes(key)]).bytes ?? []
      }
    }
    let onDisk = try await client.persistedBytes()
    expectTrue(onDisk.count > 1000, "the RDB and AOF files were read (\(onDisk.count) bytes)")
    for (place, blob) in [("keys and values", everything), ("RDB and AOF", onDisk)] {
      let text = String(decoding: blob, as: UTF8.self)
      // A token in clear starts with its prefix; logins of the readers who signed in.
      let found = (i.secrets + ["ghu_", "ghr_", "gho_", "mona", "carol"]).filter { text.contains($0) }
      expectTrue(found.isEmpty, "\(place) hold \(found)")
    }
  }

  @Test(arguments: ["repo", "fine-grained"])
  func aServerTokenThatSeesPrivateDataShowsAnonymousReadersNoneAndIsWarnedAbout(_ access: String) async throws
  {
    var extra = Cluster.InstanceExtras()
    extra.environment = ["GITHUB_TOKEN": "ghp_operatorTokenThatSeesPrivate000000"]
    let cluster = try await Cluster.start(
      instances: 2, shared: true, doubleArguments: ["--server-token", access], extra: extra)
    do {
      let i = try await Self.installation(cluster)
      for instance in cluster.instances {
        _ = try await instance.waitForLine(matching: "warning: the GitHub token", timeout: .seconds(15))
      }
      for base in cluster.ports.map({ "http://127.0.0.1:\($0)" }) {
        try await Self.expectNothingPrivate(base, Jar(), i, "anonymous B")
      }
      let withheld = try await Cluster.metricSum(
        "reposcroll_private_items_withheld_total", ports: cluster.ports)
      expectTrue(
        withheld >= Double(i.names.count), "the server token's private items were left out and counted")
      for instance in cluster.instances {
        let warnings = (instance.output + instance.errorOutput).components(
          separatedBy: "warning: the GitHub token")
        expectEqual(warnings.count - 1, 1, "one warning per instance")
        for secret in i.secrets { expectTrue(!(instance.output + instance.errorOutput).contains(secret)) }
      }
      try await Self.expectRedisHoldsNothingPrivate(try #require(cluster.redis), i)
    } catch {
      await cluster.stop()
      throw error
    }
    await cluster.stop()
  }
}
