import GitHub
import Mustache
import Paging

/// What the cards of one batch share, read in place by the cards (no repository is copied to render).
final class CardBatch: Sendable {
  let items: [PositionedItem<Repository>]
  /// The list size capped at 1000 (`aria-setsize`).
  let setsize: Int
  /// The index of the card that carries the prefetch trigger.
  let trigger: Int?
  /// The largest star count in the list, for the bars' scale.
  let largestStars: Int
  /// Unix seconds, for "updated 3 days ago".
  let now: Int

  init(items: [PositionedItem<Repository>], setsize: Int, trigger: Int?, largestStars: Int, now: Int) {
    self.items = items
    self.setsize = setsize
    self.trigger = trigger
    self.largestStars = largestStars
    self.now = now
  }

  /// One value per card.
  var cards: [MustacheValue] { items.indices.map { .dynamic(CardView(batch: self, index: $0)) } }
}
