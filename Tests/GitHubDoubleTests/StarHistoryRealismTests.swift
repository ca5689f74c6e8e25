import TestSupport
import Testing

@testable import GitHubDouble

/// The demo's star histories tell a believable story for every repository of the catalog: they add up
/// to the star count, spread over the repository's life, and no card can say "+392k this week".
@Suite("Star history realism", .timeLimit(.minutes(3)))
struct StarHistoryRealismTests {
  let catalog = Fixtures.shared.catalog

  private func history(_ repo: CatalogRepository) -> StarHistory {
    StarHistory(repo: repo, referenceTime: catalog.referenceTime)
  }

  private func weeks(_ h: StarHistory) -> [Int] {
    (0..<h.weekCount).map { h.cumulative($0) - h.cumulative($0 - 1) }
  }

  @Test("every repository: weekly stars add up, never negative, and no week is implausibly large")
  func everyRepository() {
    var checked = 0
    for repo in catalog.repositories {
      let h = history(repo)
      let gains = weeks(h)
      expectEqual(gains.reduce(0, +), repo.stars, "\(repo.name)")
      expectTrue(gains.allSatisfy { $0 >= 0 }, "\(repo.name)")
      let share = max(StarHistory.maxWeekShare, 2 / Double(h.weekCount))
      let most = max(
        Double(repo.stars) / Double(h.weekCount),
        min(share * Double(repo.stars), Double(StarHistory.maxWeekStars)))
      // One star of rounding per week boundary.
      let largest = gains.max() ?? 0
      expectTrue(
        Double(largest) <= most + 2,
        "\(repo.name): \(largest) of \(repo.stars) in one of \(h.weekCount) weeks")
      checked += 1
    }
    expectTrue(checked == catalog.repositories.count && checked > 1000)
  }

  @Test("this week is a small part of a big repository's stars, or near its pace if it is young")
  func thisWeekIsPlausible() {
    let big = catalog.repositories.filter { $0.stars >= 10_000 }
    expectTrue(big.count >= 20)
    for repo in big {
      let h = history(repo)
      let thisWeek = weeks(h).last ?? 0
      expectTrue(thisWeek <= StarHistory.maxWeekStars + 1, "\(repo.name): +\(thisWeek) this week")
      // No more than 5% of all stars, or for a young repository twice its average week.
      let pace = 2 * Double(repo.stars) / Double(h.weekCount)
      expectTrue(
        Double(thisWeek) <= max(Double(repo.stars) * 0.05, pace) + 1,
        "\(repo.name): +\(thisWeek) of \(repo.stars) in \(h.weekCount) weeks")
    }
  }

  @Test("stars accrue over the whole life: big repositories are old, and got stars in most of their years")
  func overTheWholeLife() {
    for repo in catalog.repositories where repo.stars >= 5_000 {
      let age = catalog.referenceTime - repo.createdAt
      expectTrue(
        age >= StarHistory.minimumLife(stars: repo.stars), "\(repo.name) is too young for \(repo.stars)")
      let gains = weeks(history(repo))
      // Stars in the first and the second half of the repository's life.
      let half = gains.count / 2
      let early = gains[..<half].reduce(0, +)
      let late = gains[half...].reduce(0, +)
      expectTrue(early > 0 && late > 0, "\(repo.name): \(early) then \(late)")
    }
  }

  @Test("launches show as bursts: some week gains several times the median week")
  func bursts() {
    let old = catalog.repositories.filter { $0.stars >= 2_000 && history($0).weekCount > 52 }.prefix(200)
    expectTrue(old.count >= 50)
    let bursty = old.filter { repo in
      let gains = weeks(history(repo)).filter { $0 > 0 }.sorted()
      guard gains.count > 10 else { return false }
      return Double(gains.last ?? 0) >= 3 * Double(gains[gains.count / 2])
    }
    expectTrue(
      Double(bursty.count) >= Double(old.count) * 0.5, "\(bursty.count) of \(old.count) have a burst")
  }
}
