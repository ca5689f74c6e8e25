/// JavaScript the product scenarios evaluate in the page, kept in one place next to the markup hooks
/// they rely on: `[role=feed]`, `article[data-repo-id][aria-posinset]`, `img`, `[data-stargazers]`,
/// `a[rel=next]` and an error row with a Retry `button`.
enum ProductPageScripts {
  /// [[id, posinset], ...] for every card in document order.
  static let cards = """
    return Array.from(document.querySelectorAll('[role=feed] article[data-repo-id]'))
      .map((a) => [a.dataset.repoId, Number(a.getAttribute('aria-posinset'))]);
    """

  /// The number of cards in the document, as an expression.
  static let cardCount = "document.querySelectorAll('[role=feed] article[data-repo-id]').length"

  /// The number of rows in the list (the document holds only the cards near the reader).
  static let rowCount = Reader.rowCount

  /// Scrolls to the very bottom of the document.
  static let scrollToBottom = "window.scrollTo(0, document.documentElement.scrollHeight);"

  /// For each card overlapping the viewport: whether its avatar has loaded.
  static let visibleAvatarsLoaded = """
    return Array.from(document.querySelectorAll('[role=feed] article[data-repo-id]'))
      .filter((a) => { const r = a.getBoundingClientRect(); return r.bottom > 0 && r.top < innerHeight; })
      .map((a) => { const img = a.querySelector('img'); return !!img && img.complete && img.naturalWidth > 0; });
    """

  /// Star-history regions: filled flags for visible cards, and for cards more than 1.5 viewports
  /// below the viewport's bottom edge.
  static let stargazerRegions = """
    const cards = Array.from(document.querySelectorAll('[role=feed] article[data-repo-id]'));
    const filled = (a) => { const s = a.querySelector('[data-stargazers]'); return !!s && s.innerHTML.trim() !== ''; };
    const top = (a) => a.getBoundingClientRect().top;
    return {
      visible: cards.filter((a) => { const r = a.getBoundingClientRect(); return r.bottom > 0 && r.top < innerHeight; })
        .map(filled),
      far: cards.filter((a) => top(a) > innerHeight * 2.5).map(filled),
    };
    """

  /// The error row's Retry button, or null (the row may sit inside the feed or right after it).
  static let retryButton = """
    return Array.from(document.querySelectorAll('button'))
      .find((b) => /^\\s*retry/i.test(b.textContent)) || null;
    """
}
