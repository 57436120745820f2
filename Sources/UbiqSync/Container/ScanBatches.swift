import UbiqModel

/// What a scan recorded in batches while its walk went on: a first index of a million files
/// then holds one batch of new entries at a time instead of the whole tree (issue 42).
struct ScanBatches {
    /// Index writes the batches made.
    var changed = 0
    /// Known paths (an entry, a held stat or a problem on record) that a batch read again, for
    /// the walk's end to tell them from those it left unread.
    var reread = Set<RelativePath>()
    /// A receive-only container's changes the batches held back.
    var held: [RelativePath: HeldChanges.Change] = [:]
    /// Why a batch could not be recorded; the walk stopped there.
    var failure: (any Error)?
}
