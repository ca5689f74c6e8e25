import GitHub
import Mustache
import Paging

/// One batch of cards with what follows it: the next trigger or a terminal state (`partials/cards`,
/// and the `batch` of the page).
struct BatchView: MustacheRepresentable {
  let batch: ListBatch<Repository>
  let kind: ListKind
  let batchSize: Int
  let prefetchMargin: Int
  /// The largest star count in the list so far.
  let largestStars: Int
  /// Unix seconds.
  let now: Int
  /// How many results upstream has for the query (before GitHub's cap), when known: the page's
  /// "1,681 repositories". Nil for fragments, which do not show it.
  var resultCount: Int? = nil
  /// True when nothing of the list is on the page before this batch (a full page's batch): its
  /// error and rate-limit states then say that nothing could be loaded, not that no more could.
  var firstOnPage = false

  var mustacheValue: MustacheValue { value(cards: cards) }

  /// Every name `mustacheValue` answers, nested ones as templates read them (inside `{{#next}}`,
  /// `{{href}}`): the batch templates are checked against these when they load.
  static let templateNames = [
    "cards", "total", "hasCards", "countText", "incomplete", "next", "href", "fragment", "page", "empty",
    "q", "end", "capReached", "totalText", "error", "message", "retryable", "retry", "retry.fragment",
    "retry.href", "first", "rateLimited", "resetText", "resetISO", "retryIn",
  ]

  /// The cards' shared part, the prefetch trigger marked.
  var cards: CardBatch {
    let items = batch.items
    return CardBatch(
      items: items, setsize: batch.total,
      trigger: batch.nextCursor == nil ? nil : prefetchIndex(batchCount: items.count, margin: prefetchMargin),
      largestStars: largestStars, now: now)
  }

  private func value(cards: CardBatch) -> MustacheValue {
    // Room for every top-level name at once, so adding `next` or a state never regrows the table.
    var value = [String: MustacheValue](minimumCapacity: 6)
    value["cards"] = .rows(cards)
    value["total"] = .int(batch.total)
    value["hasCards"] = .bool(cards.count > 0)
    if let resultCount, resultCount > 0 {
      value["countText"] = .string(
        Formatting.grouped(resultCount) + (resultCount == 1 ? " repository" : " repositories"))
    }
    if batch.incomplete { value["incomplete"] = .bool(true) }
    switch batch.state {
    case .items:
      if let next = batch.nextCursor {
        let page = next / batchSize + 1
        value["next"] = .object([
          "href": .string(kind.pageURL(page: page)), "fragment": .string(kind.fragmentURL(after: next)),
          "page": .int(page),
        ])
      }
    case .empty:
      value["empty"] = .object(["q": .string(kind.query.text)])
    case .end(.noMoreResults(let count)):
      value["end"] = .object(["capReached": false, "totalText": .string(Formatting.grouped(count))])
    case .end(.capReached(let cap)):
      value["end"] = .object(["capReached": true, "totalText": .string(Formatting.grouped(cap))])
    case .error(let error):
      let retry: MustacheValue = .object([
        "fragment": .string(kind.fragmentURL(after: batch.cursor)),
        "href": .string(kind.pageURL(page: batch.cursor / batchSize + 1)),
      ])
      if let until = error.retryAfter {
        value["rateLimited"] = .object([
          "resetText": .string(Formatting.resetText(until, now: now)),
          "resetISO": .string(Formatting.iso(until)),
          "retryIn": .int(max(1, until - now)), "retry": retry, "first": .bool(firstOnPage),
        ])
      } else {
        value["error"] = .object([
          "message": .string(error.message), "retryable": .bool(error.retryable), "retry": retry,
          "first": .bool(firstOnPage),
        ])
      }
    }
    return .object(value)
  }
}
