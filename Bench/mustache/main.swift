// The fragment's render path as the product runs it: the app's own templates (loaded as startup
// loads them), a batch of 20 repositories decoded from the GitHub double's JSON by the app's decoder,
// and `partials/cards` rendered over the batch's view (`BatchView`, whose cards are a `CardBatch`).
// Reports CPU µs per render (median of 9 runs). script/bench-mustache builds it in release; the
// debug build (`swift build`, so CI) compiles it. The app's types are internal, hence the testable
// imports (script/bench-mustache builds with -enable-testing).
import Clocks
import Dispatch
import GitHubDouble
import HTTP
import HTTPServer
import Paging
import Synchronization

@testable import App
@testable import GitHub
@testable import Mustache

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// Cards per batch, as the app's default `--batch-size`.
let batchSize = 20
/// A fixed "now" (Unix seconds), so relative times render the same in every run.
let fixedNow = 1_780_000_000

/// The body of `target` from an in-process GitHub double, waited for on this thread.
func doubleBody(_ target: String) -> [UInt8] {
  let double = GitHubDouble(configuration: DoubleConfiguration(), time: .system)
  let result = Mutex<[UInt8]?>(nil)
  let done = DispatchSemaphore(value: 0)
  Task {
    var bytes: [UInt8] = []
    if let response = try? await double.handler(
      HTTPRequest(method: .get, target: target), RequestContext(requestID: "bench"))
    {
      switch response.body {
      case .bytes(let body): bytes = body
      case .stream(let stream):
        do { for try await chunk in stream { bytes += chunk } } catch { bytes = [] }
      }
    }
    result.withLock { $0 = bytes }
    done.signal()
  }
  done.wait()
  return result.withLock { $0 } ?? []
}

/// The second batch of `q=swift` (cards 21 to 40 of 1,000), as the fragment handler builds it.
func secondBatch() throws -> BatchView {
  let body = doubleBody("/search/repositories?q=swift&sort=stars&order=desc&per_page=100&page=1")
  let page = try ResponseDecoding.searchPage(body, headers: [:], page: 1, perPage: 100)
  guard page.items.count >= 2 * batchSize else {
    throw BenchError("the double answered \(page.items.count) repositories, not \(2 * batchSize)")
  }
  let items = (batchSize..<(2 * batchSize)).map { PositionedItem(position: $0 + 1, item: page.items[$0]) }
  let largest = page.items.map { $0.stargazersCount }.max() ?? 0
  let batch = ListBatch(
    cursor: batchSize, items: items, nextCursor: 2 * batchSize, total: 1000, state: .items)
  return BatchView(
    batch: batch, kind: .search(SearchQuery(text: "swift", sort: .stars, order: .desc)), batchSize: batchSize,
    prefetchMargin: 5, largestStars: largest, now: fixedNow)
}

struct BenchError: Error, CustomStringConvertible {
  let description: String
  init(_ description: String) { self.description = description }
}

/// CPU time of this thread: steadier than wall time on a machine shared with other work.
func now() -> Double {
  var ts = timespec()
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts)
  return Double(ts.tv_sec) + Double(ts.tv_nsec) / 1e9
}

/// CPU seconds per call of `body`, sorted (9 runs of `iterations` calls).
func measure(iterations: Int, _ body: () throws -> Void) rethrows -> [Double] {
  var samples: [Double] = []
  for _ in 0..<9 {
    let start = now()
    for _ in 0..<iterations { try body() }
    samples.append((now() - start) / Double(iterations))
  }
  return samples.sorted()
}

func microseconds(_ seconds: Double) -> String {
  let tenths = Int((seconds * 1e7).rounded())
  return "\(tenths / 10).\(tenths % 10)"
}

func run() throws {
  let library = try Routes.loadTemplates(directory: "Templates")
  let cardsOnly = try TemplateLibrary(
    templates: [
      "partials/card": try TemplateFiles.read("Templates/partials/card.mustache"),
      "page": "{{#cards}}\n{{> partials/card}}\n{{/cards}}\n",
    ], bindings: ["partials/card": CardField.schema], trimWhitespace: true)
  let view = try secondBatch()
  let cards = view.cards
  var buffer: [UInt8] = []
  try library.render("partials/cards", view.mustacheValue, into: &buffer)
  let fragment = buffer
  let cardCount = String(decoding: fragment, as: UTF8.self).split(separator: "data-repo-id=").count - 1
  guard cardCount == batchSize else {
    throw BenchError("the fragment holds \(cardCount) cards, not \(batchSize)")
  }
  print(
    "mustache bench: the fragment of cards 21-40 of q=swift: \(fragment.count) bytes "
      + "(\(fragment.count / batchSize) per card)")
  let cases: [(String, () throws -> Void)] = [
    (
      "fragment (partials/cards over BatchView, CardBatch built per render)",
      {
        buffer.removeAll(keepingCapacity: true)
        try library.render("partials/cards", view.mustacheValue, into: &buffer)
      }
    ),
    (
      "cards only (partials/card over one CardBatch)",
      {
        buffer.removeAll(keepingCapacity: true)
        try cardsOnly.render("page", MustacheValue.object(["cards": .rows(cards)]), into: &buffer)
      }
    ),
  ]
  for (label, body) in cases {
    let samples = try measure(iterations: 2_000, body)
    let median = samples[samples.count / 2]
    print("\(label): runs (CPU µs/render):", samples.map(microseconds).joined(separator: " "))
    print(
      "\(label): median \(microseconds(median)) µs CPU per render, \(Int((1 / median).rounded())) renders/s per core"
    )
  }
  if CommandLine.arguments.contains("--print") { print(String(decoding: fragment, as: UTF8.self)) }
}

do {
  try run()
} catch {
  print("bench failed: \(error)")
  exit(1)
}
