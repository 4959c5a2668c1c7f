import Foundation
import PackagePlugin

/// Embeds the dashboard's files in `PassTapDashboard` at build time: one build command that runs
/// `dashboard-embed.sh` (beside this file) on every file of the target's `Files/` folder and gives
/// the Swift source it writes (raw string literals) to the target:
/// docs/development.md, "The dashboard's files".
///
/// The command runs again when a file or the script changes; a file added or removed changes the
/// command itself. It reads only the package's files and writes only to the plugin's work folder,
/// so it runs in SwiftPM's plugin sandbox (macOS) and offline. The script needs nothing built: a
/// tool built from source would be built by the fuzz build too (SwiftPM builds the tools of every
/// plugin in the package graph), with its sanitizer flags.
@main
struct DashboardEmbedPlugin: BuildToolPlugin {
    /// The build command for `target`, whose `Files/` folder (excluded from its sources in
    /// Package.swift) holds the files to serve.
    func createBuildCommands(context: PluginContext, target: any Target) throws -> [Command] {
        // `Target.directoryURL` needs tools version 6.1; the concrete target has it in 6.0.
        guard let target = target as? SwiftSourceModuleTarget else {
            throw DashboardEmbedError(description: "\(target.name) is not a Swift target")
        }
        let folder = target.directoryURL.appending(path: "Files", directoryHint: .isDirectory)
        let names = try FileManager.default.contentsOfDirectory(atPath: folder.path)
            .filter { !$0.hasPrefix(".") }
            .sorted()
        guard names.contains("index.html") else {
            throw DashboardEmbedError(description: "\(folder.path) has no index.html to serve at /")
        }
        let files = names.map { folder.appending(path: $0, directoryHint: .notDirectory) }
        let script = context.package.directoryURL.appending(
            path: "Plugins/DashboardEmbedPlugin/dashboard-embed.sh", directoryHint: .notDirectory)
        let output = context.pluginWorkDirectoryURL.appending(path: "Dashboard+Files.swift")
        return [
            .buildCommand(
                displayName: "Embedding the dashboard's \(names.count) files in \(target.name)",
                executable: URL(fileURLWithPath: "/bin/sh"),
                arguments: [script.path, output.path] + files.map(\.path),
                inputFiles: [script] + files,
                outputFiles: [output]
            )
        ]
    }
}

/// Why the plugin made no command.
struct DashboardEmbedError: Error, CustomStringConvertible {
    let description: String
}
