extension Store {
    /// Runs `body` in one write transaction at the store's writer, in its turn, and commits what
    /// it wrote with everything a commit owes the others: the history of its rows is appended,
    /// and, once committed, the change it returns is published to the process's other contexts
    /// (all but the session's) and announced to other instances.
    ///
    /// External files the rows no longer name are removed once the transaction commits; files it
    /// wrote are removed if it fails, and the store is then as it was.
    /// - Parameter session: the writing context's author, trace, inbox and reader (which the
    ///   transaction runs on where ``savesOnContextConnections``).
    /// - Returns: what `body` returned, and the history token of the transaction, if it recorded one.
    /// - Throws: what `body` throws, or a ``ModelKitError`` for what the database refused.
    func commit<R>(
        in session: StoreSession, _ body: (inout RowWriter) throws -> (change: StoreChange, result: R)
    ) throws -> (result: R, token: Int64?) {
        var writtenFiles: [String] = []
        let author = session.author
        do {
            return try writeInTurn(trace: session.trace, on: try session.writingReader(), noticingFirst: false) { connection, turn in
                var writer = RowWriter(connection: connection, externalFiles: externalFiles, recordsHistory: recordsHistory)
                defer { writtenFiles = writer.writtenFiles }
                let begin = recordsHistory ? dialect.history.begin : nil
                let (written, lastRow) = try connection.transaction(begin: begin) {
                    // Holding the write lock: what other processes committed before it is
                    // published now, and when nothing else committed since the process's last
                    // save, what that save noted of the writer holds: its next keys and token.
                    var nextToken: Int64?
                    if var current = turn {
                        if try access.publishExternalCommitsWhileLocked(&current) {
                            writer.takeUpKeys(current.keys)
                            nextToken = current.tokenAfterOwnSave.map { $0 + 1 }
                        }
                        current.keys = nil
                        turn = current
                    }
                    let (change, result) = try body(&writer)
                    guard var record = writer.history, !record.isEmpty else { return ((change, result, Int64?.none), nil) }
                    // Sent with the COMMIT where the dialect folds it in: one round trip less.
                    if dialect.history.foldsIntoCommit { return ((change, result, nil), HistoryTable.appendStatement(&record, author: author)) }
                    return ((change, result, try HistoryTable.append(&record, author: author, to: connection, token: nextToken)), nil)
                }
                turn?.keys = writer.keyHandover()
                turn?.versionAfterOwnSave = connection.changeCounter
                let (change, result, appended) = written
                var token = appended
                if case .integer(let returned)? = lastRow?.first { token = returned }
                externalFiles?.remove(writer.replacedFiles)
                if let token {
                    turn?.tokenAfterOwnSave = token
                    access.noteCommittedTransaction(token, in: &turn)
                }
                if !change.isEmpty {
                    access.publish(change, from: session.inbox)
                    access.announce(change)
                }
                return (result, token)
            }
        } catch {
            externalFiles?.remove(writtenFiles)
            if let failure = error as? any DatabaseFailure { throw self.error(for: failure) }
            throw error
        }
    }
}
