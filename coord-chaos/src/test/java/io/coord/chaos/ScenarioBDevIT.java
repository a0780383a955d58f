package io.coord.chaos;

import static org.junit.jupiter.api.Assertions.assertTrue;

import io.coord.test.ForkedEnsemble;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;

/**
 * Runs one of chaos suite B's scenarios alone against its own forked ensemble, for working on it:
 * {@code -Dchaos.only=queue|barrier|config}. Off by default: the short profile runs them all.
 */
@Tag("fault")
@EnabledIfSystemProperty(named = "chaos.only", matches = "queue|barrier|config")
class ScenarioBDevIT {
    @Test
    void theChosenScenarioHoldsItsInvariants() throws Exception {
        String only = System.getProperty("chaos.only");
        try (ForkedEnsemble ensemble = ForkedEnsemble.start(3, false)) {
            ScenarioReport report = switch (only) {
                case "queue" -> QueueScenario.run(ensemble, QueueScenario.Params.shortProfile());
                case "barrier" -> BarrierScenario.run(ensemble, BarrierScenario.Params.shortProfile());
                default -> throw new IllegalArgumentException(only);
            };
            System.out.println(report.chaosLine());
            System.out.println(report);
            assertTrue(report.passed(), report.toString());
        }
    }
}
