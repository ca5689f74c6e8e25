/// The 0-based index of the card in a batch that carries the prefetch trigger.
///
/// The trigger sits `margin` cards before the batch's last card, so the next batch is requested while
/// the reader still has `margin` cards to go. Returns nil for an empty batch; a margin larger than the
/// batch puts the trigger on the first card.
public func prefetchIndex(batchCount: Int, margin: Int) -> Int? {
  guard batchCount > 0 else { return nil }
  return max(0, batchCount - 1 - max(0, margin))
}
