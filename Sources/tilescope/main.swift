import Foundation

exit(TilescopeCommand.main(Array(CommandLine.arguments.dropFirst())))
