// UbiqClient is the one module an application imports (DESIGN.md §2): the model's values
// (`ContainerID`, `PropertyListValue`, …) and the control protocol's payloads come with it.
@_exported import UbiqControlAPI
@_exported import UbiqModel
