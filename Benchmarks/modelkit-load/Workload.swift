import Foundation
import ModelKit

/// The load's model: a unique key to read by, a value to update.
@Model
final class LoadItem {
    @Attribute(.unique) var key: Int
    var name: String
    var value: Double

    init(key: Int, name: String, value: Double) {
        self.key = key
        self.name = name
        self.value = value
    }
}

/// What one request does.
enum Request {
    /// Inserts one row and saves.
    case write(key: Int)
    /// Reads one row by its unique key.
    case read(key: Int)
    /// Reads one row by its unique key, changes it and saves.
    case update(key: Int)
}

/// The kinds of request a run sends.
enum Workload: String {
    /// Every request writes.
    case writes
    /// 80 % reads, 20 % updates, of seeded rows.
    case mixed
    /// Every request reads.
    case reads
}

/// Hands out a loop's requests: new keys for writes (distinct across processes and loops),
/// random seeded keys for reads and updates.
struct RequestSource {
    let workload: Workload
    let rows: Int
    private var nextKey: Int
    private var random: UInt64

    /// - Parameters:
    ///   - stream: distinct for every loop of every process of a run.
    ///   - run: distinct for every run on the same rows.
    init(workload: Workload, rows: Int, stream: Int, run: Int) {
        self.workload = workload
        self.rows = rows
        nextKey = rows + stream * 100_000_000 + run * 10_000_000
        random = UInt64(truncatingIfNeeded: stream) &* 0x9E37_79B9_7F4A_7C15 | 1
    }

    mutating func next() -> Request {
        random ^= random << 13
        random ^= random >> 7
        random ^= random << 17
        let key = Int(random % UInt64(rows))
        switch workload {
        case .writes:
            nextKey += 1
            return .write(key: nextKey)
        case .reads: return .read(key: key)
        case .mixed: return random % 5 == 0 ? .update(key: key) : .read(key: key)
        }
    }
}
