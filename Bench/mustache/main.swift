// Compiled together with Sources/Mustache by script/bench-mustache (same module, -O -wmo).
#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

let card = """
  <article class="card" id="repo-{{id}}">
    <img class="avatar" src="/avatars/{{owner.id}}?s=40" alt="" width="40" height="40" loading="lazy">
    <h2><a href="{{url}}">{{owner.login}}/{{name}}</a>{{#archived}} <span class="tag">archived</span>{{/archived}}</h2>
    {{#description}}<p class="desc">{{description}}</p>{{/description}}{{^description}}<p class="desc none">No description</p>{{/description}}
    <ul class="meta">{{#language}}<li class="lang">{{language}}</li>{{/language}}<li class="stars">★ {{stars}}</li></ul>
    {{#hasTopics}}<ul class="topics">{{#topics}}<li>{{.}}</li>{{/topics}}</ul>{{/hasTopics}}
  </article>

  """
let page = "{{#repos}}{{>card}}{{/repos}}"

func repository(_ i: Int) -> MustacheValue {
  [
    "id": .int(100_000 + i),
    "name": .string("repo-\(i) <beta>"),
    "url": .string("https://github.com/owner\(i)/repo-\(i)?tab=\"readme\"&x='1'"),
    "owner": ["login": .string("owner-\(i) & co"), "id": .int(5000 + i)],
    "description": i % 5 == 4
      ? .null
      : .string("A <fast> & \"friendly\" library for 'things' number \(i), with more words to fill a line."),
    "language": i % 3 == 0 ? .null : "Swift",
    "stars": .int(1234 * i + 7),
    "archived": .bool(i % 7 == 0),
    "hasTopics": .bool(i % 4 != 3),
    "topics": .list(["server", "html & css", "<templates>", "topic-\(i)"].map { .string($0) }),
  ]
}

let data: MustacheValue = ["repos": .list((0..<20).map(repository))]

/// CPU time of this thread: steadier than wall time on a machine shared with other work.
func now() -> Double {
  var ts = timespec()
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts)
  return Double(ts.tv_sec) + Double(ts.tv_nsec) / 1e9
}

do {
  let library = try TemplateLibrary(templates: ["card": card, "page": page])
  var buffer: [UInt8] = []
  try library.render("page", data, into: &buffer)
  let bytesPerRender = buffer.count
  let iterations = 5_000
  var samples: [Double] = []
  for _ in 0..<9 {
    let start = now()
    for _ in 0..<iterations {
      buffer.removeAll(keepingCapacity: true)
      try library.render("page", data, into: &buffer)
    }
    samples.append((now() - start) / Double(iterations))
  }
  samples.sort()
  let median = samples[samples.count / 2]
  print("mustache bench: 20 cards, \(bytesPerRender) bytes per render (\(bytesPerRender / 20) per card)")
  print(
    "runs (CPU µs/render):",
    samples.map { String(Int(($0 * 1e7).rounded()) / 10) + "." + String(Int(($0 * 1e7).rounded()) % 10) }
      .joined(separator: " "))
  print(
    "median: \(Int((median * 1e6 * 10).rounded()) / 10).\(Int((median * 1e6 * 10).rounded()) % 10) µs CPU per render, \(Int((1 / median).rounded())) renders/s per core"
  )
  if CommandLine.arguments.contains("--print") {
    print(String(decoding: buffer, as: UTF8.self))
  }
} catch {
  print("bench failed: \(error)")
  exit(1)
}
