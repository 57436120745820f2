import ArgumentParser
import UbiqClient

/// `ubiq-todo`: a small to-do list kept in a record store, the same on every device of the
/// account. An example of `UbiqClient.RecordStore`.
@main
struct TodoCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "ubiq-todo", abstract: "A to-do list that follows you across your devices.",
        subcommands: [Add.self, Done.self, List.self, Remove.self])

    struct Add: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Add a task.")

        @OptionGroup var options: TodoOptions
        @Argument(help: "What to do.") var title: String
        @Option(help: "The list to add it to.") var list = "inbox"

        func run() async throws {
            let task = try await options.withList { try await $0.add(title, to: list) }
            print("Added \(task.id): \(task.title) (\(task.list))")
        }
    }

    struct Done: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Mark a task done.")

        @OptionGroup var options: TodoOptions
        @Argument(help: "The task's ID, or the start of it.") var id: String

        func run() async throws {
            let task = try await options.withList { try await $0.markDone(id) }
            print("Done: \(task.title)")
        }
    }

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(commandName: "ls", abstract: "List the tasks, open ones first.")

        @OptionGroup var options: TodoOptions
        @Option(help: "Only the tasks of this list.") var list: String?

        func run() async throws {
            let tasks = try await options.withList { try await $0.tasks(in: list) }
            print(tasks.isEmpty ? "Nothing to do." : tasks.map(\.line).joined(separator: "\n"))
        }
    }

    struct Remove: AsyncParsableCommand {
        static let configuration = CommandConfiguration(commandName: "rm", abstract: "Remove a task.")

        @OptionGroup var options: TodoOptions
        @Argument(help: "The task's ID, or the start of it.") var id: String

        func run() async throws {
            let task = try await options.withList { try await $0.remove(id) }
            print("Removed: \(task.title)")
        }
    }
}
