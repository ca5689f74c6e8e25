import GitHubDouble
import TestSupport
import Testing

@Suite("Catalog", .timeLimit(.minutes(3)))
struct CatalogTests {
  @Test("same seed gives the same catalog; a different seed differs")
  func determinism() {
    var a = DoubleConfiguration()
    a.repositoryCount = 3000
    a.ownerCount = 300
    var b = a
    b.seed = 2
    let one = Catalog(configuration: a)
    let two = Catalog(configuration: a)
    let other = Catalog(configuration: b)
    expectEqual(one.repositories, two.repositories)
    expectEqual(one.owners, two.owners)
    expectTrue(one.repositories != other.repositories)
    expectTrue(one.owners.map(\.login) != other.owners.map(\.login))
  }

  @Test("full size: 20,000 repositories over 2,000 owners with unique ids and names")
  func sizes() {
    let c = Fixtures.shared.catalog
    expectEqual(c.publicRepositories.count, 20000)
    expectEqual(Set(c.repositories.map(\.id)).count, c.repositories.count)
    expectEqual(c.owners.count, 2000)
    expectEqual(Set(c.publicRepositories.map(\.id)).count, 20000)
    expectEqual(Set(c.owners.map(\.id)).count, 2000)
    expectEqual(Set(c.owners.map { $0.login.lowercased() }).count, 2000)
    let fullNames = c.publicRepositories.map { (c.owners[$0.ownerIndex].login + "/" + $0.name).lowercased() }
    expectEqual(Set(fullNames).count, 20000)
    expectTrue(c.owners.contains { $0.isOrganization } && c.owners.contains { !$0.isOrganization })
  }

  @Test("stars follow a power law: a few huge, most small; forks correlate")
  func starDistribution() {
    let stars = Fixtures.shared.catalog.repositories.map(\.stars).sorted()
    expectTrue(stars.filter { $0 >= 100_000 }.count >= 1)
    expectTrue(stars.filter { $0 >= 100_000 }.count <= 30)
    expectTrue(stars[stars.count / 2] < 20)
    let repos = Fixtures.shared.catalog.repositories
    let big = repos.filter { $0.stars > 10_000 }
    let small = repos.filter { $0.stars < 10 }
    let avg = { (r: [CatalogRepository]) in Double(r.map(\.forks).reduce(0, +)) / Double(max(r.count, 1)) }
    expectTrue(avg(big) > 50 * avg(small))
  }

  @Test("logins and names follow GitHub's rules")
  func nameRules() {
    let c = Fixtures.shared.catalog
    for o in c.owners {
      let ok =
        !o.login.isEmpty && o.login.count <= 39 && !o.login.hasPrefix("-") && !o.login.hasSuffix("-")
        && !o.login.contains("--")
        && o.login.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-") }
      expectTrue(ok, "bad login \(o.login)")
    }
    for r in c.repositories {
      let ok =
        !r.name.isEmpty && r.name.count <= 100 && r.name != "." && r.name != ".."
        && r.name.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || "-_.".contains($0)) }
      expectTrue(ok, "bad name \(r.name)")
    }
  }

  @Test("dates are ordered and end at the reference time")
  func dates() {
    let c = Fixtures.shared.catalog
    for r in c.repositories {
      expectTrue(r.createdAt <= r.pushedAt && r.pushedAt <= r.updatedAt && r.updatedAt <= c.referenceTime)
    }
  }

  @Test("descriptions exercise escaping: HTML, quotes, emoji, very long, nil")
  func awkwardDescriptions() {
    let d = Fixtures.shared.catalog.repositories.map(\.description)
    expectTrue(d.contains { $0 == nil })
    expectTrue(d.contains { $0?.contains("<b>") == true })
    expectTrue(d.contains { $0?.contains("\"") == true })
    expectTrue(d.contains { $0?.unicodeScalars.contains { $0.properties.isEmojiPresentation } == true })
    expectTrue(d.contains { ($0?.count ?? 0) > 500 })
  }

  @Test("hostile fixtures carry XSS payloads only when enabled")
  func hostile() {
    let c = Fixtures.shared.catalog
    let hostile = c.repositories.filter { $0.description?.contains("window.__xss=1") == true }
    expectTrue(hostile.count >= 5)
    expectTrue(hostile.contains { $0.description?.contains("<img src=x onerror=window.__xss=1>") == true })
    expectTrue(hostile.contains { $0.description?.contains("\"><script>window.__xss=1</script>") == true })
    expectTrue(hostile.allSatisfy { r in r.topics.contains { $0.contains("__xss") } })
    var off = DoubleConfiguration()
    off.hostileFixtures = false
    off.repositoryCount = 5000
    off.ownerCount = 500
    let clean = Catalog(configuration: off)
    expectTrue(!clean.repositories.contains { $0.description?.contains("__xss") == true })
  }
}
