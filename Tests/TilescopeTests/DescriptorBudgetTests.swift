import HTTPServer
import Testing
@testable import Tilescope

/// The open-files limit is shared so that cached tile files never take what `accept` needs.
@Suite struct DescriptorBudgetTests {
    @Test(arguments: [64, 256, 1024, 4096, 20000, 1 << 20])
    func cacheConnectionsAndReserveFitTheLimit(limit: Int) {
        let budget = DescriptorBudget(limit: limit)
        let connections = budget.connections(wanted: 1_000_000)
        let slack = ServerOptions(connectionLimit: connections).connectionSlack
        #expect(budget.openFiles >= 16)
        #expect(connections >= 16)
        #expect(budget.openFiles + connections + slack + budget.reserve <= limit)
    }

    @Test func aLimitOf1024LeavesMostDescriptorsToConnections() {
        let budget = DescriptorBudget(limit: 1024)
        #expect(budget.openFiles == 128)
        #expect(budget.connections(wanted: 16384) == 603)
        #expect(budget.connections(wanted: 100) == 100)
    }
}
