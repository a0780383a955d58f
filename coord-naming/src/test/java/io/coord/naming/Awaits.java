package io.coord.naming;

import java.time.Duration;
import java.util.function.BooleanSupplier;

/** Deadline polling: the bounded way a test waits for a condition another thread brings about. */
final class Awaits {
    private Awaits() {
    }

    static void until(Duration budget, BooleanSupplier condition, String failure) throws InterruptedException {
        long deadline = System.nanoTime() + budget.toNanos();
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() - deadline > 0) {
                throw new AssertionError(failure + " (within " + budget + ")");
            }
            Thread.sleep(10);
        }
    }
}
