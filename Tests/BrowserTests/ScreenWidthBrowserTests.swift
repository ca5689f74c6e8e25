import Foundation
import TestSupport
import Testing

extension BrowserSuites {
  /// Phone widths from 320 to 430 px in every engine: nothing overflows sideways, no control's text is
  /// cut, every target is at least 24 px (or spaced as WCAG 2.5.8 allows), and the sort and order menus
  /// show their longest choice in full. Also the light, dark and phone screenshots of each engine (`Reader.screenshotFolder()`).
  @Suite("Every screen in every engine", .engineFixture, .timeLimit(.minutes(10)))
  struct ScreenWidthBrowserTests {
    /// Everything that does not fit at the current width, as readable problems.
    static let fit = """
      const W = document.documentElement.clientWidth;
      const problems = [];
      if (document.documentElement.scrollWidth > innerWidth) {
        problems.push('the page scrolls sideways: ' + document.documentElement.scrollWidth + ' > ' + innerWidth);
      }
      const visible = (el) => el.getClientRects().length > 0 && getComputedStyle(el).visibility !== 'hidden' && !el.closest('.visually-hidden');
      const name = (el) => el.outerHTML.slice(0, 70);
      // Clipped by an ancestor that itself ends inside the page (text cut with an ellipsis, for example).
      const clipped = (el) => {
        for (let up = el.parentElement; up && up !== document.body; up = up.parentElement) {
          if (getComputedStyle(up).overflowX !== 'visible' && up.getBoundingClientRect().right <= W + 0.5) return true;
        }
        return false;
      };
      for (const el of document.querySelectorAll('body *')) {
        if (!visible(el) || el.closest('svg')) continue;
        const r = el.getBoundingClientRect();
        if (r.width > 0 && r.right > W + 0.5 && !clipped(el)) problems.push('past the right edge (' + Math.round(r.right) + ' > ' + W + '): ' + name(el));
      }
      // Targets the reader can reach here: on screen and not under the sticky header.
      const reachable = (el) => {
        const r = el.getBoundingClientRect();
        const x = r.left + r.width / 2, y = r.top + r.height / 2;
        if (y < 0 || y >= innerHeight || x < 0 || x >= innerWidth) return false;
        const hit = document.elementFromPoint(x, y);
        return !!hit && (el.contains(hit) || hit.contains(el));
      };
      const targets = Array.from(document.querySelectorAll('a[href], button, input, select, summary'))
        .filter((el) => visible(el) && !el.closest('.skip') && reachable(el));
      const boxes = targets.map((el) => el.getBoundingClientRect());
      targets.forEach((el, i) => {
        const r = boxes[i];
        const style = getComputedStyle(el);
        // Text cut inside a control, unless it ends in an ellipsis (inputs scroll their own text).
        if (el.tagName !== 'INPUT' && el.tagName !== 'SELECT' && el.scrollWidth > el.clientWidth + 1 && style.textOverflow !== 'ellipsis' && style.display !== 'inline') {
          problems.push('text cut: ' + name(el));
        }
        // Menus: as wide as they would be if nothing constrained them, i.e. the longest choice fits.
        if (el.tagName === 'SELECT') {
          const probe = el.cloneNode(true);
          probe.removeAttribute('id');
          probe.style.position = 'absolute'; probe.style.visibility = 'hidden'; probe.style.width = 'auto';
          probe.style.minWidth = '0'; probe.style.maxWidth = 'none'; probe.style.flex = 'none'; probe.style.gridColumn = 'auto';
          el.parentNode.appendChild(probe);
          const natural = probe.getBoundingClientRect().width;
          probe.remove();
          if (natural > r.width + 1) problems.push('menu cut: ' + el.name + ' ' + Math.round(r.width) + ' < ' + Math.round(natural));
        }
        // WCAG 2.5.8: 24 by 24, or a 24 px square centred on it touches no other target. Links inside
        // running text are exempt.
        const inline = style.display === 'inline' && el.parentElement && /^(P|LI|SPAN)$/.test(el.parentElement.tagName);
        if ((r.width < 24 || r.height < 24) && !inline) {
          const cx = r.left + r.width / 2, cy = r.top + r.height / 2;
          const crowded = boxes.some((b, j) => j !== i && !targets[j].contains(el) && !el.contains(targets[j]) &&
            b.left < cx + 12 && b.right > cx - 12 && b.top < cy + 12 && b.bottom > cy - 12);
          if (crowded) problems.push('small target (' + Math.round(r.width) + '×' + Math.round(r.height) + '): ' + name(el));
        }
      });
      return { width: innerWidth, problems: Array.from(new Set(problems)).slice(0, 20) };
      """

    /// The cards on screen have their details, so that the page is measured as the reader sees it.
    static let detailsOnScreen = """
      Array.from(document.querySelectorAll('[role=feed] article')).filter((a) => {
        const r = a.getBoundingClientRect(); return r.bottom > 0 && r.top < innerHeight;
      }).every((a) => a.querySelector('[data-stargazers] [data-state]'))
      """

    /// The phone widths, narrowest first.
    static let phoneWidths = [320, 360, 390, 430]

    /// One session per engine walks the widths (Chromium and Firefox set each viewport in turn, and
    /// open the search afresh at it): a session per width cost a browser start each, 5 CPU-s in Firefox.
    @Test(arguments: BrowserEngine.allCases)
    func nothingIsCutOrOverflowsAtPhoneWidths(_ engine: BrowserEngine) async throws {
      let pool = try EngineFixture.require()
      let widths = Self.phoneWidths.filter { Reader.phoneOptions(engine, width: $0) != nil }
      let unmeasured = Self.phoneWidths.filter { !widths.contains($0) }
      if !unmeasured.isEmpty {
        print(
          "not measured: \(engine) at \(unmeasured.map(String.init).joined(separator: ", ")) px: MiniBrowser's narrowest "
            + "window is \(Reader.webKitNarrowest) px and it has no viewport emulation (the CSP's frame-ancestors "
            + "'none' rules out a narrower frame); the 430 px case stands for them")
      }
      // Every width gets the same window: 500 px in Chromium and Firefox, which emulate the narrower
      // viewports in it, and MiniBrowser's narrowest.
      let first = try #require(widths.first.flatMap { Reader.phoneOptions(engine, width: $0) })
      var reduced = first.options
      reduced.reducedMotion = true
      try await withBrowserSession(options: reduced) { session in
        for width in widths {
          if first.emulate { try await Reader.phone(session, width: width) }
          try await Reader.openSearch(session, pool.processes)
          try await session.waitForScript(Self.detailsOnScreen, timeout: .seconds(20))
          let shown = try await session.executeScript("return innerWidth;").int ?? 0
          if engine == .webkit {
            // MiniBrowser's narrowest window: the phone layout, a little wider than asked.
            expectTrue(shown >= width && shown <= Reader.webKitNarrowest + 20, "\(engine): \(shown) px wide")
          } else {
            expectEqual(shown, width, "\(engine): the viewport is \(shown) px, not \(width)")
          }
          for scrolled in [false, true] {
            if scrolled { try await session.executeAsyncScript(Reader.scrollCardToTop, args: [3, 0]) }
            let result = try await session.executeScript(Self.fit)
            let problems = result["problems"]?.array?.compactMap(\.string) ?? ["no result"]
            expectTrue(problems.isEmpty, "\(engine) at \(shown) px: \(problems)")
          }
          if width == 390 || (engine == .webkit && width == 430) {
            try await session.executeScript("window.scrollTo(0, 0);")
            try await Reader.screenshot(session, "\(engine)-phone")
          }
        }
      }
    }

    @Test(arguments: BrowserEngine.allCases, [false, true])
    func lightAndDarkScreenshots(_ engine: BrowserEngine, _ dark: Bool) async throws {
      let pool = try EngineFixture.require()
      var options = BrowserSessionOptions(engine: engine)
      options.dark = dark
      options.reducedMotion = true
      try await withBrowserSession(options: options) { session in
        try await Reader.openSearch(session, pool.processes)
        try await session.executeAsyncScript(Reader.scrollCardToTop, args: [2, 0])
        try await session.waitForScript(Self.detailsOnScreen, timeout: .seconds(20))
        try await session.waitForScript(
          "Array.from(document.querySelectorAll('[role=feed] article .avatar[data-state]')).every((a) => a.dataset.state !== 'loading')",
          description: "\(engine): avatars settled", timeout: .seconds(20))
        let scheme = try await session.executeScript(
          "return matchMedia('(prefers-color-scheme: dark)').matches;")
        expectEqual(scheme.bool, dark, "\(engine): prefers-color-scheme dark is \(dark)")
        try await Reader.screenshot(session, "\(engine)-\(dark ? "dark" : "light")")
        let result = try await session.executeScript(Self.fit)
        let problems = result["problems"]?.array?.compactMap(\.string) ?? ["no result"]
        expectTrue(problems.isEmpty, "\(engine) on a desktop: \(problems)")
      }
    }
  }
}
