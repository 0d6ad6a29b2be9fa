import AppState

/// A storage entity that can present itself as the app's ``Record``, so views never see storage
/// types.
public protocol ToRecordProtocol {
    func toRecord() -> Record
}

extension SDRecord: ToRecordProtocol {
    /// The record this entity stores. A `type` the app does not know (written by a newer version,
    /// say) reads as ``RecordType/expense``, and a warning names it.
    public func toRecord() -> Record {
        let recordType = RecordType(rawValue: type) ?? {
            Application.dependency(\.logger).warning("record \(recordID) has unknown type '\(type)'; reading it as expense")
            return .expense
        }()
        return Record(id: recordID, title: title, date: date, type: recordType, amount: amount)
    }
}
