import Foundation
import TestSupport
import Testing

extension BrowserSuites {
  /// Every focusable element's keyboard focus ring, in light and dark: 3:1 contrast against the colours
  /// next to it, and nothing of it clipped by an ancestor that clips its content.
  @Suite("Focus rings", .timeLimit(.minutes(10)))
  struct FocusRingBrowserTests {
    /// Focuses each focusable element in turn (links, buttons, the search field and selects, feed
    /// articles) and returns what is wrong with its ring, plus how many of each kind were checked.
    /// Adjacent colours: the backdrop behind the ring (ancestors' backgrounds composited over white or
    /// the page's canvas), and the element's own background when the ring touches or overlaps it
    /// (outline-offset ≤ 0). Clipping: the ring's outer box must lie inside every ancestor that clips
    /// (overflow other than visible, paint containment, content-visibility) and inside the viewport.
    static let check = """
      const parse = (text) => {
        const m = text.match(/rgba?\\(([^)]+)\\)/);
        if (!m) return null;
        const p = m[1].split(/[ ,\\/]+/).filter(Boolean).map(Number);
        return { r: p[0], g: p[1], b: p[2], a: p.length > 3 ? p[3] : 1 };
      };
      const over = (top, bottom) => ({
        r: top.r * top.a + bottom.r * (1 - top.a), g: top.g * top.a + bottom.g * (1 - top.a),
        b: top.b * top.a + bottom.b * (1 - top.a), a: 1 });
      const luminance = (c) => {
        const f = (v) => { v /= 255; return v <= 0.04045 ? v / 12.92 : Math.pow((v + 0.055) / 1.055, 2.4); };
        return 0.2126 * f(c.r) + 0.7152 * f(c.g) + 0.0722 * f(c.b);
      };
      const contrast = (a, b) => {
        const x = luminance(a), y = luminance(b);
        return (Math.max(x, y) + 0.05) / (Math.min(x, y) + 0.05);
      };
      const dark = matchMedia('(prefers-color-scheme: dark)').matches;
      const canvas = dark ? { r: 0, g: 0, b: 0, a: 1 } : { r: 255, g: 255, b: 255, a: 1 };
      // The colour behind `el` from its ancestors' backgrounds (starting at el itself when `self`).
      const backdrop = (el, self) => {
        const layers = [];
        for (let n = self ? el : el.parentElement; n; n = n.parentElement) {
          const c = parse(getComputedStyle(n).backgroundColor);
          if (c && c.a > 0) { layers.push(c); if (c.a >= 1) break; }
        }
        return layers.reverse().reduce((below, top) => over(top, below), canvas);
      };
      const clips = (n) => {
        const s = getComputedStyle(n);
        return s.overflowX !== 'visible' || s.overflowY !== 'visible' || /paint|strict|content/.test(s.contain) ||
          s.contentVisibility === 'auto' || s.contentVisibility === 'hidden';
      };
      const name = (el) => el.tagName.toLowerCase() + (el.id ? '#' + el.id : '') +
        (el.className && typeof el.className === 'string' ? '.' + el.className.trim().split(/\\s+/).join('.') : '') +
        ' "' + (el.textContent || el.value || '').trim().slice(0, 30) + '"';
      const kinds = { link: 0, button: 0, field: 0, article: 0 };
      const problems = [];
      const focusable = Array.from(document.querySelectorAll(
        'a[href], button, input:not([type=hidden]), select, textarea, [tabindex]:not([tabindex="-1"])'))
        .filter((el) => !el.disabled && !el.closest('template, noscript'));
      for (const el of focusable) {
        el.scrollIntoView({ block: 'center', inline: 'nearest' });
        el.focus({ preventScroll: true, focusVisible: true });
        if (document.activeElement !== el) continue;   // not focusable here (hidden until needed)
        if (el.getClientRects().length === 0) continue;
        const kind = el.matches('a') ? 'link' : el.matches('button') ? 'button' :
          el.matches('article') ? 'article' : 'field';
        kinds[kind] += 1;
        const s = getComputedStyle(el);
        const width = parseFloat(s.outlineWidth) || 0;
        const offset = parseFloat(s.outlineOffset) || 0;
        if (!el.matches(':focus-visible') || s.outlineStyle === 'none' || width < 2) {
          problems.push(name(el) + ': no visible focus ring (outline ' + s.outlineStyle + ' ' + s.outlineWidth + ')');
          continue;
        }
        const ring = parse(s.outlineColor);
        const adjacent = [['backdrop', backdrop(el, false)]];
        const own = parse(s.backgroundColor);
        if (offset <= 0 && own && own.a > 0) adjacent.push(['own background', backdrop(el, true)]);
        for (const [label, colour] of adjacent) {
          const ratio = contrast(over(ring, colour), colour);
          if (ratio < 3) {
            problems.push(name(el) + ': ring ' + s.outlineColor + ' has ' + ratio.toFixed(2) + ':1 against its ' + label +
              (dark ? ' (dark)' : ' (light)'));
          }
        }
        const box = el.getBoundingClientRect();
        const grow = width + offset;
        const outer = { left: box.left - grow, top: box.top - grow, right: box.right + grow, bottom: box.bottom + grow };
        const inside = (r) => outer.left >= r.left - 0.5 && outer.top >= r.top - 0.5 &&
          outer.right <= r.right + 0.5 && outer.bottom <= r.bottom + 0.5;
        if (!inside({ left: 0, top: 0, right: innerWidth, bottom: innerHeight })) {
          problems.push(name(el) + ': ring outside the viewport');
        }
        for (let n = el.parentElement; n && n !== document.documentElement; n = n.parentElement) {
          if (!clips(n)) continue;
          const r = n.getBoundingClientRect();
          const padding = { left: r.left + n.clientLeft, top: r.top + n.clientTop,
            right: r.left + n.clientLeft + n.clientWidth, bottom: r.top + n.clientTop + n.clientHeight };
          if (!inside(padding)) {
            problems.push(name(el) + ': ring clipped by ' + name(n).slice(0, 60));
            break;
          }
        }
      }
      document.activeElement.blur();
      return { kinds, problems };
      """

    /// Runs `check` on the page `path` in light or dark and expects no problem and every kind present.
    private func expectRings(path: String, dark: Bool, kinds: [String], waitFor: String) async throws {
      try await Reader.withApp { p in
        try await withBrowserSession(options: Reader.options()) { session in
          try await Reader.reduceMotion(session, dark: dark)
          try await session.navigate(to: p.baseURL + path)
          try await session.waitForScript(waitFor, description: "the page", timeout: .seconds(15))
          let result = try await session.executeScript(Self.check)
          let problems = result["problems"]?.array?.compactMap(\.string) ?? ["no result"]
          expectTrue(
            problems.isEmpty, "\(dark ? "dark" : "light") \(path): \(problems.joined(separator: "; "))")
          for kind in kinds {
            expectTrue((result["kinds"]?[kind]?.int ?? 0) > 0, "no \(kind) was checked on \(path)")
          }
        }
      }
    }

    @Test(arguments: [false, true])
    func resultsPageRingsContrastAndAreNotClipped(dark: Bool) async throws {
      try await expectRings(
        path: "/?" + Reader.query, dark: dark, kinds: ["link", "button", "field", "article"],
        waitFor: "\(Reader.cardCount) >= \(Reader.batchSize)")
    }

    @Test(arguments: [false, true])
    func landingPageRingsContrastAndAreNotClipped(dark: Bool) async throws {
      try await expectRings(
        path: "/", dark: dark, kinds: ["link", "button", "field"],
        waitFor: "document.querySelector('.landing')")
    }
  }
}
