import Foundation
import TestSupport

/// Tiny static pages that exercise what the WebDriver client must be able to observe.
enum FixturePages {
  /// Writes the pages into a new temp folder and returns its path.
  static func write() throws -> String { try folder(files) }

  /// Writes `files` (name: text) into a new folder in this process's scratch folder (removed at
  /// exit) and returns its path.
  static func folder(_ files: [String: String]) throws -> String {
    let root = try ScratchFolder.make("browser-fixture")
    for (name, text) in files {
      try Data(text.utf8).write(to: URL(fileURLWithPath: root + "/" + name))
    }
    return root
  }

  static let files: [String: String] = [
    "index.html": """
    <!doctype html>
    <html lang="en"><head><meta charset="utf-8"><title>Fixture index</title>
    <style>body{margin:0;font:16px sans-serif} #spacer{height:4000px} .item{height:40px}</style>
    </head><body>
    <h1 id="title">WebDriver fixture</h1>
    <ul id="items">
      <li class="item" data-id="1">one</li><li class="item" data-id="2">two</li>
      <li class="item" data-id="3">three</li>
    </ul>
    <button id="button" type="button">Click me</button>
    <input id="name" type="text" value="">
    <a id="next" rel="next" href="page2.html">next page</a>
    <div id="spacer"></div>
    <div id="sentinel" data-seen="no">sentinel</div>
    <script src="index.js"></script>
    </body></html>
    """,
    "index.js": """
    window.__sentinelCallbacks = 0;
    document.getElementById('button').addEventListener('click', (e) => { e.target.textContent = 'Clicked'; });
    new IntersectionObserver((entries) => {
      for (const entry of entries) {
        if (entry.isIntersecting) {
          window.__sentinelCallbacks += 1;
          entry.target.dataset.seen = 'yes';
        }
      }
    }).observe(document.getElementById('sentinel'));
    """,
    "page2.html": """
    <!doctype html><html><head><meta charset="utf-8"><title>Fixture page 2</title></head>
    <body><h1 id="title">Second page</h1></body></html>
    """,
    "shift.html": """
    <!doctype html><html><head><meta charset="utf-8"><title>Shift</title></head>
    <body><p id="anchor">Content that will be pushed down by a late insertion.</p>
    <p>More content below.</p><script src="shift.js"></script></body></html>
    """,
    "shift.js": """
    setTimeout(() => {
      const block = document.createElement('div');
      block.style.height = '300px';
      block.textContent = 'late block';
      document.body.insertBefore(block, document.body.firstChild);
      const start = performance.now();
      while (performance.now() - start < 150) {}
      document.body.dataset.done = 'yes';
    }, 200);
    """,
    "errors.html": """
    <!doctype html><html><head><meta charset="utf-8"><title>Errors</title></head>
    <body><p>errors</p><script src="errors.js"></script></body></html>
    """,
    "errors.js": """
    console.error('fixture console error');
    setTimeout(() => { document.body.dataset.done = 'yes'; undefinedFunctionForFixture(); }, 10);
    """,
  ]
}
