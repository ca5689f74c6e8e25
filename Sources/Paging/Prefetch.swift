/// The 0-based index of the card in a batch that carries the prefetch trigger.
///
/// The trigger sits `margin` cards before the batch's last card, so the next batch is requested while
/// the reader still has `margin` cards to go. Returns nil for an empty batch; a margin larger than the
/// batch puts the trigger on the first card.
public func prefetchIndex(batchCount: Int, margin: Int) -> Int? {
  guard batchCount > 0 else { return nil }
  return max(0, batchCount - 1 - max(0, margin))
}

/// The upstream page worth fetching ahead of the reader after a batch that ends at `nextCursor`, or nil.
///
/// The batch has needed pages up to `ceil(nextCursor / pageSize)`. When the next `lead` rows reach past
/// them, the page after is returned, so it can be in the cache before a batch needs it. Nothing is
/// returned once the list has ended (`nextCursor` nil) or when that page would start at or past `total`
/// (the upstream total, already capped), so a walk through the whole list reads no page it would not
/// read anyway. Positions count distinct items, so with duplicates upstream the page may already be
/// cached, which costs nothing.
public func readAheadPage(nextCursor: Int?, lead: Int, pageSize: Int, total: Int) -> Int? {
  guard let nextCursor, nextCursor > 0, lead > 0, pageSize > 0 else { return nil }
  let needed = pagesCovering(nextCursor, pageSize: pageSize)
  let (ahead, overflow) = nextCursor.addingReportingOverflow(lead)
  guard !overflow, pagesCovering(ahead, pageSize: pageSize) > needed else { return nil }
  let (start, startOverflow) = needed.multipliedReportingOverflow(by: pageSize)
  guard !startOverflow, start < total else { return nil }
  return needed + 1
}

/// How many pages of `pageSize` hold `rows` rows (division rounding up, without overflow).
private func pagesCovering(_ rows: Int, pageSize: Int) -> Int {
  rows / pageSize + (rows % pageSize == 0 ? 0 : 1)
}
