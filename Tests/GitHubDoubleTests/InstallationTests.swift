import Encodings
import GitHubDouble
import HTTP
import HTTPServer
import TestSupport
import Testing

/// The organisation where the double's GitHub App is installed: its private repositories are seen by
/// its members' App tokens (and `repo` tokens), never by a non-member, an anonymous request or the
/// server's token, unless the server's token is configured to see them (with `repo`, or with no
/// scopes header like a fine-grained token).
@Suite("The installed organisation: private repositories for its members only", .timeLimit(.minutes(3)))
struct InstallationTests {
  /// The organisation's login and its private repositories' full names.
  static func installed(_ double: GitHubDouble) throws -> (login: String, names: Set<String>) {
    let login = try #require(double.catalog.installedOrganisation?.login)
    let names = Set(double.catalog.installedRepositories.map { login + "/" + $0.name })
    return (login, names)
  }

  @Test func membersAppTokensSeeTheOrganisationsPrivateRepositoriesAndNobodyElse() async throws {
    let (double, _) = Fixtures.clocked()
    let (org, names) = try Self.installed(double)
    expectTrue(names.count == 4 && names.allSatisfy { $0.contains("/vault-") })
    expectTrue(double.catalog.isInstallationMember("MONA") && !double.catalog.isInstallationMember("carol"))
    let member = try #require(double.grant(login: "mona")?.accessToken)
    let outsider = try #require(double.grant(login: "carol")?.accessToken)
    expectTrue(member.hasPrefix("ghu_") && outsider.hasPrefix("ghu_"))
    let memberOAuth = try #require(double.signIn(login: "mona", seesPrivate: false))
    let memberRepo = try #require(double.signIn(login: "mona", seesPrivate: true))
    for query in ["org:\(org)", "topic:installed-app", "vault"] {
      let target = "/search/repositories?q=\(URLEncoding.percentEncode(query))&per_page=100"
      let seen = Set(
        try ReaderIdentityTests.fullNames(try await ReaderIdentityTests.get(double, target, token: member)))
      expectTrue(names.isSubset(of: seen), "\(query): the member sees them")
      expectTrue(
        Set(
          try ReaderIdentityTests.fullNames(
            try await ReaderIdentityTests.get(double, target, token: memberRepo))
        ).isSuperset(of: names))
      for token in [outsider, memberOAuth, "ghp_server", nil] as [String?] {
        let others = Set(
          try ReaderIdentityTests.fullNames(try await ReaderIdentityTests.get(double, target, token: token)))
        expectTrue(others.isDisjoint(with: names), "\(query): \(token?.prefix(4) ?? "anonymous") sees none")
      }
    }
    // Histories, counts and the repository itself.
    let name = try #require(names.first)
    for suffix in ["", "/stargazers/history", "/stargazers/count"] {
      try await expectEqual(
        ReaderIdentityTests.get(double, "/repos/\(name)\(suffix)", token: member).status.code, 200)
      for token in [outsider, memberOAuth, "ghp_server", nil] as [String?] {
        try await expectEqual(
          ReaderIdentityTests.get(double, "/repos/\(name)\(suffix)", token: token).status.code, 404)
      }
    }
    let repository = try await ReaderIdentityTests.get(double, "/repos/\(name)", token: member).json()
    expectTrue(repository["private"] == .bool(true) && repository["visibility"]?.string == "private")
    // App tokens carry no scopes header; the member's answers say nothing of scopes either.
    try await expectEqual(
      ReaderIdentityTests.get(double, "/search/repositories?q=vault", token: member).headers[
        "X-OAuth-Scopes"], nil)
  }

  @Test(arguments: [ServerTokenAccess.repo, .fineGrained])
  func aServerTokenConfiguredToSeeThemDoes(_ access: ServerTokenAccess) async throws {
    let (double, _) = Fixtures.clocked { $0.serverTokenAccess = access }
    let (_, names) = try Self.installed(double)
    let answer = try await ReaderIdentityTests.get(
      double, "/search/repositories?q=vault&per_page=100", token: "ghp_server")
    expectTrue(names.isSubset(of: Set(try ReaderIdentityTests.fullNames(answer))))
    expectEqual(answer.headers["X-OAuth-Scopes"], (access == .repo ? "repo" : nil))
    // `GET /user` with the server's token answers, with the same header (the startup check).
    let user = try await ReaderIdentityTests.get(double, "/user", token: "ghp_server")
    expectEqual(user.status.code, 200)
    expectEqual(user.headers["X-OAuth-Scopes"], (access == .repo ? "repo" : nil))
    // Anonymous requests still see none.
    let anonymous = try await ReaderIdentityTests.get(
      double, "/search/repositories?q=vault&per_page=100", token: nil)
    expectTrue(Set(try ReaderIdentityTests.fullNames(anonymous)).isDisjoint(with: names))
  }

  @Test func theDefaultServerTokenSeesPublicDataAndSaysSo() async throws {
    let (double, _) = Fixtures.clocked()
    let user = try await ReaderIdentityTests.get(double, "/user", token: "ghp_server")
    expectTrue(user.status.code == 200 && user.headers["X-OAuth-Scopes"] == "")
  }

  @Test func theControlAPIListsTheInstallationAndThePublicCatalogIsTheSameWithout() async throws {
    let (double, _) = Fixtures.clocked()
    let (org, names) = try Self.installed(double)
    let json = try await OAuthFlowTests.send(double, .get, "/_double/installation").json()
    expectEqual(json["organisation"]?.string, org)
    expectEqual(Set(json["repositories"]?.array?.compactMap { $0["full_name"]?.string } ?? []), names)
    expectEqual(json["members"]?.array?.compactMap(\.string), ["mona", "octo-member"])
    let (without, _) = Fixtures.clocked { $0.installation.privateRepositories = 0 }
    expectEqual(without.catalog.installedOrganisation, nil)
    let broad = "/search/repositories?q=stars:>100&sort=stars&per_page=100&page=2"
    try expectEqual(
      ReaderIdentityTests.fullNames(try await ReaderIdentityTests.get(double, broad, token: nil)),
      (try ReaderIdentityTests.fullNames(try await ReaderIdentityTests.get(without, broad, token: nil))))
  }
}
