import Foundation
import TestSupport
import Testing

extension BrowserSuites {
  /// Dense cards on a desktop and a phone, the header on a phone, the DOM size per card, the feed's
  /// Ctrl+Home / Ctrl+End keys and the one notice shown when the core rate limit runs out.
  @Suite("Cards, header and notices", .timeLimit(.minutes(10)))
  struct CardLayoutBrowserTests {
    /// Whole cards below the sticky header once card #4 sits just under it; and every overflow in those
    /// cards: text that is cut without an ellipsis, or a child that sticks out of its card.
    static let density = """
      const header = document.querySelector('.site-header');
      const edge = header && getComputedStyle(header).position === 'sticky' ? header.getBoundingClientRect().bottom : 0;
      const cards = Array.from(document.querySelectorAll('[role=feed] article[data-repo-id]'));
      const whole = cards.filter((a) => { const r = a.getBoundingClientRect(); return r.top >= edge - 0.5 && r.bottom <= innerHeight + 0.5; });
      const problems = [];
      for (const card of whole) {
        const box = card.getBoundingClientRect();
        for (const el of card.querySelectorAll('*')) {
          if (el.closest('svg') && el.tagName.toLowerCase() !== 'svg') continue;
          const r = el.getBoundingClientRect();
          if (r.width === 0 && r.height === 0) continue;
          // Inline text past a clipping ancestor (a line cut with an ellipsis) is not shown: not outside.
          let clipper = el.parentElement;
          while (clipper && clipper !== card && getComputedStyle(clipper).overflowX === 'visible') clipper = clipper.parentElement;
          const clipped = clipper && clipper !== card;
          if (!clipped && (r.left < box.left - 0.5 || r.right > box.right + 0.5 || r.bottom > box.bottom + 0.5)) {
            problems.push('outside its card: #' + card.getAttribute('aria-posinset') + ' ' + el.outerHTML.slice(0, 80));
          }
          const style = getComputedStyle(el);
          const clamped = style.webkitLineClamp && style.webkitLineClamp !== 'none';
          const ellipsis = style.textOverflow === 'ellipsis';
          if (el.scrollWidth > el.clientWidth + 1 && !ellipsis && !clamped && style.overflow !== 'visible') {
            problems.push('cut sideways without an ellipsis: #' + card.getAttribute('aria-posinset') + ' ' + el.outerHTML.slice(0, 80));
          }
          if (el.scrollHeight > el.clientHeight + 1 && !clamped && style.overflow !== 'visible' && el.children.length === 0) {
            problems.push('cut below without an ellipsis: #' + card.getAttribute('aria-posinset') + ' ' + el.outerHTML.slice(0, 80));
          }
        }
      }
      return {
        whole: whole.length,
        problems: problems,
        pageOverflow: document.documentElement.scrollWidth - innerWidth,
        header: header ? header.getBoundingClientRect().height : 0,
      };
      """

    /// Opens the list, waits for the details of the cards on screen, and measures with card #4 on top.
    private func measure(_ session: BrowserSession, _ p: AppProcesses) async throws -> WebDriverJSON {
      try await Reader.reduceMotion(session)
      try await Reader.openSearch(session, p)
      try await session.executeAsyncScript(Reader.scrollCardToTop, args: [4, 0])
      try await session.waitForScript(
        """
        Array.from(document.querySelectorAll('[role=feed] article')).filter((a) => {
          const r = a.getBoundingClientRect(); return r.bottom > 0 && r.top < innerHeight;
        }).every((a) => a.querySelector('[data-stargazers] [data-state]'))
        """, description: "the histories of the cards on screen", timeout: .seconds(15))
      return try await session.executeScript(Self.density)
    }

    @Test func atLeastFiveWholeCardsFitA1280By900WindowWithoutOverflow() async throws {
      try await Reader.withApp { p in
        try await withBrowserSession(options: Reader.options(width: 1280, height: 900)) { session in
          let result = try await measure(session, p)
          try await Reader.screenshot(session, "desktop-results")
          expectTrue((result["whole"]?.int ?? 0) >= 5, "whole cards: \(result["whole"]?.int ?? 0)")
          expectTrue(result["problems"]?.array?.isEmpty ?? false, "\(result["problems"]?.description ?? "")")
          expectTrue((result["pageOverflow"]?.double ?? 1) <= 0)
        }
      }
    }

    @Test func atLeastTwoWholeCardsAndAShortHeaderOnAPhone() async throws {
      try await Reader.withApp { p in
        try await withBrowserSession(options: Reader.options(width: 390, height: 844)) { session in
          try await Reader.phone(session)
          let result = try await measure(session, p)
          try await expectEqual(session.executeScript("return innerWidth;").int, 390)
          try await Reader.screenshot(session, "mobile-results")
          expectTrue((result["whole"]?.int ?? 0) >= 2, "whole cards: \(result["whole"]?.int ?? 0)")
          expectTrue(result["problems"]?.array?.isEmpty ?? false, "\(result["problems"]?.description ?? "")")
          expectTrue((result["pageOverflow"]?.double ?? 1) <= 0)
          try await session.executeScript("window.scrollTo(0, 0);")
          let header = try await session.executeScript(
            """
            const h = document.querySelector('.site-header').getBoundingClientRect();
            const q = document.getElementById('q').getBoundingClientRect();
            const go = document.querySelector('.search-go').getBoundingClientRect();
            return { height: h.height, sameRow: Math.abs(q.top - go.top) < 2 && go.right <= innerWidth, goWidth: go.width };
            """)
          expectTrue(
            (header["height"]?.double ?? 999) <= 120, "header height \(header["height"]?.double ?? 0)")
          expectEqual(header["sameRow"]?.bool, true, "the Search button sits beside the query field")
          try await Reader.screenshot(session, "mobile-top")
        }
      }
    }

    @Test func aThousandRowsStayUnderFifteenThousandElements() async throws {
      try await Reader.withApp { p in
        try await withBrowserSession(options: Reader.options()) { session in
          try await Reader.openSearch(session, p)
          let perCard = try await session.executeScript(
            "const a = Array.from(document.querySelectorAll('[role=feed] article')).reverse().find((c) => !c.querySelector('[data-stargazers]').firstChild && !c.querySelector('.avatar[data-state]')); return a ? a.getElementsByTagName('*').length + 1 : 0;"
          )
          // 11 elements before the details (the avatar image replaces its noscript, the history adds 3),
          // so at most 14 after: 1,000 rows stay under 15,000 elements.
          expectTrue(
            (perCard.int ?? 99) > 0 && (perCard.int ?? 99) <= 11,
            "elements in a fresh card: \(perCard.int ?? 0)")
          try await session.waitForScript(
            "document.querySelector('[role=feed] article [data-stargazers] [data-state]')",
            timeout: .seconds(10))
          let filled = try await session.executeScript(
            """
            const a = Array.from(document.querySelectorAll('[role=feed] article'))
              .find((c) => c.querySelector('[data-stargazers] [data-state="loaded"]') && c.querySelector('.avatar img'));
            return a ? a.getElementsByTagName('*').length + 1 : 0;
            """)
          expectTrue(
            (filled.int ?? 99) > 0 && (filled.int ?? 99) <= 14,
            "elements in a card with details: \(filled.int ?? 0)")
        }
      }
    }

    @Test func failedAvatarsShowTheInitials() async throws {
      try await Reader.withApp { p in
        try await withBrowserSession(options: Reader.options()) { session in
          try await Reader.openSearch(session, p)
          // The next batches come from the cached first search page; every avatar request now fails.
          try await p.double("POST", "/_double/faults?rate5xx=1")
          try await Reader.scroll(session, toRows: 40)
          try await session.executeAsyncScript(Reader.scrollCardToTop, args: [30, 0])
          let shown = try await session.waitForScript(
            """
            (() => {
              const cards = Array.from(document.querySelectorAll('[role=feed] article')).filter((a) => {
                const n = Number(a.getAttribute('aria-posinset')); return n >= 30 && n <= 33;
              });
              return cards.length === 4 && cards.every((a) => a.querySelector('.avatar-failed')) &&
                cards.map((a) => { const v = a.querySelector('.avatar');
                  const img = v.querySelector('img');
                  return v.textContent.trim() + '|' + (img ? getComputedStyle(img).display : 'none'); });
            })()
            """, description: "failed avatars on cards 30–33", timeout: .seconds(15))
          let avatars = shown.array?.compactMap(\.string) ?? []
          expectEqual(avatars.count, 4)
          expectTrue(
            avatars.allSatisfy { $0.hasSuffix("|none") && !$0.hasPrefix("|") },
            "initials, no image: \(avatars)")
          try await p.double("POST", "/_double/faults?rate5xx=0")
        }
      }
    }

    @Test func controlEndAndControlHomeLeaveTheFeed() async throws {
      try await Reader.withApp { p in
        try await withBrowserSession(options: Reader.options()) { session in
          try await Reader.openSearch(session, p)
          let moves = [
            (WebDriverKey.end, "FOLLOWING", "Ctrl+End moves focus after the feed"),
            (WebDriverKey.home, "PRECEDING", "Ctrl+Home moves focus before the feed"),
          ]
          for (key, position, expectation) in moves {
            try await session.executeScript(
              "document.querySelector('[role=feed] article[aria-posinset=\"3\"]').focus();")
            try await session.pressChord([WebDriverKey.control, key])
            let moved = try await session.executeScript(
              """
              const f = document.getElementById('feed'); const a = document.activeElement;
              return !f.contains(a) && !!(f.compareDocumentPosition(a) & Node.DOCUMENT_POSITION_\(position));
              """)
            expectEqual(moved.bool, true, "\(expectation)")
          }
        }
      }
    }

    @Test func anExhaustedCoreLimitShowsOneNoticeAndPausesHistories() async throws {
      try await Reader.withApp(double: ["--core-limit", "6"]) { p in
        try await withBrowserSession(options: Reader.options()) { session in
          try await Reader.reduceMotion(session)
          try await Reader.openSearch(session, p)
          try await session.waitForScript(
            "document.querySelector('.core-notice')", description: "the rate-limit notice",
            timeout: .seconds(20))
          // The histories already on their way come back refused too; the notice must still be one
          // once the last of them has come (details.js marks a request in flight `data-state="loading"`).
          try await session.waitForScript(
            "!document.querySelector('#results [data-state=\"loading\"]')",
            description: "the histories on their way came back", timeout: .seconds(20))
          let notice = try await session.executeScript(
            """
            const n = document.querySelectorAll('.core-notice');
            const t = n[0] && n[0].querySelector('time');
            return { count: n.length, text: n[0] ? n[0].textContent : '', time: t ? t.textContent : '',
                     datetime: t ? t.getAttribute('datetime') : '' };
            """)
          expectEqual(notice["count"]?.int, 1, "exactly one notice")
          let text = notice["text"]?.string ?? ""
          expectTrue(text.contains("GITHUB_TOKEN"), "says how to raise the limit: \(text)")
          expectTrue(text.contains("60 requests an hour"), "says what happened: \(text)")
          let datetime = notice["datetime"]?.string ?? ""
          expectTrue(datetime.hasSuffix("Z"), "the reset time is known: \(datetime)")
          let time = notice["time"]?.string ?? ""
          expectTrue(
            time.contains(":") && !time.contains("UTC") && !time.contains("T"), "local reset time: \(time)")
          // Each card's state is a few words, never the explanation again.
          let notes =
            try await session.executeScript(
              """
              return Array.from(document.querySelectorAll('[role=feed] article [data-stargazers]'))
              .filter((r) => !r.querySelector('[data-state="loaded"]'))
              .map((r) => r.textContent.trim().length + (r.dataset.state === 'paused' ? 100 : 0));
              """
            ).array?.compactMap(\.int) ?? []
          expectTrue(notes.allSatisfy { $0 < 40 || ($0 >= 100 && $0 < 140) }, "compact card states: \(notes)")
          try await Reader.screenshot(session, "core-limit-notice")
          // Paused: scrolling on sends no more history requests until the reset.
          let before = try await Reader.requests(route: "stars", p)
          try await Reader.scroll(session, toRows: 40)
          // Real time: no request may come meanwhile, and an absence has no event.
          try await Task.sleep(for: .seconds(1.5))
          try await expectEqual(
            Reader.requests(route: "stars", p), before, "no history requests while paused")
          try await expectEqual(
            session.executeScript("return document.querySelectorAll('.core-notice').length;").int, 1)
        }
      }
    }
  }
}
