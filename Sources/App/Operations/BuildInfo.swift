import CBuildInfo

/// What this binary is: the version (its one home; `script/package` reads it back from
/// `repo-scroll --version` to name the tarball) and the commit, injected at build time.
public enum BuildInfo {
  /// The release version.
  public static let version = "1.0.0"
  /// The short commit hash `script/package` built from (with `-dirty` for uncommitted changes), or
  /// `unknown` for builds that did not pass one.
  public static let commit: String = {
    let raw = String(cString: reposcroll_commit())
    // A define is a build input, but it still reaches metrics labels and headers: keep it a token.
    let safe = raw.utf8.allSatisfy {
      $0 < 0x80 && ($0 == 0x2D || (0x30...0x39).contains($0) || (0x61...0x7A).contains($0))
    }
    return safe && !raw.isEmpty && raw.utf8.count <= 48 ? raw : "unknown"
  }()
  /// `repo-scroll VERSION (COMMIT)`, as `--version` prints it.
  public static var versionLine: String { "repo-scroll \(version) (commit \(commit))" }
}
