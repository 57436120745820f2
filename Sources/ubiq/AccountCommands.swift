import ArgumentParser

/// `ubiq account ...`: offline management of the account and this device's identity.
struct AccountCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "account", abstract: "Create, export, join or show the account.")
}
