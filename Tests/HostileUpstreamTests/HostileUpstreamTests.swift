import CurlClient
import Encodings
import Foundation
import GitHubDouble
import HTTP
import Synchronization
import TestSupport
import Testing

/// A `repo-scroll` process against a GitHub double that misbehaves in every way `HostileMode` knows.
///
/// Each case sets one mode, then asks for a page, a fragment, a star history and an avatar at once
/// while `/healthz` is polled. The process must stay up, answer every health check while that work
/// goes on (each within `healthBound`: generous, so only a server that stopped serving misses it,
/// never one a busy shared machine scheduled late; how fast it answers is for `script/bench*`),
/// keep its peak memory under a bound, give every answer a clear state within a bound (never a 5xx
/// page, never a blank card, never the token), and serve normally again once the double is healthy.
/// The outcome of every case, with the health checks' slowest time for reading, is written to
/// `hostile-upstream-report.txt` in the temporary directory.
@Suite("Hostile upstream", .serialized, .timeLimit(.minutes(5)))
struct HostileUpstreamTests {
  static let answerBound = Duration.seconds(20)
  /// A health check slower than this means the server stopped answering (a blocked event loop, a
  /// crash on the way); the work each case asks for answers within `answerBound`, far above it.
  static let healthBound = Duration.seconds(2)
  /// Resident memory, now and at its peak: a body inflated without a bound (a gzip bomb expands to
  /// gigabytes) passes it by far; the process peaks near 70 MiB through every case.
  static let rssBoundMiB = 256.0
  /// A fragment held up behind hung avatar fetches would wait for the avatar client's 10 s timeout
  /// (or the 30 s hang); one with its own transfers answers in a fraction of a second.
  static let starvationBound = Duration.seconds(5)

  /// One case's findings: a row of the report.
  struct Outcome {
    var name: String
    var category: String
    var statuses: [String] = []
    var slowest = Duration.zero
    var health = Duration.zero
    var slowPolls = ""
    var rss = 0.0
    var recovered = "yes"
    var problems: [String] = []
  }

  /// Cases: the healthy baseline, then every hostile mode.
  static let cases: [HostileMode?] = [nil] + HostileMode.allCases

  @Test func everyHostileModeLeavesTheServerUsable() async throws {
    let fixture = try await HostileFixture.start()
    var outcomes: [Outcome] = []
    var avatarStarvation: Duration?
    do {
      let sample = try await fixture.catalogSample()
      try #require(sample.count >= Self.cases.count)
      for (index, mode) in Self.cases.enumerated() {
        var outcome = try await run(mode, index: index, repo: sample[index], fixture: fixture)
        if mode == .avatarHang {
          avatarStarvation = await starvation(fixture: fixture, sample: sample)
          outcome.statuses.append("api+40 hung avatars: \(Self.ms(avatarStarvation ?? .zero))")
        }
        outcomes.append(outcome)
        for problem in outcome.problems { Issue.record("\(outcome.name): \(problem)") }
      }
      let leaked = fixture.apps.contains { $0.transcript.contains(HostileFixture.token) }
      expectTrue(!leaked, "the token reached the app's log")
      if let avatarStarvation {
        expectTrue(
          avatarStarvation < Self.starvationBound, "a fragment took \(avatarStarvation) while 40 avatars hung"
        )
      }
    } catch {
      Issue.record("suite stopped: \(error)")
    }
    Self.writeReport(outcomes, peak: fixture.memory().peak)
    expectEqual(outcomes.count, Self.cases.count)
    await fixture.stop()
  }

  @Test func aFragmentIsNotHeldUpByFortyHangingAvatarFetches() async throws {
    let fixture = try await HostileFixture.start()
    let sample = try await fixture.catalogSample()
    // Twice: the first fragment of a process also pays for its first connection to the API host.
    let first = await starvation(fixture: fixture, sample: sample, query: "stars:>7000")
    let second = await starvation(fixture: fixture, sample: sample, query: "stars:>6000")
    expectTrue(
      first < Self.starvationBound && second < Self.starvationBound, "fragments took \(first) and \(second)")
    expectTrue(fixture.app.isRunning)
    await fixture.stop()
  }

  /// Runs one case: sets the mode, asks for the four answers while polling health, then checks recovery.
  func run(
    _ mode: HostileMode?, index: Int, repo: (owner: String, name: String, ownerID: Int),
    fixture: HostileFixture
  )
    async throws -> Outcome
  {
    var outcome = Outcome(name: mode?.rawValue ?? "healthy", category: mode?.category ?? "baseline")
    let modeName = mode?.rawValue ?? "none"
    guard await fixture.control(.post, "/_double/faults?mode=\(modeName)&hangLimit=30000") else {
      outcome.problems.append("the double refused mode \(modeName)")
      return outcome
    }
    // A query, repository and avatar no earlier case asked for, so no cache hides the upstream.
    let query = URLEncoding.percentEncode("stars:>\(index + 1)")
    let targets = [
      "/?q=\(query)", "/fragments/results?q=\(query)&after=20",
      "/fragments/stars/\(repo.owner)/\(repo.name)", "/avatars/\(repo.ownerID)?s=40",
    ]
    let done = Atomic<Bool>(false)
    async let health = fixture.pollHealth(bound: Self.healthBound) { done.load(ordering: .relaxed) }
    let answers = await withTaskGroup(of: (Int, Result<ClientResponse, ClientError>, Duration).self) {
      group in
      for (i, target) in targets.enumerated() {
        group.addTask {
          let (result, elapsed) = await fixture.get(target)
          return (i, result, elapsed)
        }
      }
      var all: [(Int, Result<ClientResponse, ClientError>, Duration)] = []
      for await answer in group { all.append(answer) }
      return all.sorted { $0.0 < $1.0 }
    }
    done.store(true, ordering: .relaxed)
    let polled = await health
    outcome.health = polled.slowest
    outcome.slowPolls = "\(polled.slow)/\(polled.polls)"
    for (i, result, elapsed) in answers {
      outcome.slowest = max(outcome.slowest, elapsed)
      let label = ["page", "fragment", "stars", "avatar"][i]
      if elapsed > Self.answerBound { outcome.problems.append("\(label) took \(elapsed)") }
      switch result {
      case .failure(let error):
        outcome.statuses.append("\(label) ✗")
        outcome.problems.append("\(label) failed: \(error)")
      case .success(let response):
        outcome.statuses.append("\(label) \(response.status.code)")
        outcome.problems += Self.check(label, response)
      }
    }
    if polled.failures > 0 { outcome.problems.append("/healthz failed \(polled.failures) times") }
    if polled.slow > 0 {
      outcome.problems.append(
        "/healthz took over \(Self.ms(Self.healthBound)) in \(polled.slow) of \(polled.polls) polls, "
          + "max \(Self.ms(polled.slowest))")
    }
    if !fixture.app.isRunning {
      let lines = fixture.app.errorOutput.split(separator: "\n")
      let reason = lines.first { $0.contains("Fatal error") || $0.contains("fatal") } ?? lines.last ?? ""
      outcome.problems.append("the app exited: \(reason.prefix(300))")
      try await fixture.restartApp()
      outcome.recovered = "restarted"
      return outcome
    }
    let memory = fixture.memory()
    outcome.rss = memory.rss
    if memory.rss > Self.rssBoundMiB { outcome.problems.append("RSS \(memory.rss) MiB") }
    if memory.peak > Self.rssBoundMiB { outcome.problems.append("peak RSS \(memory.peak) MiB") }
    _ = await fixture.control(.post, "/_double/faults?mode=none")
    outcome.recovered = await recovered(index: index, fixture: fixture)
    let lockedOut = ["rate-limit", "forbidden"].contains(outcome.category) || mode == .bare429
    if outcome.recovered != "yes" {
      if lockedOut {
        outcome.recovered = "locked out (restarted)"
      } else {
        outcome.problems.append("no cards once the double was healthy again")
      }
      try await fixture.restartApp()
    } else if lockedOut {
      // A lock-out that ended already is fine, but the next case needs a clean ledger either way.
      try await fixture.restartApp()
    }
    return outcome
  }

  /// Whether a fresh query shows cards again within a few seconds of the double turning healthy.
  func recovered(index: Int, fixture: HostileFixture) async -> String {
    let query = URLEncoding.percentEncode("stars:>\(index + 1) fork:true")
    for attempt in 0..<4 {
      // Real time: the app's upstream recovers on its own schedule; a reader would retry like this.
      if attempt > 0 { try? await Task.sleep(for: .seconds(1)) }
      if case .success(let r) = await fixture.get("/fragments/results?q=\(query)&after=20&retry=\(attempt)").0,
        r.status.code == 200, Self.cards(String(decoding: r.body, as: UTF8.self)) > 0
      {
        return "yes"
      }
    }
    return "no"
  }

  /// With the avatar host hanging: 40 avatar fetches first, then the time a fragment takes.
  func starvation(
    fixture: HostileFixture, sample: [(owner: String, name: String, ownerID: Int)],
    query: String = "stars:>5000"
  ) async -> Duration {
    _ = await fixture.control(.post, "/_double/faults?mode=avatar-hang&hangLimit=30000")
    let avatars = Task {
      await withTaskGroup(of: Void.self) { group in
        for item in sample.prefix(40) {
          group.addTask { _ = await fixture.get("/avatars/\(item.ownerID)?s=80") }
        }
      }
    }
    // Real time: lets the 40 avatar fetches reach the hanging host over loopback.
    try? await Task.sleep(for: .milliseconds(500))
    let (answer, elapsed) = await fixture.get(
      "/fragments/results?q=\(URLEncoding.percentEncode(query))&after=20")
    if case .success(let r) = answer, Self.cards(String(decoding: r.body, as: UTF8.self)) == 0 {
      Issue.record("the fragment beside hung avatars had no cards")
    }
    _ = await fixture.control(.post, "/_double/faults?mode=none")
    avatars.cancel()
    await avatars.value
    return elapsed
  }

  /// What is wrong with one answer for the user: a 5xx, no clear state, a blank card, the token.
  static func check(_ label: String, _ response: ClientResponse) -> [String] {
    var problems: [String] = []
    let code = response.status.code
    let body = String(decoding: response.body, as: UTF8.self)
    if code >= 500 { problems.append("\(label) answered \(code)") }
    if body.contains(HostileFixture.token) { problems.append("\(label) shows the token") }
    switch label {
    case "page", "fragment":
      let cards = Self.cards(body)
      // A card's visible name: the text of its heading, whatever markup sits inside it.
      let named = body.matches(of: #/<h2 class="card-name"[^>]*>(.*?)</h2>/#).filter {
        $0.1.replacing(#/<[^>]*>/#, with: "").contains { !$0.isWhitespace }
      }.count
      let state = body.contains("class=\"state ") || body.contains("class=\"notice\"")
      if cards == 0 && !state { problems.append("\(label) has neither cards nor a state message") }
      if named < cards { problems.append("\(label) has \(cards - named) cards without a name") }
    case "stars":
      if response.body.isEmpty { problems.append("stars answered an empty body") }
    default:
      let type = response.headers["Content-Type"] ?? ""
      if code != 200 || !type.hasPrefix("image/") { problems.append("avatar answered \(code) \(type)") }
    }
    return problems
  }

  static func cards(_ html: String) -> Int { html.matches(of: #/<article class="card"/#).count }

  static func ms(_ d: Duration) -> String {
    let c = d.components
    return String(format: "%.0f ms", Double(c.seconds) * 1000 + Double(c.attoseconds) / 1e15)
  }

  static func writeReport(_ outcomes: [Outcome], peak: Double) {
    var lines = ["case\tclass\tanswers\tslowest\thealthz max\thealthz >2s\tRSS MiB\trecovered\toutcome"]
    for o in outcomes {
      lines.append(
        [
          o.name, o.category, o.statuses.joined(separator: ", "), ms(o.slowest), ms(o.health), o.slowPolls,
          String(format: "%.0f", o.rss), o.recovered,
          o.problems.isEmpty ? "pass" : o.problems.joined(separator: "; "),
        ].joined(separator: "\t"))
    }
    lines.append("peak RSS (VmHWM of the last app process): \(String(format: "%.0f", peak)) MiB")
    let path = NSTemporaryDirectory() + "hostile-upstream-report.txt"
    try? lines.joined(separator: "\n").appending("\n").write(toFile: path, atomically: true, encoding: .utf8)
  }
}
