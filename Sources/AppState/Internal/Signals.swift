import Synchronization

/// One ``ChangeAnchor`` per dependency key, made on first use: reads of a dependency observe it,
/// writes through a dependency slice fire it.
final class Signals: Sendable {
    private let anchors = Mutex<[String: ChangeAnchor]>([:])

    func signal(for key: String) -> ChangeAnchor {
        anchors.withLock { anchors in
            if let anchor = anchors[key] { return anchor }
            let anchor = ChangeAnchor()
            anchors[key] = anchor
            return anchor
        }
    }
}
