package io.coord.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/** {@code coord chaos} hands over to coord-chaos; the suite itself is tested by ChaosCiTierIT. */
class ChaosCommandTest {
    @Test
    void anUnknownScenarioIsAUsageErrorNamingItAndTheKnownOnes() {
        Cli.Result r = Cli.run("chaos", "--scenario", "lock,no-such");
        assertEquals(CoordCommand.USAGE, r.exitCode());
        assertTrue(r.err().contains("no chaos scenario 'no-such'") && r.err().contains("lock"), r.err());
    }

    @Test
    void aDurationTooShortForTheScenariosIsAUsageError() {
        Cli.Result r = Cli.run("chaos", "--duration", "15s", "--scenario", "lock,naming");
        assertEquals(CoordCommand.USAGE, r.exitCode());
        assertTrue(r.err().contains("--duration 15s is too short"), r.err());
    }

    @Test
    void aLongRunSplitsItsDurationOverEveryScenarioAndItsControl() {
        // Every scenario has one control, which runs for as long as the scenario; a 30-minute run
        // that split over the scenarios alone took 84 minutes.
        assertEquals(16, ChaosCommand.shares(io.coord.chaos.Scenarios.names()));
        assertEquals(2, ChaosCommand.shares(java.util.List.of("lock")));
    }

    @Test
    void anUnknownProfileIsAUsageErrorNamingItAndTheKnownOnes() {
        Cli.Result r = Cli.run("chaos", "--profile", "nightly", "--scenario", "lock");
        assertEquals(CoordCommand.USAGE, r.exitCode());
        assertTrue(r.err().contains("no chaos profile 'nightly'") && r.err().contains("ci, short"), r.err());
    }

    @Test
    void helpListsTheScenariosAndTheOutputLine() {
        Cli.Result r = Cli.run("chaos", "--help");
        assertEquals(0, r.exitCode(), r.err());
        assertTrue(r.out().contains("lock") && r.out().contains("naming") && r.out().contains("CHAOS <scenario>"), r.out());
    }
}
