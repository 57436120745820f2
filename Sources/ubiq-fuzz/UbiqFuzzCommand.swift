import Foundation
import UbiqFuzz

/// `ubiq-fuzz TARGET [ARGUMENTS…]`. Built by `scripts/fuzz.sh` (with `UBIQ_FUZZING`) it runs
/// libFuzzer on TARGET and ARGUMENTS are libFuzzer's; in an ordinary build it replays the
/// files and folders given. `ubiq-fuzz seeds FOLDER` writes the seed corpus.
@main
enum UbiqFuzzCommand {
    /// Names the target for the copies of itself libFuzzer starts (`-fork`, `-merge`,
    /// `-minimize_crash`), which get libFuzzer's arguments only.
    static let targetVariable = "UBIQ_FUZZ_TARGET"

    static func main() {
        var arguments = Array(CommandLine.arguments.dropFirst())
        if arguments.first == "seeds", arguments.count == 2 {
            exit(attempt { try CorpusReplay.writeSeeds(to: arguments[1]) })
        }
        let target: FuzzTarget
        if let first = arguments.first, let named = FuzzTarget.named(first) {
            target = named
            arguments.removeFirst()
            setenv(targetVariable, named.name, 1)
        } else if let name = ProcessInfo.processInfo.environment[targetVariable], let named = FuzzTarget.named(name) {
            target = named
        } else {
            usage()
            exit(2)
        }
        #if UBIQ_FUZZING
        exit(FuzzDriver.run(target, arguments: [CommandLine.arguments[0]] + arguments))
        #else
        exit(attempt {
            let count = try CorpusReplay.run(target, paths: arguments)
            print("\(target.name): \(count) inputs ran without a crash")
        })
        #endif
    }

    static func attempt(_ body: () throws -> Void) -> Int32 {
        do {
            try body()
            return 0
        } catch {
            FileHandle.standardError.write(Data("ubiq-fuzz: \(error)\n".utf8))
            return 1
        }
    }

    static func usage() {
        let targets = FuzzTarget.all.map { "  \($0.name.padding(toLength: 16, withPad: " ", startingAt: 0)) \($0.summary)" }
        let text = """
            usage: ubiq-fuzz TARGET [FILE|FOLDER…]   replay inputs (libFuzzer flags too, in a fuzzing build)
                   ubiq-fuzz seeds FOLDER            write the seed corpus, one subfolder per target
            targets:
            \(targets.joined(separator: "\n"))

            """
        FileHandle.standardError.write(Data(text.utf8))
    }
}
