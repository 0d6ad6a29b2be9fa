extension Store {
    /// Deletes every row of `entities` (and their join tables), and the store's history, in one
    /// transaction, leaving the tables in place; every context and other instance hears of it as
    /// a change of unknown rows. External files the rows named go once the transaction commits.
    /// - Throws: a typed error when the database refuses; nothing is deleted then.
    func deleteAllRows(of entities: [Schema.Entity]) throws {
        let tables = Set(entities.map(\.sql.table) + entities.flatMap(\.joinTables))
        do {
            try write(trace: nil) { writer in
                let change = StoreChange(isExternal: true, origin: ObjectIdentifier(self))
                var files: [String] = []
                try writer.transaction {
                    if externalFiles != nil {
                        for select in entities.compactMap({ RelationshipSQL.externalValues(of: $0, keys: nil) }) {
                            files += ExternalFiles.names(in: try writer.statement(select).rows())
                        }
                    }
                    for table in tables { try writer.execute(TableSQL.deleteAll(from: table)) }
                    if recordsHistory { try HistoryTable.deleteAll(in: writer) }
                }
                externalFiles?.remove(files)
                access.publish(change, from: nil)
                access.announce(change)
            }
        } catch let failure as any DatabaseFailure {
            throw error(for: failure)
        }
    }
}
