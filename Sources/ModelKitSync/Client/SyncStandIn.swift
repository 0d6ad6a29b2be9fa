/// A stand-in: what a row holds of a unique text attribute while another row takes its value on
/// the device, until the server's order of the moves comes (see ``ClientApply``). It is never
/// pushed: it is the field's base.
enum SyncStandIn {
    /// What a stand-in ends with: an invisible word joiner and the row's identifier.
    static func marker(of gid: String) -> String { "\u{2060}" + gid }
}
