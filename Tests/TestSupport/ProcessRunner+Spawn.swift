import Foundation

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

extension ProcessRunner {
  private static let stdbufPath = "/usr/bin/stdbuf"
  private static let envPath = "/usr/bin/env"

  /// Finds an executable: paths containing "/" are taken as they are, bare names are searched in PATH.
  static func resolveExecutable(_ executable: String) throws -> String {
    if executable.contains("/") {
      guard access(executable, X_OK) == 0 else {
        throw WebDriverError.process("\(executable) is not an executable file")
      }
      return executable
    }
    let searchPath = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
    for directory in searchPath.split(separator: ":") {
      let candidate = "\(directory)/\(executable)"
      if access(candidate, X_OK) == 0 { return candidate }
    }
    throw WebDriverError.process("\(executable) not found in PATH \(searchPath)")
  }

  /// posix_spawn with stdin from /dev/null, stdout and stderr to files, a new process group and
  /// default signal handling (the test process may ignore SIGPIPE, which children would inherit).
  static func spawn(
    path: String, arguments: [String], environment: [String], workingDirectory: String?,
    lineBuffered: Bool, stdoutPath: String, stderrPath: String
  ) throws -> pid_t {
    var actions = posix_spawn_file_actions_t()
    posix_spawn_file_actions_init(&actions)
    defer { posix_spawn_file_actions_destroy(&actions) }
    posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
    posix_spawn_file_actions_addopen(&actions, 1, stdoutPath, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
    posix_spawn_file_actions_addopen(&actions, 2, stderrPath, O_WRONLY | O_CREAT | O_TRUNC, 0o644)

    var attributes = posix_spawnattr_t()
    posix_spawnattr_init(&attributes)
    defer { posix_spawnattr_destroy(&attributes) }
    var defaults = sigset_t()
    sigemptyset(&defaults)
    for signal in [SIGPIPE, SIGTERM, SIGINT, SIGHUP, SIGCHLD] { sigaddset(&defaults, signal) }
    var mask = sigset_t()
    sigemptyset(&mask)
    posix_spawnattr_setsigdefault(&attributes, &defaults)
    posix_spawnattr_setsigmask(&attributes, &mask)
    posix_spawnattr_setpgroup(&attributes, 0)
    let flags = POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSIGMASK
    posix_spawnattr_setflags(&attributes, Int16(flags))

    // strdup'd copies live until the deferred free below, which runs after posix_spawn has copied them.
    // Glibc's posix_spawn_file_actions_addchdir_np is not visible to Swift; `env -C` chdirs, then execs.
    var command = arguments
    if lineBuffered && access(stdbufPath, X_OK) == 0 { command = [stdbufPath, "-oL", "-eL"] + command }
    if let workingDirectory { command = [envPath, "-C", workingDirectory] + command }
    let executable = command[0]
    let argv = command.map { strdup($0) } + [nil]
    let envp = environment.map { strdup($0) } + [nil]
    defer {
      for pointer in argv { free(pointer) }
      for pointer in envp { free(pointer) }
    }
    var pid: pid_t = 0
    let result = posix_spawn(&pid, executable, &actions, &attributes, argv, envp)
    guard result == 0 else {
      throw WebDriverError.process("posix_spawn \(path) failed: \(String(cString: strerror(result)))")
    }
    return pid
  }

  /// A TCP port on 127.0.0.1 that was free a moment ago (bound to port 0, read back, released).
  public static func freeLoopbackPort() throws -> Int {
    let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    guard descriptor >= 0 else { throw WebDriverError.process("socket: \(String(cString: strerror(errno)))") }
    defer { close(descriptor) }
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_port = 0
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    var length = socklen_t(MemoryLayout<sockaddr_in>.size)
    // The sockaddr_in is a local stack value viewed as sockaddr only for the duration of each call.
    let bound = withUnsafeMutablePointer(to: &address) {
      $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { pointer in
        bind(descriptor, pointer, length) == 0 && getsockname(descriptor, pointer, &length) == 0
      }
    }
    guard bound else { throw WebDriverError.process("bind 127.0.0.1:0: \(String(cString: strerror(errno)))") }
    return Int(UInt16(bigEndian: address.sin_port))
  }

  /// The package root: the nearest folder above `filePath` that holds Package.swift.
  public static func packageRoot(filePath: String = #filePath) throws -> String {
    var url = URL(fileURLWithPath: filePath).deletingLastPathComponent()
    while url.path != "/" {
      if FileManager.default.fileExists(atPath: url.appendingPathComponent("Package.swift").path) {
        return url.path
      }
      url = url.deletingLastPathComponent()
    }
    throw WebDriverError.process("no Package.swift above \(filePath)")
  }

  /// The path of a product built by `swift build` (`.build/debug/<name>`), failing clearly if absent.
  /// REPOSCROLL_RELEASE_PRODUCTS names a folder of release builds to start instead, for the products it
  /// holds (script/test: the release's own build of repo-scroll and github-double, as shipped).
  public static func builtProduct(_ name: String, filePath: String = #filePath) throws -> String {
    if let folder = ProcessInfo.processInfo.environment["REPOSCROLL_RELEASE_PRODUCTS"], !folder.isEmpty,
      access(folder + "/" + name, X_OK) == 0
    {
      return folder + "/" + name
    }
    let path = try packageRoot(filePath: filePath) + "/.build/debug/" + name
    guard access(path, X_OK) == 0 else {
      throw WebDriverError.process("\(path) does not exist: run `swift build` first")
    }
    return path
  }
}
