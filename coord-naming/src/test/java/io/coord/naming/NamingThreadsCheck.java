package io.coord.naming;

import io.coord.test.Awaits;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * Fails a test that leaves this module's own background threads running (they are daemon threads,
 * which coord-test's leak check does not count): a {@code BlockIds} or a {@code Discovery} the test
 * did not close, or whose close did not stop its thread.
 */
final class NamingThreadsCheck implements AfterEachCallback {
    private static final List<String> OURS = List.of("coord-block-ids-", "coord-discovery-health-");

    @Override
    public void afterEach(ExtensionContext context) {
        Awaits.until("this module's threads to stop (left: " + left() + ")", Duration.ofSeconds(5), () -> left().isEmpty());
    }

    private static List<String> left() {
        return Thread.getAllStackTraces().keySet().stream().filter(Thread::isAlive).map(Thread::getName)
                .filter(n -> OURS.stream().anyMatch(n::startsWith)).toList();
    }
}
