#if !canImport(Darwin)
import Foundation

/// Foundation's undo manager, which swift-corelibs-foundation lacks: SwiftData's
/// `ModelContext.undoManager` records model changes in one, and document-style apps drive it.
/// It has Foundation's API and behaviour, but for the Objective-C parts (selectors, invocation
/// targets).
///
/// ```swift
/// let undoManager = UndoManager()
/// context.undoManager = undoManager
/// note.title = "Draft 2"
/// undoManager.undo()          // note.title is "Draft 1" again
/// undoManager.redo()
/// ```
///
/// Actions are kept in groups; `undo()` reverses the newest group, action by action, newest
/// first, and what the actions register while undoing becomes the group `redo()` replays. With
/// ``groupsByEvent`` (the default) a registration outside any group opens one, closed when the
/// current run loop turns, or by the next `undo()`; without it, such a registration (which
/// Foundation refuses) is a group of its own. An undo manager is used from one thread or
/// actor, as Foundation's; it is not `Sendable`.
open class UndoManager: NSObject {
    private struct Action {
        weak var target: AnyObject?
        let run: (AnyObject) -> Void
    }

    private struct Group {
        var actions: [Action] = []
        var actionName = ""
        var isDiscardable = false
    }

    private var undoStack: [Group] = []
    private var redoStack: [Group] = []
    /// Groups opened and not yet closed, outermost first.
    private var openGroups: [Group] = []
    /// Whether the outermost open group was opened by a registration, under ``groupsByEvent``.
    private var openedByEvent = false
    private var disabledCount = 0
    private var state = State.idle

    private enum State { case idle, undoing, redoing }

    public override init() {}

    // MARK: Registering actions

    /// Records `handler`, to run with `target` when the current group is undone. Registrations
    /// made while undoing become the redo; made otherwise, they clear what could be redone.
    open func registerUndo<TargetType: AnyObject>(withTarget target: TargetType, handler: @escaping (TargetType) -> Void) {
        guard isUndoRegistrationEnabled else { return }
        let action = Action(target: target) { handler($0 as! TargetType) }
        if state == .idle { redoStack.removeAll() }
        if openGroups.isEmpty {
            guard groupsByEvent else {
                // Foundation raises here; a group of its own keeps the action instead.
                undoStack.append(Group(actions: [action]))
                return trim()
            }
            beginUndoGrouping()
            closeAtTheEndOfThisEvent()
        }
        openGroups[openGroups.count - 1].actions.append(action)
    }

    /// Sets the name of the current group's action, as menus show it ("Undo Typing").
    open func setActionName(_ actionName: String) {
        if !openGroups.isEmpty {
            openGroups[0].actionName = actionName
        } else if state == .undoing, !redoStack.isEmpty {
            redoStack[redoStack.count - 1].actionName = actionName
        } else if !undoStack.isEmpty {
            undoStack[undoStack.count - 1].actionName = actionName
        }
    }

    /// Marks the current group as one whose undo changes nothing the user would miss.
    open func setActionIsDiscardable(_ discardable: Bool) {
        if !openGroups.isEmpty { openGroups[0].isDiscardable = discardable } else if !undoStack.isEmpty {
            undoStack[undoStack.count - 1].isDiscardable = discardable
        }
    }

    // MARK: Grouping

    /// Whether a registration outside a group opens one that closes when the run loop turns.
    open var groupsByEvent = true

    /// How deeply groups are nested now; 0 outside any group.
    open var groupingLevel: Int { openGroups.count }

    /// The most groups kept for undo; 0, the default, keeps every group.
    open var levelsOfUndo = 0 {
        didSet { trim() }
    }

    /// The run loop modes in which groups by event close. Kept for Foundation's API; groups
    /// close at the current run loop's next turn in whatever mode it runs.
    open var runLoopModes: [RunLoop.Mode] = [.default]

    /// Opens a group: the actions registered until the matching ``endUndoGrouping()`` undo as one.
    open func beginUndoGrouping() {
        openGroups.append(Group())
        openedByEvent = false
        NotificationCenter.default.post(name: .NSUndoManagerDidOpenUndoGroup, object: self)
    }

    /// Closes the innermost open group. A nested group becomes part of the one around it.
    open func endUndoGrouping() {
        precondition(!openGroups.isEmpty, "endUndoGrouping() without a matching beginUndoGrouping()")
        NotificationCenter.default.post(name: .NSUndoManagerWillCloseUndoGroup, object: self)
        let group = openGroups.removeLast()
        if openGroups.isEmpty {
            openedByEvent = false
            if !group.actions.isEmpty {
                switch state {
                case .undoing: redoStack.append(group)
                case .idle, .redoing: undoStack.append(group)
                }
                trim()
            }
        } else {
            openGroups[openGroups.count - 1].actions += group.actions
        }
        NotificationCenter.default.post(name: .NSUndoManagerDidCloseUndoGroup, object: self)
    }

    private func closeAtTheEndOfThisEvent() {
        openedByEvent = true
        let manager = WeakUndoManager(self)
        RunLoop.current.perform { manager.closeEventGroup() }
    }

    /// Closes the group a registration opened, if it is still the only one open.
    fileprivate func closeEventGroup() {
        guard openedByEvent, openGroups.count == 1 else { return }
        endUndoGrouping()
    }

    private func trim() {
        if levelsOfUndo > 0, undoStack.count > levelsOfUndo { undoStack.removeFirst(undoStack.count - levelsOfUndo) }
    }

    // MARK: Undoing and redoing

    /// Whether there is a group to undo.
    open var canUndo: Bool { !undoStack.isEmpty || openGroups.first.map { !$0.actions.isEmpty } == true }
    /// Whether there is a group to redo.
    open var canRedo: Bool { !redoStack.isEmpty }
    /// How many groups can be undone.
    open var undoCount: Int { undoStack.count }
    /// How many groups can be redone.
    open var redoCount: Int { redoStack.count }
    /// Whether an undo is running.
    open var isUndoing: Bool { state == .undoing }
    /// Whether a redo is running.
    open var isRedoing: Bool { state == .redoing }

    /// Closes the top-level group, if one is open, and undoes the newest group.
    open func undo() {
        if groupingLevel == 1 { endUndoGrouping() }
        precondition(groupingLevel == 0, "undo() inside nested undo groups; close them with endUndoGrouping() first")
        undoNestedGroup()
    }

    /// Undoes the newest group, running its actions newest first.
    open func undoNestedGroup() {
        guard let group = undoStack.popLast() else { return }
        NotificationCenter.default.post(name: .NSUndoManagerCheckpoint, object: self)
        NotificationCenter.default.post(name: .NSUndoManagerWillUndoChange, object: self)
        replay(group, as: .undoing)
        NotificationCenter.default.post(name: .NSUndoManagerDidUndoChange, object: self)
    }

    /// Redoes the newest group undone.
    open func redo() {
        if groupingLevel == 1 { endUndoGrouping() }
        precondition(groupingLevel == 0, "redo() inside nested undo groups; close them with endUndoGrouping() first")
        guard let group = redoStack.popLast() else { return }
        NotificationCenter.default.post(name: .NSUndoManagerCheckpoint, object: self)
        NotificationCenter.default.post(name: .NSUndoManagerWillRedoChange, object: self)
        replay(group, as: .redoing)
        NotificationCenter.default.post(name: .NSUndoManagerDidRedoChange, object: self)
    }

    private func replay(_ group: Group, as replaying: State) {
        state = replaying
        openGroups.append(Group(actionName: group.actionName, isDiscardable: group.isDiscardable))
        for action in group.actions.reversed() {
            if let target = action.target { action.run(target) }
        }
        let collected = openGroups.removeLast()
        state = .idle
        guard !collected.actions.isEmpty else { return }
        if replaying == .undoing { redoStack.append(collected) } else { undoStack.append(collected) }
        trim()
    }

    // MARK: Names

    /// The name of the action ``undo()`` would undo; empty if it has none.
    open var undoActionName: String { (openGroups.first ?? undoStack.last)?.actionName ?? "" }
    /// The name of the action ``redo()`` would redo; empty if it has none.
    open var redoActionName: String { redoStack.last?.actionName ?? "" }
    /// Whether the group ``undo()`` would undo is discardable.
    open var undoActionIsDiscardable: Bool { undoStack.last?.isDiscardable ?? false }
    /// Whether the group ``redo()`` would redo is discardable.
    open var redoActionIsDiscardable: Bool { redoStack.last?.isDiscardable ?? false }
    /// "Undo" and the action's name, for a menu item.
    open var undoMenuItemTitle: String { undoMenuTitle(forUndoActionName: undoActionName) }
    /// "Redo" and the action's name, for a menu item.
    open var redoMenuItemTitle: String { redoMenuTitle(forUndoActionName: redoActionName) }

    /// "Undo" followed by `actionName`, if it is not empty.
    open func undoMenuTitle(forUndoActionName actionName: String) -> String {
        actionName.isEmpty ? "Undo" : "Undo \(actionName)"
    }

    /// "Redo" followed by `actionName`, if it is not empty.
    open func redoMenuTitle(forUndoActionName actionName: String) -> String {
        actionName.isEmpty ? "Redo" : "Redo \(actionName)"
    }

    // MARK: Enabling and clearing

    /// Whether registrations are recorded: false between ``disableUndoRegistration()`` and the
    /// matching ``enableUndoRegistration()``.
    open var isUndoRegistrationEnabled: Bool { disabledCount == 0 }

    /// Stops recording registrations until the matching ``enableUndoRegistration()``; calls nest.
    open func disableUndoRegistration() { disabledCount += 1 }

    /// Undoes one ``disableUndoRegistration()``.
    open func enableUndoRegistration() {
        precondition(disabledCount > 0, "enableUndoRegistration() without a matching disableUndoRegistration()")
        disabledCount -= 1
    }

    /// Forgets every action that could be undone or redone.
    open func removeAllActions() {
        undoStack.removeAll()
        redoStack.removeAll()
        openGroups.removeAll()
        openedByEvent = false
    }

    /// Forgets the actions registered with `target`, and the groups they leave empty.
    open func removeAllActions(withTarget target: Any) {
        let object = target as AnyObject
        func pruned(_ groups: [Group]) -> [Group] {
            groups.map { group in
                var group = group
                group.actions.removeAll { $0.target === object || $0.target == nil }
                return group
            }.filter { !$0.actions.isEmpty }
        }
        undoStack = pruned(undoStack)
        redoStack = pruned(redoStack)
        for index in openGroups.indices { openGroups[index].actions.removeAll { $0.target === object } }
    }
}

/// The undo manager, as a run loop block closes its event's group on the manager's own thread.
private final class WeakUndoManager: @unchecked Sendable {
    weak var manager: UndoManager?
    init(_ manager: UndoManager) { self.manager = manager }
    func closeEventGroup() { manager?.closeEventGroup() }
}

extension NSNotification.Name {
    /// Posted before an undo manager undoes or redoes, and before it closes a group.
    public static let NSUndoManagerCheckpoint = NSNotification.Name("NSUndoManagerCheckpointNotification")
    /// Posted before an undo manager undoes a group.
    public static let NSUndoManagerWillUndoChange = NSNotification.Name("NSUndoManagerWillUndoChangeNotification")
    /// Posted after an undo manager undid a group.
    public static let NSUndoManagerDidUndoChange = NSNotification.Name("NSUndoManagerDidUndoChangeNotification")
    /// Posted before an undo manager redoes a group.
    public static let NSUndoManagerWillRedoChange = NSNotification.Name("NSUndoManagerWillRedoChangeNotification")
    /// Posted after an undo manager redid a group.
    public static let NSUndoManagerDidRedoChange = NSNotification.Name("NSUndoManagerDidRedoChangeNotification")
    /// Posted when an undo manager opens a group.
    public static let NSUndoManagerDidOpenUndoGroup = NSNotification.Name("NSUndoManagerDidOpenUndoGroupNotification")
    /// Posted before an undo manager closes a group.
    public static let NSUndoManagerWillCloseUndoGroup = NSNotification.Name("NSUndoManagerWillCloseUndoGroupNotification")
    /// Posted after an undo manager closed a group.
    public static let NSUndoManagerDidCloseUndoGroup = NSNotification.Name("NSUndoManagerDidCloseUndoGroupNotification")
}
#endif
