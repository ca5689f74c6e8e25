import Clocks
import GitHubDouble
import HTTP
import HTTPServer
import TestSupport
import Testing

/// What the double does with a signed-in reader's token: private repositories for their owner only,
/// each user's own rate limits, `X-OAuth-Scopes`, and the identity in the request log.
@Suite("Signed-in readers: private repositories, own limits, identity", .timeLimit(.minutes(3)))
struct ReaderIdentityTests {
  static func get(_ double: GitHubDouble, _ target: String, token: String?) async throws -> HTTPResponse {
    try await OAuthFlowTests.send(
      double, .get, target, headers: token.map { ["Authorization": "Bearer \($0)"] } ?? [:])
  }

  static func fullNames(_ response: HTTPResponse) throws -> [String] {
    try response.json()["items"]?.array?.compactMap { $0["full_name"]?.string } ?? []
  }

  @Test func privateRepositoriesAreSeenByTheirOwnersRepoTokenOnly() async throws {
    let (double, _) = Fixtures.clocked()
    // The users' own private repositories (the installed organisation's are `InstallationTests`').
    let usersRepositories = double.catalog.privateRepositories.filter {
      !double.catalog.owners[$0.ownerIndex].isOrganization
    }
    let owners = Array(Set(usersRepositories.map { double.catalog.owners[$0.ownerIndex].login })).sorted()
    expectEqual(owners.count, 3)
    expectEqual(usersRepositories.count, 6)
    let alice = owners[0]
    let mine = Set(
      double.catalog.privateRepositories.filter { double.catalog.owners[$0.ownerIndex].login == alice }.map {
        alice + "/" + $0.name
      })
    let aliceRepo = try #require(double.signIn(login: alice, seesPrivate: true))
    let bobRepo = try #require(double.signIn(login: owners[1], seesPrivate: true))
    let query = "/search/repositories?q=topic:private-fixture&per_page=100"
    expectEqual(Set(try Self.fullNames(try await Self.get(double, query, token: aliceRepo))), mine)
    let bobSees = Set(try Self.fullNames(try await Self.get(double, query, token: bobRepo)))
    expectTrue(bobSees.isDisjoint(with: mine) && bobSees.count == 2)
    expectTrue(try Self.fullNames(try await Self.get(double, query, token: nil)).isEmpty)
    expectTrue(try Self.fullNames(try await Self.get(double, query, token: "ghp_server")).isEmpty)
    // A broad query: the same for anonymous readers with or without the private repositories around.
    let broad = "/search/repositories?q=stars:>100&sort=stars&per_page=100&page=3"
    let anonymous = try Self.fullNames(try await Self.get(double, broad, token: nil))
    expectTrue(anonymous.allSatisfy { !mine.contains($0) })
    var plain = DoubleConfiguration()
    plain.seed = 7
    plain.repositoryCount = 1500
    plain.ownerCount = 200
    plain.privateRepositoryOwners = 0
    plain.installation.privateRepositories = 0
    let without = GitHubDouble(configuration: plain, time: .system)
    try expectEqual(Self.fullNames(try await Self.get(without, broad, token: nil)), anonymous)
    // Histories, counts and the repository itself: 404 to anyone but the owner.
    let name = try #require(mine.first)
    for suffix in ["", "/stargazers/history", "/stargazers/count"] {
      try await expectEqual(Self.get(double, "/repos/\(name)\(suffix)", token: aliceRepo).status.code, 200)
      try await expectEqual(Self.get(double, "/repos/\(name)\(suffix)", token: bobRepo).status.code, 404)
      try await expectEqual(Self.get(double, "/repos/\(name)\(suffix)", token: nil).status.code, 404)
    }
    let repository = try await Self.get(double, "/repos/\(name)", token: aliceRepo).json()
    expectTrue(repository["private"] == .bool(true) && repository["visibility"]?.string == "private")
    // The public list of a user's repositories never has them.
    let listed = try await Self.get(double, "/users/\(alice)/repos?per_page=100", token: aliceRepo).json()
    expectEqual(listed.array?.allSatisfy { $0["private"] == .bool(false) }, true)
  }

  @Test func aTokenWithoutRepoSeesNoPrivateRepositoryEvenItsOwners() async throws {
    let (double, _) = Fixtures.clocked()
    let alice = try OAuthFlowTests.privateOwner(double)
    let token = try #require(double.signIn(login: alice, seesPrivate: false))
    let answer = try await Self.get(double, "/search/repositories?q=topic:private-fixture", token: token)
    expectTrue(try Self.fullNames(answer).isEmpty)
    expectEqual(answer.headers["X-OAuth-Scopes"], "")
  }

  @Test func eachUserHasTheirOwnSearchLimitAndTheSharedOneIsUntouched() async throws {
    let (double, _) = Fixtures.clocked {
      $0.readerSearchLimitPerMinute = 3
      $0.searchLimitPerMinute = 5
    }
    let alice = try #require(double.signIn(login: "alice-limit", seesPrivate: false))
    let bob = try #require(double.signIn(login: "bob-limit", seesPrivate: false))
    var remaining: [String] = []
    for _ in 0..<3 {
      let answer = try await Self.get(double, "/search/repositories?q=a", token: alice)
      expectEqual(answer.status.code, 200)
      remaining.append(answer.headers["x-ratelimit-remaining"] ?? "")
    }
    expectEqual(remaining, ["2", "1", "0"])
    let refused = try await Self.get(double, "/search/repositories?q=a", token: alice)
    expectTrue(refused.status.code == 403 && refused.headers["x-ratelimit-remaining"] == "0")
    // Bob, the server and anonymous readers are not limited by Alice.
    let bobAnswer = try await Self.get(double, "/search/repositories?q=a", token: bob)
    expectTrue(bobAnswer.status.code == 200 && bobAnswer.headers["x-ratelimit-limit"] == "3")
    let anonymous = try await Self.get(double, "/search/repositories?q=a", token: nil)
    expectTrue(anonymous.status.code == 200 && anonymous.headers["x-ratelimit-remaining"] == "4")
    expectEqual(double.rateWindow(.search, login: "alice-limit")?.remaining, 0)
    expectEqual(double.rateWindow(.search)?.remaining, 4)
    // A second token of Alice's spends the same budget (GitHub counts per user).
    let again = try #require(double.signIn(login: "alice-limit", seesPrivate: false))
    try await expectEqual(Self.get(double, "/search/repositories?q=a", token: again).status.code, 403)
  }

  @Test func aUsersBudgetCanStartLowAsIfOtherToolsHadSpentIt() async throws {
    let (double, _) = Fixtures.clocked()
    let token = try #require(double.signIn(login: "busy-user", seesPrivate: false))
    let set = try await OAuthFlowTests.send(
      double, .post, "/_double/ratelimit?resource=search&remaining=1&login=busy-user")
    try expectEqual(set.json()["remaining"]?.int, 1)
    try await expectEqual(Self.get(double, "/search/repositories?q=a", token: token).status.code, 200)
    try await expectEqual(Self.get(double, "/search/repositories?q=a", token: token).status.code, 403)
    let status = try await Self.get(double, "/rate_limit", token: token).json()
    expectEqual(status["resources"]?["search"]?["remaining"]?.int, 0)
  }

  @Test func theRequestLogNamesWhomEachRequestWasMadeAs() async throws {
    let (double, _) = Fixtures.clocked()
    let token = try #require(double.signIn(login: "logged-reader", seesPrivate: false))
    _ = try await Self.get(double, "/search/repositories?q=a", token: token)
    _ = try await Self.get(double, "/search/repositories?q=b", token: "ghp_server")
    _ = try await Self.get(double, "/search/repositories?q=c", token: nil)
    double.revokeTokens(login: "logged-reader")
    _ = try await Self.get(double, "/search/repositories?q=d", token: token)
    let identities = double.requestLog().filter { $0.endpoint == .search }.map(\.identity)
    expectEqual(identities, ["logged-reader", "server", "anonymous", "logged-reader"])
    let json = try await OAuthFlowTests.send(double, .get, "/_double/requests?endpoint=search").json()
    expectEqual(json["requests"]?.array?.compactMap { $0["identity"]?.string }, identities)
  }

  @Test func apiAnswersToATokenCarryItsScopes() async throws {
    let (double, _) = Fixtures.clocked()
    let owner = try OAuthFlowTests.privateOwner(double)
    let token = try #require(double.signIn(login: owner, seesPrivate: true))
    let repo = try #require(double.catalog.publicRepositories.first)
    let name = double.catalog.owners[repo.ownerIndex].login + "/" + repo.name
    for target in ["/search/repositories?q=a", "/repos/\(name)/stargazers/history", "/user"] {
      try await expectEqual(Self.get(double, target, token: token).headers["X-OAuth-Scopes"], "repo")
    }
    try await expectEqual(
      Self.get(double, "/search/repositories?q=a", token: nil).headers["X-OAuth-Scopes"], nil)
  }
}
