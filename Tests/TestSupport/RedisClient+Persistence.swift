import Foundation
import Redis

extension RedisClient {
  /// Saves the data set (`SAVE`) and returns every byte Redis keeps on disk: the RDB snapshot and the
  /// append-only files, for tests that look for what must never be stored.
  public func persistedBytes() async throws -> [UInt8] {
    _ = try await execute(["SAVE"])
    let dir = try await execute(["CONFIG", "GET", "dir"]).array?.last?.bytes
    guard let dir else { throw RedisError.server("CONFIG GET dir named no directory") }
    let folder = String(decoding: dir, as: UTF8.self)
    var files = [folder + "/dump.rdb"]
    if let aof = try? FileManager.default.contentsOfDirectory(atPath: folder + "/appendonlydir") {
      files += aof.map { folder + "/appendonlydir/" + $0 }
    }
    var onDisk: [UInt8] = []
    for file in files { onDisk += FileManager.default.contents(atPath: file).map { Array($0) } ?? [] }
    return onDisk
  }
}
