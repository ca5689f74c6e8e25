import Foundation
import TestSupport
import Testing

/// What an XSS attempt leaves in a page: flag writes, CSP violations, script-bearing attributes and
/// inline scripts, read by scripts installed before the page's own.
struct XSSFindings: Sendable {
  /// Writes to `window.__xss` (or `alert` calls), with the page they happened on.
  let flagWrites: [String]
  /// `securitypolicyviolation` events: directive, blocked URI and sample.
  let cspViolations: [String]
  /// Elements with an `on*` attribute or a `javascript:` URL in href, src, action and the like.
  let scriptAttributes: [String]
  /// Script elements other than this origin's `/static/` files.
  let foreignScripts: [String]
  /// Console entries that mention the Content Security Policy.
  let cspLogs: [String]

  /// True when nothing ran and nothing tried to.
  var isClean: Bool {
    flagWrites.isEmpty && cspViolations.isEmpty && scriptAttributes.isEmpty && foreignScripts.isEmpty
      && cspLogs.isEmpty
  }
}

enum XSSProbe {
  /// Installed with `Page.addScriptToEvaluateOnNewDocument`: traps `window.__xss` writes (every payload
  /// sets it) and `alert`, and records CSP violations into `window.__cspViolations`.
  static let install = """
    (() => {
      if (window.__xssProbe) return;
      const probe = { writes: [] };
      Object.defineProperty(window, '__xssProbe', { value: probe });
      Object.defineProperty(window, '__cspViolations', { value: [] });
      Object.defineProperty(window, '__xss', {
        get() { return probe.writes.length ? 1 : undefined; },
        set(value) { probe.writes.push(String(value) + ' on ' + location.href); },
      });
      window.alert = (message) => probe.writes.push('alert(' + message + ') on ' + location.href);
      addEventListener('securitypolicyviolation', (e) => {
        window.__cspViolations.push(e.violatedDirective + ' blocked ' + e.blockedURI + ' sample ' + e.sample);
      }, true);
    })();
    """

  /// Reads the probe and scans the DOM.
  static let read = """
    const probe = window.__xssProbe;
    const bad = [];
    const urlAttributes = ['href', 'src', 'action', 'formaction', 'xlink:href', 'srcdoc', 'data', 'poster', 'srcset'];
    for (const el of document.querySelectorAll('*')) {
      for (const attribute of el.attributes) {
        const name = attribute.name.toLowerCase();
        const value = attribute.value.replace(/[\\u0000-\\u0020]/g, '').toLowerCase();
        if (name.startsWith('on')) bad.push(el.tagName + ' ' + name + '=' + attribute.value);
        if (urlAttributes.includes(name) && (value.startsWith('javascript:') || value.startsWith('data:text/html')))
          bad.push(el.tagName + ' ' + name + '=' + attribute.value);
      }
    }
    const scripts = Array.from(document.querySelectorAll('script')).filter((s) => {
      if (!s.src) return true;
      const url = new URL(s.src);
      return url.origin !== location.origin || !url.pathname.startsWith('/static/');
    }).map((s) => s.outerHTML.slice(0, 160));
    return {
      installed: !!probe,
      writes: probe ? probe.writes : [],
      csp: window.__cspViolations || [],
      bad: bad,
      scripts: scripts,
    };
    """

  /// The findings of the current page plus the console's CSP messages since the last call.
  static func findings(_ session: BrowserSession) async throws -> XSSFindings {
    let value = try await session.executeScript(read)
    expectEqual(value["installed"]?.bool, true, "the XSS probe must run before the page's scripts")
    let logs = try await session.browserLogs().map(\.message).filter {
      $0.localizedCaseInsensitiveContains("Content Security Policy") || $0.contains("Refused to")
    }
    func strings(_ key: String) -> [String] { value[key]?.array?.compactMap(\.string) ?? [] }
    return XSSFindings(
      flagWrites: strings("writes"), cspViolations: strings("csp"), scriptAttributes: strings("bad"),
      foreignScripts: strings("scripts"), cspLogs: logs)
  }
}
