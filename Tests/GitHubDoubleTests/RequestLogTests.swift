import GitHubDouble
import HTTP
import TestSupport
import Testing

@Suite("Request log and hostile names", .timeLimit(.minutes(3)))
struct RequestLogTests {
  @Test("each served request is logged with its endpoint, times and status; reset clears the log")
  func logsRequests() async throws {
    let (double, clock) = Fixtures.clocked(epochSeconds: 1_800_000_000.25) { $0.searchLimitPerMinute = 1 }
    _ = try await double.get("/search/repositories?q=go")
    clock.advance(1.5)
    _ = try await double.get("/search/repositories?q=go")
    _ = try await double.get("/u/5?s=40")
    let log = double.requestLog()
    expectEqual(log.map(\.endpoint), [.search, .search, .avatar])
    expectEqual(log.map(\.status), [200, 403, 200])
    expectTrue(log[0].arrivedMs == 1_800_000_000_250 && log[1].arrivedMs == 1_800_000_001_750)
    expectTrue(log.allSatisfy { $0.finishedMs >= $0.arrivedMs })

    let json = try await double.get("/_double/requests?endpoint=search").json()
    let requests = json["requests"]?.array ?? []
    expectEqual(requests.count, 2)
    expectEqual(requests.last?["status"]?.int, 403)
    expectEqual(requests.last?["arrived_ms"]?.int, 1_800_000_001_750)
    expectEqual(json["dropped"]?.int, 0)
    try await expectEqual(double.get("/_double/requests").json()["requests"]?.array?.count, 3)
    try await expectEqual(double.get("/_double/requests?endpoint=nope").status.code, 400)

    _ = try await double.post("/_double/reset")
    expectTrue(double.requestLog().isEmpty)
  }

  @Test("hostile names are off by default and leave the rest of the catalog unchanged when on")
  func hostileNames() {
    var on = DoubleConfiguration()
    on.repositoryCount = 5000
    on.ownerCount = 500
    on.hostileNames = true
    var off = on
    off.hostileNames = false
    expectTrue(!DoubleConfiguration().hostileNames)
    let hostile = Catalog(configuration: on)
    let plain = Catalog(configuration: off)
    let renamed = zip(hostile.repositories, plain.repositories).filter { $0.name != $1.name }
    expectEqual(renamed.count, 2)
    expectTrue(renamed.allSatisfy { $0.0.name.contains("window.__xss=1") && $0.0.stars < 10 })
    let logins = zip(hostile.owners, plain.owners).filter { $0.login != $1.login }
    expectEqual(logins.map(\.0.login), ["'><svg onload=window.__xss=1>"])
    let changed = zip(hostile.repositories, plain.repositories).filter { $0 != $1 }
    expectEqual(changed.count, 3, "two renamed repositories and the hostile owner's one repository")
    expectTrue(
      zip(hostile.repositories, plain.repositories).allSatisfy { $0.id == $1.id && $0.stars == $1.stars })
  }
}
