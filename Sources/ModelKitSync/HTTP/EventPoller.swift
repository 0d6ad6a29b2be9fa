#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Which readiness of a descriptor ``EventPoller`` watches for.
enum PollInterest {
    /// Nothing: the descriptor is left out of the wait, hang-ups too.
    case none
    case read
    case write
}

/// What ``EventPoller/wait(milliseconds:)`` found ready on a descriptor.
struct PollEvent {
    var descriptor: Int32
    /// Bytes, or the end of the stream (a hang-up), are there to read.
    var readable: Bool
    /// Room to write, or a hang-up that the next write reports.
    var writable: Bool
    /// The connection failed: nothing more comes or goes.
    var failed: Bool
}

/// Waits on many descriptors at once from one thread, with `poll(2)`, on Linux and Darwin alike:
/// Swift's Glibc module has no `epoll`, and Darwin's `kqueue` would be a second code path for
/// the same job. The set is kept between waits, so a wait costs one system call whose work grows
/// with the number of descriptors (a few microseconds for a thousand), and nothing while none is
/// ready. Level-triggered: a descriptor ready and left so is reported again.
final class EventPoller {
    private var entries: [pollfd] = []
    /// The descriptor of each entry (which holds -1 while it is watched for nothing)…
    private var descriptors: [Int32] = []
    /// … and where each descriptor's entry is.
    private var positions: [Int32: Int] = [:]

    init() {}

    func add(_ descriptor: Int32, _ interest: PollInterest) {
        positions[descriptor] = entries.count
        entries.append(pollfd(fd: descriptor, events: 0, revents: 0))
        descriptors.append(descriptor)
        change(descriptor, interest)
    }

    /// A descriptor watched for nothing gets a negative number, which `poll` skips: otherwise
    /// it would report a hang-up again at every wait (macOS even on a half-close).
    func change(_ descriptor: Int32, _ interest: PollInterest) {
        guard let position = positions[descriptor] else { return }
        switch interest {
        case .none: entries[position] = pollfd(fd: -1, events: 0, revents: 0)
        case .read: entries[position] = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
        case .write: entries[position] = pollfd(fd: descriptor, events: Int16(POLLOUT), revents: 0)
        }
    }

    func remove(_ descriptor: Int32) {
        guard let position = positions.removeValue(forKey: descriptor) else { return }
        let last = entries.removeLast()
        let moved = descriptors.removeLast()
        guard position < entries.count else { return }
        entries[position] = last
        descriptors[position] = moved
        positions[moved] = position
    }

    /// The descriptors ready within `milliseconds` (-1: until one is); none if interrupted.
    func wait(milliseconds: Int32) -> [PollEvent] {
        guard poll(&entries, nfds_t(entries.count), milliseconds) > 0 else { return [] }
        var events: [PollEvent] = []
        for index in entries.indices where entries[index].revents != 0 {
            let entry = entries[index]
            entries[index].revents = 0
            events.append(
                PollEvent(
                    descriptor: entry.fd, readable: entry.revents & Int16(POLLIN | POLLHUP) != 0, writable: entry.revents & Int16(POLLOUT | POLLHUP) != 0,
                    failed: entry.revents & Int16(POLLERR | POLLNVAL) != 0))
        }
        return events
    }
}
