import ServiceLifecycle
import UbiqSync

/// Ends the control subscriptions on the account's containers and stores when its syncing
/// stops: a client hears that its subscription ended (`subscription.fellBehind`) and
/// subscribes again, to the parts that replace them after a rotation's restart or a sign-in.
struct SubscriptionEnding: Service {
    let containers: [ContainerSync]
    let stores: [KeyValueStore]

    func run() async throws {
        try? await gracefulShutdown()
        for container in containers { container.endSubscriptions() }
        for store in stores { store.endSubscriptions() }
    }
}
